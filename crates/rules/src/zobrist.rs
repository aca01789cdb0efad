//! Zobrist keys, computed on the fly from a fixed seed (no 600 KB table to keep in cache): the key
//! of (point, piece) is a SplitMix64 finaliser of both, so hashes are identical across runs and
//! machines.

const SEED: u64 = 0x6b6f_7368_6f67_6921; // "koshogi!"

#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Key of a piece cell (see `Piece::to_cell`) standing on mailbox index `mb`.
#[inline]
pub(crate) fn piece_key(mb: usize, cell: u8) -> u64 {
    mix(SEED.wrapping_add(((mb as u64) << 8 | cell as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// XORed in when White is to move.
pub(crate) const WHITE_TO_MOVE: u64 = 0x2d35_8dcc_aa6c_78a5;
