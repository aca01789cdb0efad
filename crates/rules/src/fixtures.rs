//! Positions that the tests of several crates build alike: the material tests here, the
//! search's material evaluator (koshogi-mcts), the network's material head (koshogi-nn) and the
//! material targets (koshogi-replay) all need a position where one side is ahead by exactly one
//! piece. One owner, so they agree on which piece. Compiled for this crate's tests and behind
//! the `fixtures` feature (which other crates enable only as a dev-dependency), never in a
//! release build.

use crate::{Color, PieceKind, Position};

/// The start position without White's first piece (in [`Position::pieces`] order), and the
/// kind of that piece: Black is ahead by exactly that piece, whichever side is to move.
pub fn start_without_a_white_piece() -> (Position, PieceKind) {
    let mut position = Position::startpos();
    let (square, piece) = position
        .pieces()
        .find(|(_, p)| p.color == Color::White)
        .expect("the start position has White pieces");
    position.set_piece(square, None);
    (position, piece.kind)
}
