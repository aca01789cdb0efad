//! Tiny games whose best moves can be worked out by hand, for testing the search without the
//! Ko shogi rules (and for checking the search logic independently of them).

use crate::game::{SearchGame, Terminal};

/// Tic-tac-toe. Squares 0..9 row by row; the side to move is derived from the move count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TicTacToe {
    /// 0 empty, 1 first player, 2 second player.
    cells: [u8; 9],
    history: Vec<u8>,
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl TicTacToe {
    /// A position from a 9-character diagram ('X' first player, 'O' second, '.' empty),
    /// with X to move if the counts are equal. Returns `None` for impossible counts.
    pub fn from_diagram(diagram: &str) -> Option<TicTacToe> {
        let chars: Vec<char> = diagram.chars().filter(|c| !c.is_whitespace()).collect();
        if chars.len() != 9 {
            return None;
        }
        let mut game = TicTacToe::default();
        let (mut xs, mut os) = (Vec::new(), Vec::new());
        for (i, c) in chars.iter().enumerate() {
            match c {
                'X' => xs.push(i as u8),
                'O' => os.push(i as u8),
                '.' => {}
                _ => return None,
            }
        }
        if !(xs.len() == os.len() || xs.len() == os.len() + 1) {
            return None;
        }
        // Interleave so the history is consistent with the side to move.
        for i in 0..xs.len() {
            game.play(xs[i]);
            if i < os.len() {
                game.play(os[i]);
            }
        }
        Some(game)
    }

    fn mover(&self) -> u8 {
        if self.history.len().is_multiple_of(2) {
            1
        } else {
            2
        }
    }

    fn has_line(&self, player: u8) -> bool {
        LINES
            .iter()
            .any(|l| l.iter().all(|&i| self.cells[i] == player))
    }
}

impl SearchGame for TicTacToe {
    type Move = u8;
    type Position = [u8; 9];

    fn legal_moves(&self, out: &mut Vec<u8>) {
        if self.terminal().is_none() {
            out.extend((0..9u8).filter(|&i| self.cells[i as usize] == 0));
        }
    }

    fn play(&mut self, mv: u8) {
        self.cells[mv as usize] = self.mover();
        self.history.push(mv);
    }

    fn undo(&mut self) {
        if let Some(mv) = self.history.pop() {
            self.cells[mv as usize] = 0;
        }
    }

    fn terminal(&self) -> Option<Terminal> {
        let opponent = 3 - self.mover();
        if self.has_line(opponent) {
            Some(Terminal::Loss)
        } else if self.cells.iter().all(|&c| c != 0) {
            Some(Terminal::Draw)
        } else {
            None
        }
    }

    fn position_hash(&self) -> u64 {
        self.cells
            .iter()
            .fold(self.history.len() as u64 % 2, |h, &c| h * 3 + c as u64)
    }

    fn position(&self) -> [u8; 9] {
        self.cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_the_game_for_the_side_to_move() {
        let game = TicTacToe::from_diagram("XXX OO. ...").unwrap();
        assert_eq!(game.terminal(), Some(Terminal::Loss));
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        assert!(moves.is_empty());
        let game = TicTacToe::from_diagram("XOX XOO OXX").unwrap();
        assert_eq!(game.terminal(), Some(Terminal::Draw));
    }

    #[test]
    fn play_and_undo_restore_the_position() {
        let mut game = TicTacToe::from_diagram("X.. .O. ...").unwrap();
        let before = game.clone();
        game.play(8);
        assert_ne!(game, before);
        game.undo();
        assert_eq!(game, before);
    }
}
