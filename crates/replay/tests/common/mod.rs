//! Helpers shared by the replay integration tests: synthetic games and one-shard writing.

#![allow(dead_code)]

use std::path::PathBuf;

use koshogi_replay::{PolicyEntry, PositionRecord, Provenance, ShardArrays, ShardDir, BOARD_BYTES};
use koshogi_rules::Square;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A synthetic game: a board that changes a couple of points per ply (like a real game), a
/// varying number of legal moves, sparse policies on a fraction of positions, and consistent
/// result/moves-left fields from each mover's point of view.
pub fn synthetic_game(
    seed: u64,
    game_id: u64,
    plies: u32,
    full_search_fraction: f64,
) -> Vec<PositionRecord> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut board = [0u8; BOARD_BYTES];
    for point in board.iter_mut().take(Square::COUNT) {
        if rng.random_bool(0.5) {
            *point = rng.random_range(1..=228);
        }
    }
    let winner_is_first_player = rng.random_bool(0.5);
    let drawn = rng.random_bool(0.1);
    let material_for_first: i16 = rng.random_range(-20..=20);
    (0..plies)
        .map(|ply| {
            let from = rng.random_range(0..Square::COUNT);
            let to = rng.random_range(0..Square::COUNT);
            board[to] = board[from];
            board[from] = 0;
            board[Square::COUNT] = (ply % 2) as u8;
            let legal = rng.random_range(1..=1200u32);
            let full_search = rng.random_bool(full_search_fraction);
            let policy = if full_search {
                let k = rng.random_range(1..=16usize.min(legal as usize));
                sample(&mut rng, legal as usize, k)
                    .into_iter()
                    .map(|m| PolicyEntry {
                        move_index: m as u32,
                        weight: rng.random_range(0.0..1.0),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let first_player_moves = ply % 2 == 0;
            let sign: i8 = if first_player_moves { 1 } else { -1 };
            PositionRecord {
                board,
                game_id,
                ply,
                legal_move_count: legal,
                played_move: rng.random_range(0..legal),
                full_search,
                policy,
                search_value: rng.random_range(-1.0..=1.0),
                game_result: if drawn {
                    0
                } else if winner_is_first_player {
                    sign
                } else {
                    -sign
                },
                moves_left: plies - ply,
                final_material: material_for_first * i16::from(sign),
                end_reason: koshogi_replay::EndReason::CommandDestroyed,
            }
        })
        .collect()
}

/// `records` as the columns of one shard, pushed in order (so with the float16 rounding a
/// shard read back has).
pub fn arrays_of(records: &[PositionRecord]) -> ShardArrays {
    let mut arrays = ShardArrays::new();
    for r in records {
        arrays.push(r).unwrap();
    }
    arrays
}

/// `arrays` written as one shard of writer `writer_id` in a new temporary directory: the
/// directory (the shard lives as long as it) and the shard file's path.
pub fn write_one_shard(
    arrays: &ShardArrays,
    writer_id: &str,
    provenance: &Provenance,
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = ShardDir::open(dir.path())
        .unwrap()
        .write_shard(writer_id, provenance, arrays)
        .unwrap();
    (dir, file.path)
}
