//! A position as plain text: the board with files 19…1 across and ranks a…s down (as Black
//! sees it), each point's KSFEN token (Black upper case, White lower case) or `.`. `koshogi
//! show` prints it above the derived state; the Python package's environments render with it.

use std::fmt::Write as _;

use koshogi_rules::{Color, Game, Position, RulesOptions, Square};

/// The 21 lines of the diagram (file numbers, 19 ranks, file numbers), each ending in `\n`.
pub fn board_diagram(position: &Position) -> String {
    let mut s = String::new();
    let files: String = (1..=19).rev().map(|f| format!("{f:>4}")).collect();
    let _ = writeln!(s, "   {files}");
    for rank in 1..=19u8 {
        let letter = (b'a' + rank - 1) as char;
        let _ = write!(s, " {letter} ");
        for file in (1..=19u8).rev() {
            let sq = Square::new(file, rank).expect("on the board");
            let token = position
                .piece_at(sq)
                .map_or_else(|| ".".to_string(), |p| p.ksfen_token());
            let _ = write!(s, "{token:>4}");
        }
        let _ = writeln!(s, "  {letter}");
    }
    let _ = writeln!(s, "   {files}");
    s
}

/// The whole text `koshogi show` (and `koshogi play` after each move) prints: the
/// [`board_diagram`], the side to move, the KSFEN, each side's survival (§10.1), lost Taoist
/// priest (§8.6) and drum (§8.7), the immobilized pieces (§4.9), the number of legal moves
/// and the outcome of a finished game.
pub fn position_report(position: &Position, options: &RulesOptions) -> String {
    let mut s = board_diagram(position);
    let _ = writeln!(s);
    let game = Game::from_position(position.clone(), *options);
    let side = position.side_to_move();
    let _ = writeln!(s, "side to move: {side} (ply {})", position.ply());
    let _ = writeln!(s, "ksfen: {}", position.to_ksfen(true));
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    for color in Color::ALL {
        let _ = writeln!(
            s,
            "{color}: survives {}, Taoist priest lost {}, drum lost {}",
            yes_no(position.survives(color, options)),
            yes_no(position.taoist_priest_lost(color)),
            yes_no(position.drum_lost(color)),
        );
    }
    let frozen: Vec<String> = position
        .pieces()
        .filter(|(sq, _)| position.is_immobilized_with(*sq, options))
        .map(|(sq, p)| format!("{sq} {}", p.ksfen_token()))
        .collect();
    let _ = writeln!(
        s,
        "immobilized: {}",
        if frozen.is_empty() {
            "none".to_string()
        } else {
            frozen.join(", ")
        }
    );
    let _ = writeln!(s, "legal moves: {}", game.legal_moves().len());
    match game.outcome() {
        None => {}
        Some(outcome) => {
            let _ = writeln!(s, "game over: {outcome:?}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_has_every_piece_of_the_ksfen_on_its_rank() {
        let position = Position::startpos();
        let text = board_diagram(&position);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 21);
        // Each rank line lists its tokens from file 19 to file 1, as the KSFEN writes them.
        for rank in 1..=19u8 {
            let tokens: Vec<&str> = lines[rank as usize].split_whitespace().collect();
            assert_eq!(tokens.len(), 21, "letter, 19 points, letter");
            for (i, file) in (1..=19u8).rev().enumerate() {
                let expected = position
                    .piece_at(Square::new(file, rank).unwrap())
                    .map_or_else(|| ".".to_string(), |p| p.ksfen_token());
                assert_eq!(tokens[i + 1], expected);
            }
        }
        let stones = lines[1..20]
            .iter()
            .flat_map(|line| line.split_whitespace().skip(1).take(19))
            .filter(|token| *token != ".")
            .count();
        assert_eq!(stones, position.pieces().count());
    }
}
