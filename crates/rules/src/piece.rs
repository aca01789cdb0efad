//! A piece on the board: owner, current type and the promoted flag (§2.2: seven initial types are
//! also reachable by promotion, so the type alone does not say whether a piece may still promote).

use crate::{Color, PieceKind};
use std::fmt;

/// A piece as it stands on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
    /// True once the piece has promoted (always true for promoted-only types).
    pub promoted: bool,
}

impl Piece {
    /// A piece in its natural state: promoted iff its type exists only through promotion.
    pub fn new(color: Color, kind: PieceKind) -> Piece {
        Piece {
            color,
            kind,
            promoted: kind.is_promoted_only(),
        }
    }

    /// Whether the piece could promote under some circumstances (§8.1: not G/WR/E, not already
    /// promoted). Drum/banner blocking (§8.6) is positional and not considered here.
    pub fn can_ever_promote(self) -> bool {
        !self.promoted && self.kind.promotes_to().is_some()
    }

    /// Compact code used by the board: 0 = empty, 1..=228 = pieces.
    pub(crate) fn to_cell(self) -> u8 {
        1 + (self.kind as u8) * 4 + (self.promoted as u8) * 2 + self.color as u8
    }

    /// Inverse of [`Piece::to_cell`] for non-empty, on-board cells.
    #[inline]
    pub(crate) fn from_cell(cell: u8) -> Piece {
        debug_assert!(cell != 0 && cell != crate::mailbox::OFF_BOARD);
        let c = cell - 1;
        Piece {
            color: if c & 1 == 0 {
                Color::Black
            } else {
                Color::White
            },
            kind: PieceKind::ALL[(c >> 2) as usize],
            promoted: c & 2 != 0,
        }
    }

    /// KSFEN token: current type's code, `+` for a promoted initial type, lower case for White.
    pub fn ksfen_token(self) -> String {
        let mut s = String::new();
        if self.promoted && !self.kind.is_promoted_only() {
            s.push('+');
        }
        match self.color {
            Color::Black => s.push_str(self.kind.code()),
            Color::White => s.push_str(&self.kind.code().to_ascii_lowercase()),
        }
        s
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ksfen_token())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_encoding_round_trips_for_every_piece_state() {
        for color in Color::ALL {
            for kind in PieceKind::ALL {
                for promoted in [false, true] {
                    let p = Piece {
                        color,
                        kind,
                        promoted,
                    };
                    let cell = p.to_cell();
                    assert!(cell != 0 && cell != crate::mailbox::OFF_BOARD);
                    assert_eq!(Piece::from_cell(cell), p);
                }
            }
        }
    }

    #[test]
    fn promotability_follows_section_8_1() {
        assert!(!Piece::new(Color::Black, PieceKind::General).can_ever_promote());
        assert!(!Piece::new(Color::Black, PieceKind::Elephant).can_ever_promote());
        assert!(Piece::new(Color::White, PieceKind::Quartermaster).can_ever_promote());
        let promoted_q = Piece {
            color: Color::White,
            kind: PieceKind::Quartermaster,
            promoted: true,
        };
        assert!(!promoted_q.can_ever_promote());
        assert_eq!(promoted_q.ksfen_token(), "+q");
        assert_eq!(
            Piece::new(Color::Black, PieceKind::Governor).ksfen_token(),
            "GV"
        );
    }
}
