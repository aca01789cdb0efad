//! Test positions for the baselines, set up piece by piece as the rules' own tests do.

use koshogi_rules::{Color, Game, Piece, PieceKind, Position, RulesOptions, Square};

/// A game from a position holding exactly `pieces`, under the default rules.
pub(crate) fn game(black_to_move: bool, pieces: &[(&str, Color, PieceKind)]) -> Game {
    let mut position = Position::empty(if black_to_move {
        Color::Black
    } else {
        Color::White
    });
    for &(square, color, kind) in pieces {
        position.set_piece(
            square.parse::<Square>().unwrap(),
            Some(Piece::new(color, kind)),
        );
    }
    Game::from_position(position, RulesOptions::default())
}
