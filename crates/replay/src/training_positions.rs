//! Training positions, one at a time ([`PositionRecord`], what self-play produces) and as the
//! columns of one shard ([`ShardArrays`], what is written, read and sampled from).
//!
//! Columns rather than a `Vec` of structs because that is the on-disk layout (one `.npy` member
//! per field, so deflate sees runs of similar bytes) and because a trainer's sliding window of a
//! million positions should not pay a heap allocation per position.

use std::collections::BTreeMap;

use half::f16;

use crate::board::first_invalid_byte;
use crate::end_reason::EndReason;
use crate::error::RecordError;
use crate::npy::{Dtype, NpyArray};
use crate::BOARD_BYTES;

/// One move of a sparse policy target: an index into the position's legal moves in
/// move-generation order, and its (non-negative) target weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyEntry {
    pub move_index: u32,
    pub weight: f32,
}

/// Everything stored about one self-play position. See docs/replay-format.md for the meaning of
/// each field; values from the mover's point of view are marked so.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionRecord {
    /// 361 point codes then the side to move (see [`crate::board`]).
    pub board: [u8; BOARD_BYTES],
    /// Identifies the game across all shards of a run.
    pub game_id: u64,
    /// Plies played before this position (0 = start of the game).
    pub ply: u32,
    /// Number of legal moves; every move index below refers to `0..legal_move_count`.
    pub legal_move_count: u32,
    /// Index of the move actually played from this position.
    pub played_move: u32,
    /// Whether this position got the full search (playout-cap randomisation): only such
    /// positions carry a policy target.
    pub full_search: bool,
    /// Sparse policy target (empty when `full_search` is false). Stored sorted by move index,
    /// weights at float16 precision.
    pub policy: Vec<PolicyEntry>,
    /// Root search value for the mover, in [-1, 1] (float16 precision).
    pub search_value: f32,
    /// Final game result for the mover: 1 win, 0 draw, -1 loss.
    pub game_result: i8,
    /// Auxiliary target: plies from this position to the end of the game.
    pub moves_left: u32,
    /// Auxiliary target: mover's pieces minus the opponent's pieces on the final board.
    pub final_material: i16,
    /// Why the game ended (the same for all its positions).
    pub end_reason: EndReason,
}

/// A borrowed view of one position inside [`ShardArrays`].
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    pub board: &'a [u8; BOARD_BYTES],
    pub game_id: u64,
    pub ply: u32,
    pub legal_move_count: u32,
    pub played_move: u32,
    pub full_search: bool,
    pub policy_moves: &'a [u32],
    pub policy_weights: &'a [f32],
    pub search_value: f32,
    pub game_result: i8,
    pub moves_left: u32,
    pub final_material: i16,
    pub end_reason: EndReason,
}

impl Record<'_> {
    /// An owned copy, e.g. to hand to another thread.
    pub fn to_owned_record(&self) -> PositionRecord {
        PositionRecord {
            board: *self.board,
            game_id: self.game_id,
            ply: self.ply,
            legal_move_count: self.legal_move_count,
            played_move: self.played_move,
            full_search: self.full_search,
            policy: self
                .policy_moves
                .iter()
                .zip(self.policy_weights)
                .map(|(&move_index, &weight)| PolicyEntry { move_index, weight })
                .collect(),
            search_value: self.search_value,
            game_result: self.game_result,
            moves_left: self.moves_left,
            final_material: self.final_material,
            end_reason: self.end_reason,
        }
    }
}

/// The positions of one shard, column by column. Row `i` of every per-position column belongs
/// to the same position; the policy of position `i` is
/// `policy_*[policy_offsets[i]..policy_offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardArrays {
    pub boards: Vec<u8>,
    pub game_id: Vec<u64>,
    pub ply: Vec<u32>,
    pub legal_move_count: Vec<u32>,
    pub played_move: Vec<u32>,
    pub full_search: Vec<bool>,
    pub policy_offsets: Vec<u64>,
    pub policy_moves: Vec<u32>,
    pub policy_weights: Vec<f32>,
    pub search_value: Vec<f32>,
    pub game_result: Vec<i8>,
    pub moves_left: Vec<u32>,
    pub final_material: Vec<i16>,
    /// [`EndReason::code`] of each position's game.
    pub end_reason: Vec<u8>,
}

impl Default for ShardArrays {
    fn default() -> Self {
        ShardArrays {
            boards: Vec::new(),
            game_id: Vec::new(),
            ply: Vec::new(),
            legal_move_count: Vec::new(),
            played_move: Vec::new(),
            full_search: Vec::new(),
            policy_offsets: vec![0],
            policy_moves: Vec::new(),
            policy_weights: Vec::new(),
            search_value: Vec::new(),
            game_result: Vec::new(),
            moves_left: Vec::new(),
            final_material: Vec::new(),
            end_reason: Vec::new(),
        }
    }
}

