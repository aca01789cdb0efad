//! Move notation (§11): the canonical machine notation used by logs, tests and engine I/O
//! ([`canonical`]), and the human-readable Hodges-style notation ([`hodges`]).
//!
//! Both parsers work *against a position and its legal moves*: a move is identified by its
//! effect (§4.10), so the text is turned into a path, the path is checked against the board, and
//! the legal move with the same effect is returned. That is how a non-canonical path (say a
//! dragon ascending's two-step detour written instead of its one-step name) is accepted.

pub mod canonical;
pub mod hodges;

use crate::{Game, Move, Square};

pub use canonical::{format_canonical, parse_canonical, parse_canonical_path, MovePath};
pub use hodges::{format_hodges, parse_hodges};

/// Why a move text could not be read or does not name a legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    #[error("empty move text")]
    Empty,
    #[error("cannot read move {text:?}: {reason}")]
    Syntax { text: String, reason: String },
    #[error("move {text:?}: no piece on its origin {origin}")]
    NoPieceAtOrigin { text: String, origin: Square },
    #[error("move {text:?}: the piece on {origin} belongs to the side not to move")]
    NotSideToMove { text: String, origin: Square },
    #[error("move {text:?}: leg {leg} lands on {point}, which holds a friendly piece")]
    LandsOnFriend {
        text: String,
        leg: usize,
        point: Square,
    },
    #[error("move {text:?}: leg {leg} lands on {point} {actual}, so it must be written with {expected:?}")]
    CaptureMarker {
        text: String,
        leg: usize,
        point: Square,
        actual: &'static str,
        expected: char,
    },
    #[error("move {text:?}: shot at {point}, which holds no enemy piece")]
    ShotAtNothing { text: String, point: Square },
    #[error("unknown piece code {code:?} in move {text:?}")]
    UnknownPiece { text: String, code: String },
    #[error("move {text:?}: no {piece} of the side to move can make this move")]
    NoSuchPiece { text: String, piece: String },
    #[error("move {text:?} is ambiguous: pieces on {origins} fit it; write the origin after the piece code")]
    Ambiguous { text: String, origins: String },
    #[error("move {text:?} is not legal in this position")]
    Illegal { text: String },
}

/// The longest move text read: five legs, two shots and a promotion mark take about 40.
pub const MAX_MOVE_TEXT: usize = 64;

/// What an error may quote of a text from outside (a move, a record line, a request header):
/// at most 60 characters, with `…` when cut, so that a garbage line of megabytes is not echoed
/// back whole.
pub fn excerpt(text: &str) -> String {
    excerpt_to(text, 60)
}

/// At most `max_chars` characters of `text`, with `…` when cut (see [`excerpt`]).
pub fn excerpt_to(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Reads a move in either notation: canonical if the text starts with a digit (an origin point),
/// Hodges-style otherwise (a piece code or `+`).
pub fn parse_move(game: &Game, text: &str) -> Result<Move, NotationError> {
    let trimmed = text.trim();
    if trimmed.len() > MAX_MOVE_TEXT {
        return Err(NotationError::Syntax {
            text: excerpt(trimmed),
            reason: format!("longer than any move ({MAX_MOVE_TEXT} characters at most)"),
        });
    }
    match trimmed.chars().next() {
        None => Err(NotationError::Empty),
        Some(c) if c.is_ascii_digit() => {
            parse_canonical(game.position(), &game.legal_moves(), trimmed)
        }
        Some(_) => parse_hodges(game.position(), &game.legal_moves(), trimmed),
    }
}
