//! Threats: which of the side to move's pieces the opponent could capture if it were its turn.
//!
//! Why the search wants them: most quiet moves of a Ko shogi position change nothing at a
//! few plies' depth, but the few that take an attacked piece out of reach (of a chariot, a
//! lion's double step, a shooter's line of fire) decide whether it is lost. Knowing the attacked
//! points, move ordering puts those evasions before the other quiet moves, and the search
//! never reduces or prunes them ([`super::search`]'s late-move reductions and late-move
//! pruning). Without it, a shooter that captures without moving could take one piece a move
//! while the engine's ~250 quiet moves hid the one answer among the reduced ones.
//!
//! Cost: one captures-only generation for the opponent per interior node (the side to move is
//! flipped and restored, as the null move does), a small share beside the full generation the
//! node makes anyway.

use koshogi_rules::{Move, Position, RulesOptions, Square};

use super::eval::piece_centipawns;
use super::ordering::capture_points;

/// The side to move's points the opponent could capture now, with the value at stake.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    /// One bit per point ([`Square::index`]).
    attacked: [u64; WORDS],
    /// Centipawns of the most valuable attacked piece (0 when none is attacked).
    pub worst: i32,
}

const WORDS: usize = Square::COUNT.div_ceil(64);

impl Threats {
    /// No point attacked.
    pub const NONE: Threats = Threats {
        attacked: [0; WORDS],
        worst: 0,
    };

    /// Whether the opponent could capture the piece on `square`.
    pub fn is_attacked(&self, square: Square) -> bool {
        let index = square.index();
        self.attacked[index / 64] & (1 << (index % 64)) != 0
    }

    /// Whether no piece is attacked.
    pub fn is_empty(&self) -> bool {
        self.attacked.iter().all(|&word| word == 0)
    }

    fn mark(&mut self, square: Square) {
        let index = square.index();
        self.attacked[index / 64] |= 1 << (index % 64);
    }
}

/// The threats against the side to move of `position`. `buffer` is scratch space for the
/// opponent's captures; `moves_generated` counts them (the search reports its generation work).
pub fn opponent_threats(
    position: &mut Position,
    options: &RulesOptions,
    buffer: &mut Vec<Move>,
    moves_generated: &mut u64,
) -> Threats {
    let me = position.side_to_move();
    position.set_side_to_move(me.opposite());
    buffer.clear();
    position.generate_captures(options, buffer);
    position.set_side_to_move(me);
    *moves_generated += buffer.len() as u64;
    let mut threats = Threats::NONE;
    for capture in buffer.iter() {
        for point in capture_points(capture) {
            if let Some(piece) = position.piece_at(point).filter(|piece| piece.color == me) {
                threats.mark(point);
                threats.worst = threats.worst.max(piece_centipawns(piece.kind));
            }
        }
    }
    threats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_positions::pawn_under_a_chariot;
    use koshogi_rules::Color::Black;
    use koshogi_rules::PieceKind::*;

    fn square(text: &str) -> Square {
        text.parse().unwrap()
    }

    #[test]
    fn marks_the_pieces_the_opponent_can_take_and_restores_the_turn() {
        // White's chariot on 10e reaches Black's pawn on 10i (straight down the file); Black's
        // aide on 3p is out of every white piece's reach.
        let game = pawn_under_a_chariot("3p");
        let mut position = game.position().clone();
        let hash = position.hash();
        let mut generated = 0;
        let threats = opponent_threats(
            &mut position,
            game.options(),
            &mut Vec::new(),
            &mut generated,
        );
        assert_eq!(position.hash(), hash, "the side to move is restored");
        assert_eq!(position.side_to_move(), Black);
        assert!(threats.is_attacked(square("10i")));
        assert!(!threats.is_attacked(square("3p")));
        assert!(!threats.is_attacked(square("10e")), "its own piece");
        assert_eq!(threats.worst, piece_centipawns(Pawn));
        assert!(generated > 0);
    }

    #[test]
    fn at_the_start_only_the_chariot_units_on_the_edge_files_face_each_other() {
        // The chariot units on 1f and 19f range down the empty edge files to Black's on 1n and
        // 19n (§3.3); every other piece is out of reach.
        let game = koshogi_rules::Game::new(RulesOptions::default());
        let mut position = game.position().clone();
        let threats = opponent_threats(&mut position, game.options(), &mut Vec::new(), &mut 0);
        let attacked: Vec<String> = Square::all()
            .filter(|&point| threats.is_attacked(point))
            .map(|point| point.to_string())
            .collect();
        assert_eq!(attacked, ["1n", "19n"]);
        assert_eq!(threats.worst, piece_centipawns(ChariotUnit));
    }
}