/// Rounds to the precision the file keeps, so that what is in memory equals what is read back.
fn to_f16_precision(x: f32) -> f32 {
    f16::from_f32(x).to_f32()
}

/// The on-disk member names of the per-position data, in the order they are written.
pub const DATA_MEMBERS: [&str; 14] = [
    "board",
    "game_id",
    "ply",
    "legal_move_count",
    "played_move",
    "full_search",
    "policy_offsets",
    "policy_moves",
    "policy_weights",
    "search_value",
    "game_result",
    "moves_left",
    "final_material",
    "end_reason",
];

impl ShardArrays {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.game_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of distinct games (games are stored contiguously, so this counts runs).
    pub fn game_count(&self) -> usize {
        self.game_id
            .iter()
            .enumerate()
            .filter(|&(i, id)| i == 0 || self.game_id[i - 1] != *id)
            .count()
    }

    /// Occurrences of each row's position (board and side to move) in its game so far, itself
    /// included, in row order: the repetition input planes. Shards hold whole games in ply
    /// order, so counting along the rows is counting along each game.
    pub fn repetition_counts(&self) -> Vec<u32> {
        let mut seen: std::collections::HashMap<(u64, &[u8]), u32> =
            std::collections::HashMap::new();
        (0..self.len())
            .map(|row| {
                let board = &self.boards[row * BOARD_BYTES..][..BOARD_BYTES];
                let count = seen.entry((self.game_id[row], board)).or_insert(0);
                *count += 1;
                *count
            })
            .collect()
    }

    /// Appends one position after checking it; on error nothing is appended.
    pub fn push(&mut self, record: &PositionRecord) -> Result<(), RecordError> {
        let mut policy = record.policy.clone();
        policy.sort_by_key(|e| e.move_index);
        check_position(
            &record.board,
            record.legal_move_count,
            record.played_move,
            record.game_result,
            record.search_value,
            policy.iter().map(|e| (e.move_index, e.weight)),
        )?;
        let legal = record.legal_move_count;
        self.boards.extend_from_slice(&record.board);
        self.game_id.push(record.game_id);
        self.ply.push(record.ply);
        self.legal_move_count.push(legal);
        self.played_move.push(record.played_move);
        self.full_search.push(record.full_search);
        for entry in &policy {
            self.policy_moves.push(entry.move_index);
            self.policy_weights.push(to_f16_precision(entry.weight));
        }
        self.policy_offsets.push(self.policy_moves.len() as u64);
        self.search_value
            .push(to_f16_precision(record.search_value));
        self.game_result.push(record.game_result);
        self.moves_left.push(record.moves_left);
        self.final_material.push(record.final_material);
        self.end_reason.push(record.end_reason.code());
        Ok(())
    }

    /// Appends all positions of `other` (already checked when they were pushed there).
    pub fn append(&mut self, other: &ShardArrays) {
        let base = self.policy_moves.len() as u64;
        self.boards.extend_from_slice(&other.boards);
        self.game_id.extend_from_slice(&other.game_id);
        self.ply.extend_from_slice(&other.ply);
        self.legal_move_count
            .extend_from_slice(&other.legal_move_count);
        self.played_move.extend_from_slice(&other.played_move);
        self.full_search.extend_from_slice(&other.full_search);
        self.policy_offsets
            .extend(other.policy_offsets[1..].iter().map(|o| o + base));
        self.policy_moves.extend_from_slice(&other.policy_moves);
        self.policy_weights.extend_from_slice(&other.policy_weights);
        self.search_value.extend_from_slice(&other.search_value);
        self.game_result.extend_from_slice(&other.game_result);
        self.moves_left.extend_from_slice(&other.moves_left);
        self.final_material.extend_from_slice(&other.final_material);
        self.end_reason.extend_from_slice(&other.end_reason);
    }

