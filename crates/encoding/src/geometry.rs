//! Points and offsets in the **mover's frame**, the only frame the network ever sees.
//!
//! A point is an index 0..361 = (rank − 1)·19 + (file − 1) with file and rank numbered as in the
//! rules (§1.3). For Black the mover's frame is the board as written; for White it is the board
//! turned 180° (file → 20 − file, rank → 20 − rank), so the side to move always sits at the
//! bottom (rank 19 = own back rank) and "forward" is always Δrank = −1.

/// Files (and ranks) of the board.
pub const BOARD_SIZE: usize = koshogi_rules::BOARD_SIZE as usize;
/// Points of the board.
pub const POINTS: usize = koshogi_rules::Square::COUNT;

/// A displacement (Δfile, Δrank) in the mover's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Offset {
    pub file: i8,
    pub rank: i8,
}

impl Offset {
    /// The left–right mirror image (file numbers run the other way).
    pub fn mirrored(self) -> Offset {
        Offset {
            file: -self.file,
            rank: self.rank,
        }
    }
}

/// Mover-frame point of (file, rank), both 1-based.
pub const fn point(file: u8, rank: u8) -> u16 {
    (rank as u16 - 1) * BOARD_SIZE as u16 + (file as u16 - 1)
}

/// (file, rank), 1-based, of a mover-frame point.
pub const fn file_rank(point: u16) -> (u8, u8) {
    (
        (point % BOARD_SIZE as u16) as u8 + 1,
        (point / BOARD_SIZE as u16) as u8 + 1,
    )
}

/// Offset from `from` to `to`.
pub fn offset_between(from: u16, to: u16) -> Offset {
    let (ff, fr) = file_rank(from);
    let (tf, tr) = file_rank(to);
    Offset {
        file: tf as i8 - ff as i8,
        rank: tr as i8 - fr as i8,
    }
}

/// The left–right mirror image of a point: file → 20 − file.
pub fn mirror_point(p: u16) -> u16 {
    let (file, rank) = file_rank(p);
    point(20 - file, rank)
}

/// The mover-frame point of a board square when `mover` is to move.
pub fn to_mover_frame(square: koshogi_rules::Square, mover: koshogi_rules::Color) -> u16 {
    let seen = match mover {
        koshogi_rules::Color::Black => square,
        koshogi_rules::Color::White => square.rotate(),
    };
    seen.index() as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_follow_the_rules_indexing() {
        assert_eq!(point(1, 1), 0);
        assert_eq!(point(19, 1), 18);
        assert_eq!(point(1, 2), 19);
        assert_eq!(point(19, 19), 360);
        for p in 0..POINTS as u16 {
            let (f, r) = file_rank(p);
            assert_eq!(point(f, r), p);
            assert_eq!(mirror_point(mirror_point(p)), p);
        }
        assert_eq!(mirror_point(point(1, 5)), point(19, 5));
        assert_eq!(mirror_point(point(10, 7)), point(10, 7));
    }

    #[test]
    fn offsets_are_destination_minus_origin() {
        assert_eq!(
            offset_between(point(10, 10), point(12, 7)),
            Offset { file: 2, rank: -3 }
        );
        assert_eq!(
            offset_between(point(12, 7), point(10, 10)),
            Offset { file: -2, rank: 3 }
        );
    }

    #[test]
    fn white_sees_the_board_turned_around() {
        use koshogi_rules::{Color, Square};
        let sq = Square::new(3, 17).unwrap();
        assert_eq!(to_mover_frame(sq, Color::Black), point(3, 17));
        assert_eq!(to_mover_frame(sq, Color::White), point(17, 3));
    }
}
