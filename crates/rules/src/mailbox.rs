//! Padded board geometry used by the move generator: a 23 × 23 array whose two-point border of
//! sentinel cells lets steps, jumps (≤ 2 points) and rays detect the edge without bounds checks.
//! Mailbox index = (rank + 1) * 23 + (file + 1) with 1-based file/rank, so ascending mailbox
//! index is ascending (rank, file) — the order §11.2 uses to break ties between paths.

use crate::Square;

/// Width of a padded row.
pub const WIDTH: i32 = 23;
/// Number of padded cells.
pub const CELLS: usize = 529;
/// Cell value of the border.
pub const OFF_BOARD: u8 = 255;
/// Cell value of an empty point.
pub const EMPTY: u8 = 0;

/// Mailbox index of a public square.
#[inline]
pub const fn to_mb(sq_index: usize) -> usize {
    let rank0 = sq_index / 19;
    let file0 = sq_index % 19;
    (rank0 + 2) * WIDTH as usize + file0 + 2
}

/// Public square of an on-board mailbox index.
#[inline]
pub fn to_sq(mb: usize) -> Square {
    let i = MB_TO_SQ[mb];
    debug_assert!((i as usize) < Square::COUNT, "border cell {mb}");
    Square::from_index_unchecked(i)
}

/// Mailbox index → public index (`u16::MAX` for border cells).
pub static MB_TO_SQ: [u16; CELLS] = {
    let mut t = [u16::MAX; CELLS];
    let mut i = 0;
    while i < Square::COUNT {
        t[to_mb(i)] = i as u16;
        i += 1;
    }
    t
};

/// Mailbox offset of a (Δfile, Δrank) vector.
#[inline]
pub const fn offset(dfile: i32, drank: i32) -> i32 {
    dfile + drank * WIDTH
}

/// File (1-based) and rank (1-based) of an on-board mailbox index.
#[inline]
pub fn file_rank(mb: usize) -> (i32, i32) {
    ((mb as i32 % WIDTH) - 1, (mb as i32 / WIDTH) - 1)
}