    /// Position `index`, or `None` past the end.
    pub fn record(&self, index: usize) -> Option<Record<'_>> {
        if index >= self.len() {
            return None;
        }
        let board = self.boards[index * BOARD_BYTES..(index + 1) * BOARD_BYTES]
            .try_into()
            .expect("boards holds BOARD_BYTES per position");
        let policy = self.policy_offsets[index] as usize..self.policy_offsets[index + 1] as usize;
        Some(Record {
            board,
            game_id: self.game_id[index],
            ply: self.ply[index],
            legal_move_count: self.legal_move_count[index],
            played_move: self.played_move[index],
            full_search: self.full_search[index],
            policy_moves: &self.policy_moves[policy.clone()],
            policy_weights: &self.policy_weights[policy],
            search_value: self.search_value[index],
            game_result: self.game_result[index],
            moves_left: self.moves_left[index],
            final_material: self.final_material[index],
            end_reason: EndReason::from_code(self.end_reason[index])
                .expect("end reasons are checked when pushed and read"),
        })
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Record<'_>> + '_ {
        (0..self.len()).map(|i| self.record(i).expect("index below len"))
    }

    /// The `.npy` members, named as in [`DATA_MEMBERS`].
    pub(crate) fn to_members(&self) -> Vec<(&'static str, NpyArray)> {
        let n = self.len();
        let k = self.policy_moves.len();
        let widen = |v: &[u32]| v.iter().map(|&x| u64::from(x)).collect::<Vec<u64>>();
        let f16s = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<f16>>();
        let offsets: Vec<i64> = self.policy_offsets.iter().map(|&o| o as i64).collect();
        vec![
            (
                "board",
                NpyArray::from_elements(vec![n, BOARD_BYTES], &self.boards),
            ),
            ("game_id", NpyArray::from_elements(vec![n], &self.game_id)),
            (
                "ply",
                NpyArray::narrowest_unsigned(vec![n], &widen(&self.ply)),
            ),
            (
                "legal_move_count",
                NpyArray::narrowest_unsigned(vec![n], &widen(&self.legal_move_count)),
            ),
            (
                "played_move",
                NpyArray::narrowest_unsigned(vec![n], &widen(&self.played_move)),
            ),
            (
                "full_search",
                NpyArray::from_elements(vec![n], &self.full_search),
            ),
            (
                "policy_offsets",
                NpyArray::from_elements(vec![n + 1], &offsets),
            ),
            (
                "policy_moves",
                NpyArray::narrowest_unsigned(vec![k], &widen(&self.policy_moves)),
            ),
            (
                "policy_weights",
                NpyArray::from_elements(vec![k], &f16s(&self.policy_weights)),
            ),
            (
                "search_value",
                NpyArray::from_elements(vec![n], &f16s(&self.search_value)),
            ),
            (
                "game_result",
                NpyArray::from_elements(vec![n], &self.game_result),
            ),
            (
                "moves_left",
                NpyArray::narrowest_unsigned(vec![n], &widen(&self.moves_left)),
            ),
            (
                "final_material",
                NpyArray::from_elements(vec![n], &self.final_material),
            ),
            (
                "end_reason",
                NpyArray::from_elements(vec![n], &self.end_reason),
            ),
        ]
    }

