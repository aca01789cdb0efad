//! Board points ("squares") of the 19 × 19 grid and their text form (`10j`).
//!
//! The public index is `(rank - 1) * 19 + (file - 1)`; the move generator works on a padded
//! mailbox (see [`crate::mailbox`]) and converts at the API boundary.

use std::fmt;
use std::str::FromStr;

/// Number of files and ranks.
pub const BOARD_SIZE: u8 = 19;
/// [`BOARD_SIZE`] as the type of a square's index.
const SIDE: u16 = BOARD_SIZE as u16;

/// One of the 361 intersections. File 1 is Black's right edge, rank 1 (`a`) is White's back rank.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u16);

impl Square {
    /// Number of points on the board.
    pub const COUNT: usize = BOARD_SIZE as usize * BOARD_SIZE as usize;

    /// The point at `file`, `rank` (both 1-based), or `None` when off the board.
    #[inline]
    pub fn new(file: u8, rank: u8) -> Option<Square> {
        if (1..=BOARD_SIZE).contains(&file) && (1..=BOARD_SIZE).contains(&rank) {
            Some(Square((rank as u16 - 1) * SIDE + (file as u16 - 1)))
        } else {
            None
        }
    }

    /// The point with public index `i` (0..361).
    #[inline]
    pub fn from_index(i: usize) -> Option<Square> {
        (i < Self::COUNT).then_some(Square(i as u16))
    }

    /// Internal constructor for indices known to be < 361.
    #[inline]
    pub(crate) const fn from_index_unchecked(i: u16) -> Square {
        Square(i)
    }

    /// Public index `(rank - 1) * 19 + (file - 1)`; ascending index = ascending (rank, file).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// File 1..=19 (1 = Black's right-hand edge).
    #[inline]
    pub fn file(self) -> u8 {
        (self.0 % SIDE) as u8 + 1
    }

    /// Rank 1..=19 (1 = `a`, White's back rank; 19 = `s`, Black's back rank).
    #[inline]
    pub fn rank(self) -> u8 {
        (self.0 / SIDE) as u8 + 1
    }

    /// Rank letter `a`..=`s`.
    pub fn rank_char(self) -> char {
        (b'a' + self.rank() - 1) as char
    }

    /// 180° turn: Black's view ↔ White's view.
    pub fn rotate(self) -> Square {
        Square(360 - self.0)
    }

    /// Left-right reflection.
    pub fn mirror(self) -> Square {
        Square::new(20 - self.file(), self.rank()).expect("mirror stays on the board")
    }

    /// Iterates over all 361 points in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..Self::COUNT as u16).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), self.rank_char())
    }
}

/// Why a point's text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid point {0:?}: expected file 1-19 followed by rank letter a-s, e.g. \"10j\"")]
pub struct SquareParseError(pub String);

impl FromStr for Square {
    type Err = SquareParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || SquareParseError(s.to_string());
        let bytes = s.as_bytes();
        if bytes.len() < 2 || bytes.len() > 3 {
            return Err(err());
        }
        let (digits, letter) = bytes.split_at(bytes.len() - 1);
        if !digits.iter().all(u8::is_ascii_digit) || digits[0] == b'0' {
            return Err(err());
        }
        let file: u8 = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse().ok())
            .ok_or_else(err)?;
        let letter = letter[0].to_ascii_lowercase();
        if !(b'a'..=b's').contains(&letter) {
            return Err(err());
        }
        Square::new(file, letter - b'a' + 1).ok_or_else(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_and_centre_follow_the_coordinate_convention() {
        let top_right = Square::new(1, 1).unwrap();
        assert_eq!(top_right.index(), 0);
        assert_eq!(top_right.to_string(), "1a");
        assert_eq!(Square::new(19, 19).unwrap().to_string(), "19s");
        let centre: Square = "10j".parse().unwrap();
        assert_eq!((centre.file(), centre.rank()), (10, 10));
        assert_eq!(centre.rotate(), centre);
        assert_eq!(centre.mirror(), centre);
    }

    #[test]
    fn rotate_and_mirror_are_involutions() {
        for sq in Square::all() {
            assert_eq!(sq.rotate().rotate(), sq);
            assert_eq!(sq.mirror().mirror(), sq);
            assert_eq!(sq.rotate().file(), 20 - sq.file());
            assert_eq!(sq.rotate().rank(), 20 - sq.rank());
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
    }

    #[test]
    fn malformed_points_are_rejected() {
        for bad in [
            "", "j", "0a", "20a", "10t", "01a", "1aa", "a1", "100a", "-1a",
        ] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
        assert_eq!("10J".parse::<Square>().unwrap().to_string(), "10j");
    }
}
