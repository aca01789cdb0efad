//! Property: any valid set of records, of any field widths, reads back from a shard exactly as
//! it was pushed (after the documented float16 rounding).

mod common;

use common::{arrays_of, write_one_shard};
use koshogi_replay::{PolicyEntry, PositionRecord, Shard, BOARD_BYTES};
use proptest::prelude::*;
use proptest::sample::subsequence;

fn record() -> impl Strategy<Value = PositionRecord> {
    // Legal-move counts up to 100,000 exercise the uint8/uint16/uint32 column widths.
    prop_oneof![1u32..=200, 1u32..=100_000].prop_flat_map(|legal| {
        (
            (
                proptest::collection::vec(0u8..=228, BOARD_BYTES - 1),
                0u8..=1,
            ),
            any::<u64>(),
            any::<u32>(),
            0..legal,
            subsequence(
                (0..legal.min(500)).collect::<Vec<u32>>(),
                0..=legal.min(500).min(40) as usize,
            ),
            proptest::collection::vec(0.0f32..1000.0, 40),
            -1.0f32..=1.0,
            -1i8..=1,
            any::<u32>(),
            any::<i16>(),
        )
            .prop_map(
                move |(
                    (points, side),
                    game_id,
                    ply,
                    played,
                    moves,
                    weights,
                    value,
                    result,
                    left,
                    material,
                )| {
                    PositionRecord {
                        board: [points.as_slice(), &[side]].concat().try_into().unwrap(),
                        game_id,
                        ply,
                        legal_move_count: legal,
                        played_move: played,
                        full_search: !moves.is_empty(),
                        policy: moves
                            .iter()
                            .zip(&weights)
                            .map(|(&move_index, &weight)| PolicyEntry { move_index, weight })
                            .collect(),
                        search_value: value,
                        game_result: result,
                        moves_left: left,
                        final_material: material,
                        end_reason: koshogi_replay::EndReason::CommandDestroyed,
                    }
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_records_round_trip(records in proptest::collection::vec(record(), 0..30)) {
        let arrays = arrays_of(&records);
        let (_dir, path) = write_one_shard(&arrays, "prop", &Default::default());
        let shard = Shard::open(&path).unwrap();
        prop_assert_eq!(shard.arrays(), &arrays);
        prop_assert_eq!(shard.len(), records.len());
        for (read, original) in shard.records().zip(&records) {
            prop_assert_eq!(read.board, &original.board);
            prop_assert_eq!(read.legal_move_count, original.legal_move_count);
            prop_assert_eq!(read.policy_moves.len(), original.policy.len());
        }
    }
}