    /// Rebuilds the columns from decoded members and checks every cross-column invariant, so a
    /// shard that passes its checksum but was written by a buggy writer is still rejected.
    /// Shards of a `format_version` before [`crate::format::END_REASON_VERSION`] have no
    /// `end_reason` member: their reasons read as [`EndReason::Unknown`].
    pub(crate) fn from_members(
        mut members: BTreeMap<String, NpyArray>,
        format_version: u32,
    ) -> Result<Self, String> {
        // The board column is moved out, not copied: it is most of a shard's bytes.
        let board = members
            .remove("board")
            .ok_or_else(|| format!("missing member {:?}", "board"))?;
        let has_end_reason = format_version >= crate::format::END_REASON_VERSION;
        if !has_end_reason {
            if members.contains_key("end_reason") {
                return Err(format!(
                    "end_reason: not a member of format version {format_version}"
                ));
            }
            let n = board.shape.first().copied().unwrap_or(0);
            members.insert(
                "end_reason".to_string(),
                NpyArray::from_elements(vec![n], &vec![EndReason::Unknown.code(); n]),
            );
        }
        let members = members;
        let get = |name: &str| {
            members
                .get(name)
                .ok_or_else(|| format!("missing member {name:?}"))
        };
        let shape_1d = |name: &str| -> Result<usize, String> {
            match get(name)?.shape.as_slice() {
                [n] => Ok(*n),
                other => Err(format!(
                    "{name}: expected a 1-d array, found shape {other:?}"
                )),
            }
        };
        let wrong_type =
            |name: &str, a: &NpyArray| format!("{name}: unexpected dtype {:?}", a.dtype);
        let unsigned_u32 = |name: &str| -> Result<Vec<u32>, String> {
            let a = get(name)?;
            a.unsigned_elements_u32()
                .ok_or_else(|| wrong_type(name, a))?
                .map_err(|x| format!("{name}: value {x} exceeds u32"))
        };
        fn typed<T: crate::npy::Element>(name: &str, a: &NpyArray) -> Result<Vec<T>, String> {
            a.elements::<T>()
                .ok_or_else(|| format!("{name}: unexpected dtype {:?}", a.dtype))
        }
        let f16_as_f32 = |name: &str| -> Result<Vec<f32>, String> {
            Ok(typed::<f16>(name, get(name)?)?
                .into_iter()
                .map(f16::to_f32)
                .collect())
        };

        if board.dtype != Dtype::U8 || board.shape.len() != 2 || board.shape[1] != BOARD_BYTES {
            return Err(format!(
                "board: expected uint8[N, {BOARD_BYTES}], found {:?}{:?}",
                board.dtype, board.shape
            ));
        }
        let n = board.shape[0];
        for name in DATA_MEMBERS.iter().filter(|m| {
            !matches!(
                **m,
                "board" | "policy_offsets" | "policy_moves" | "policy_weights"
            )
        }) {
            if shape_1d(name)? != n {
                return Err(format!(
                    "{name}: length {} differs from {n} positions",
                    shape_1d(name)?
                ));
            }
        }
        if shape_1d("policy_offsets")? != n + 1 {
            return Err("policy_offsets: length is not positions + 1".into());
        }
        let k = shape_1d("policy_moves")?;
        if shape_1d("policy_weights")? != k {
            return Err("policy_weights and policy_moves differ in length".into());
        }

        let offsets = typed::<i64>("policy_offsets", get("policy_offsets")?)?;
        if offsets.first() != Some(&0)
            || offsets.last().copied() != Some(k as i64)
            || offsets.windows(2).any(|w| w[0] > w[1])
        {
            return Err("policy_offsets: must rise from 0 to the number of policy entries".into());
        }
        let arrays = ShardArrays {
            boards: board.data,
            game_id: typed::<u64>("game_id", get("game_id")?)?,
            ply: unsigned_u32("ply")?,
            legal_move_count: unsigned_u32("legal_move_count")?,
            played_move: unsigned_u32("played_move")?,
            full_search: typed::<bool>("full_search", get("full_search")?)?,
            policy_offsets: offsets.into_iter().map(|o| o as u64).collect(),
            policy_moves: unsigned_u32("policy_moves")?,
            policy_weights: f16_as_f32("policy_weights")?,
            search_value: f16_as_f32("search_value")?,
            game_result: typed::<i8>("game_result", get("game_result")?)?,
            moves_left: unsigned_u32("moves_left")?,
            final_material: typed::<i16>("final_material", get("final_material")?)?,
            end_reason: typed::<u8>("end_reason", get("end_reason")?)?,
        };
        if let Some(code) = arrays
            .end_reason
            .iter()
            .find(|&&c| EndReason::from_code(c).is_none())
        {
            return Err(format!("end_reason: unknown code {code}"));
        }
        // A valid checksum only says the file is as written: a crafted shard, or one from a
        // buggy tool, must not train NaN or negative targets.
        let mut policy = Vec::new();
        for (i, r) in arrays.iter().enumerate() {
            policy.clear();
            policy.extend(
                r.policy_moves
                    .iter()
                    .copied()
                    .zip(r.policy_weights.iter().copied()),
            );
            policy.sort_by_key(|&(m, _)| m);
            check_position(
                r.board,
                r.legal_move_count,
                r.played_move,
                r.game_result,
                r.search_value,
                policy.iter().copied(),
            )
            .map_err(|e| format!("position {i}: {e}"))?;
        }
        Ok(arrays)
    }
}

