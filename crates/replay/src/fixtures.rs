//! Records that the tests of several crates build alike: the shard source's and the material
//! outlook's tests here and the trainer's replay window (koshogi-train) need rows whose board,
//! game and ply matter and whose search targets do not. One owner for those placeholder targets. Compiled for this crate's
//! tests and behind the `fixtures` feature (which other crates enable only as a
//! dev-dependency), never in a release build.

use crate::{EndReason, PositionRecord, BOARD_BYTES};

/// The position `board` at `ply` of game `game_id`, with placeholder targets: one legal move,
/// the one played, no policy, a drawn result one move before the end, no material and no
/// known end reason.
pub fn placeholder_record(board: [u8; BOARD_BYTES], game_id: u64, ply: u32) -> PositionRecord {
    PositionRecord {
        board,
        game_id,
        ply,
        legal_move_count: 1,
        played_move: 0,
        full_search: false,
        policy: Vec::new(),
        search_value: 0.0,
        game_result: 0,
        moves_left: 1,
        final_material: 0,
        end_reason: EndReason::Unknown,
    }
}
