//! Helpers for the unit tests: build positions from piece lists and query generated moves.

use crate::{Color, Move, Piece, PieceKind, Position, RulesOptions, Square};

pub(crate) fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// A position with the given pieces and, unless listed, generals tucked into far corners
/// (Black 18s, White 2a; off every line through 10j) so that both sides survive (§14.2).
pub(crate) fn setup(pieces: &[(&str, Color, PieceKind)], side: Color) -> Position {
    let mut p = Position::empty(side);
    let has_g = |c| {
        pieces
            .iter()
            .any(|&(_, pc, k)| pc == c && matches!(k, PieceKind::General | PieceKind::Governor))
    };
    if !has_g(Color::Black) {
        p.set_piece(
            sq("18s"),
            Some(Piece::new(Color::Black, PieceKind::General)),
        );
    }
    if !has_g(Color::White) {
        p.set_piece(sq("2a"), Some(Piece::new(Color::White, PieceKind::General)));
    }
    for &(s, c, k) in pieces {
        p.set_piece(sq(s), Some(Piece::new(c, k)));
    }
    p
}

/// Moves of the piece on `from`, under `opts`.
pub(crate) fn moves_from_with(p: &Position, from: &str, opts: &RulesOptions) -> Vec<Move> {
    let o = sq(from);
    p.legal_moves(opts)
        .into_iter()
        .filter(|m| m.origin() == o)
        .collect()
}

pub(crate) fn moves_from(p: &Position, from: &str) -> Vec<Move> {
    moves_from_with(p, from, &RulesOptions::default())
}

pub(crate) fn names(moves: &[Move]) -> Vec<String> {
    let mut v: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

/// Alone-on-the-board move count of `kind` for Black at `at`, counting a promote/decline pair
/// once (the reference's counts are of destinations and effects).
pub(crate) fn alone(kind: PieceKind, at: &str) -> usize {
    let p = setup(&[(at, Color::Black, kind)], Color::Black);
    moves_from(&p, at)
        .iter()
        .filter(|m| m.promotion() != crate::Promotion::Decline)
        .count()
}