/// The checks every stored position passes, when it is written and when it is read back.
/// `sorted_policy` lists (move index, weight) by move index.
fn check_position(
    board: &[u8; BOARD_BYTES],
    legal: u32,
    played: u32,
    game_result: i8,
    search_value: f32,
    sorted_policy: impl Iterator<Item = (u32, f32)>,
) -> Result<(), RecordError> {
    if let Some((index, byte)) = first_invalid_byte(board) {
        return Err(RecordError::BadBoardByte { index, byte });
    }
    if played >= legal {
        return Err(RecordError::PlayedMoveOutOfRange { played, legal });
    }
    if !(-1..=1).contains(&game_result) {
        return Err(RecordError::BadResult(game_result));
    }
    if !(-1.0..=1.0).contains(&search_value) {
        return Err(RecordError::BadSearchValue(search_value));
    }
    let mut previous = None;
    for (index, weight) in sorted_policy {
        if index >= legal {
            return Err(RecordError::PolicyMoveOutOfRange { index, legal });
        }
        if previous == Some(index) {
            return Err(RecordError::DuplicatePolicyMove(index));
        }
        previous = Some(index);
        if !(weight.is_finite() && weight >= 0.0) {
            return Err(RecordError::BadPolicyWeight(weight));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(legal: u32, played: u32, policy: &[(u32, f32)]) -> PositionRecord {
        PositionRecord {
            board: [0; BOARD_BYTES],
            game_id: 7,
            ply: 3,
            legal_move_count: legal,
            played_move: played,
            full_search: !policy.is_empty(),
            policy: policy
                .iter()
                .map(|&(move_index, weight)| PolicyEntry { move_index, weight })
                .collect(),
            search_value: 0.25,
            game_result: 1,
            moves_left: 10,
            final_material: -2,
            end_reason: EndReason::MaterialAtCap,
        }
    }

    #[test]
    fn push_sorts_the_policy_and_slices_it_back_per_position() {
        let mut arrays = ShardArrays::new();
        arrays.push(&record(10, 2, &[(5, 0.5), (1, 0.25)])).unwrap();
        arrays.push(&record(4, 0, &[])).unwrap();
        arrays.push(&record(4, 3, &[(3, 1.0)])).unwrap();
        assert_eq!(arrays.policy_offsets, vec![0, 2, 2, 3]);
        let first = arrays.record(0).unwrap();
        assert_eq!(first.policy_moves, &[1, 5]);
        assert_eq!(first.policy_weights, &[0.25, 0.5]);
        assert!(arrays.record(1).unwrap().policy_moves.is_empty());
        assert_eq!(arrays.record(2).unwrap().policy_moves, &[3]);
        assert!(arrays.record(3).is_none());
    }

    #[test]
    fn push_rejects_inconsistent_records_and_appends_nothing() {
        let mut arrays = ShardArrays::new();
        let bad = [
            record(3, 3, &[]),
            record(3, 0, &[(3, 1.0)]),
            record(3, 0, &[(1, 1.0), (1, 0.5)]),
            record(3, 0, &[(1, -0.1)]),
            record(3, 0, &[(1, f32::NAN)]),
            PositionRecord {
                game_result: 2,
                ..record(3, 0, &[])
            },
            PositionRecord {
                search_value: 1.5,
                ..record(3, 0, &[])
            },
            {
                let mut r = record(3, 0, &[]);
                r.board[100] = 229;
                r
            },
            {
                let mut r = record(3, 0, &[]);
                r.board[BOARD_BYTES - 1] = 2;
                r
            },
        ];
        for r in &bad {
            assert!(arrays.push(r).is_err(), "{r:?}");
        }
        assert_eq!(arrays, ShardArrays::new());
    }

    #[test]
    fn members_round_trip_through_npy_and_game_count_counts_runs() {
        let mut arrays = ShardArrays::new();
        for (game, len) in [(1u64, 3), (2, 1), (1, 2)] {
            for ply in 0..len {
                let mut r = record(300, 299, &[(299, 0.75), (0, 0.125)]);
                r.game_id = game;
                r.ply = ply;
                arrays.push(&r).unwrap();
            }
        }
        assert_eq!(arrays.game_count(), 3);
        let members: BTreeMap<String, NpyArray> = arrays
            .to_members()
            .into_iter()
            .map(|(name, a)| {
                let bytes = a.to_npy_bytes();
                (name.to_string(), NpyArray::from_npy_bytes(&bytes).unwrap())
            })
            .collect();
        assert_eq!(members["policy_moves"].dtype, Dtype::U16);
        assert_eq!(members["ply"].dtype, Dtype::U8);
        assert_eq!(
            ShardArrays::from_members(members.clone(), crate::FORMAT_VERSION).unwrap(),
            arrays
        );
        // A version-1 shard has no end reasons: they read as unknown, and a version-1 shard
        // that has the member anyway is refused.
        let mut old = members.clone();
        old.remove("end_reason");
        let read = ShardArrays::from_members(old, 1).unwrap();
        assert!(read.iter().all(|r| r.end_reason == EndReason::Unknown));
        assert_eq!(read.len(), arrays.len());
        assert!(ShardArrays::from_members(members.clone(), 1).is_err());
        // A byte no writer produces is refused.
        let mut bad = members;
        let n = arrays.len();
        bad.insert(
            "end_reason".to_string(),
            NpyArray::from_elements(vec![n], &vec![200u8; n]),
        );
        assert!(ShardArrays::from_members(bad, crate::FORMAT_VERSION).is_err());
    }
}
