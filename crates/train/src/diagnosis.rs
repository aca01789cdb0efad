//! What a run's replay shards teach, and what a checkpoint makes of them: the statistics behind
//! `koshogi diagnose` (the command only chooses the shards and prints these sums).
//!
//! Why: a loss curve cannot tell whether the targets push the network the right way. The
//! first runs' networks passed half their moves and never recaptured; finding out why took
//! reading shards position by position. Here, per group of shards:
//! * [`target_stats`]: the moves played, the policy-target mass on passes, captures and quiet
//!   moves, and the value targets from each side's view (game result, search value, material
//!   outlook);
//! * [`network_stats`]: a checkpoint's view of the same positions: its value against the
//!   targets, its policy mass on passes and captures, and its value just before and just after
//!   a capture that won material (does it see the capture coming?).

use std::path::PathBuf;

use koshogi_nn::{EvalPosition, FeatureInput, InferenceModel, NnError};
use koshogi_replay::targets::{material_outlook, mover_balances};
use koshogi_replay::{
    decode_position, position_and_moves, BoardDecodeError, Shard, ShardArrays, ShardError,
};
use koshogi_rules::{Move, RulesOptions};

/// Why a diagnosis stopped.
#[derive(Debug, thiserror::Error)]
pub enum DiagnosisError {
    #[error("reading {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: ShardError,
    },
    #[error("rules options of {}", path.display())]
    Rules {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error(transparent)]
    Board(#[from] BoardDecodeError),
    #[error(transparent)]
    Network(#[from] NnError),
}

/// Sums over the positions of one group of shards.
#[derive(Debug, Default)]
pub struct TargetStats {
    pub positions: u64,
    pub games: u64,
    pub played_pass: u64,
    pub played_capture: u64,
    pub with_capture: u64,
    pub with_pass: u64,
    pub full: u64,
    pub target_pass: f64,
    pub target_capture: f64,
    pub target_quiet: f64,
    pub top_target_pass: u64,
    pub full_with_pass: u64,
    /// Per mover (0 Black, 1 White): positions, result, search value, outlook.
    pub by_mover: [(u64, f64, f64, f64); 2],
}

/// Sums over the network's evaluations of one group.
#[derive(Debug, Default)]
pub struct NetworkStats {
    pub positions: u64,
    pub value: f64,
    pub value_sq: f64,
    pub outlook: f64,
    pub outlook_sq: f64,
    pub value_outlook: f64,
    pub result: f64,
    pub value_result: f64,
    pub result_sq: f64,
    pub policy_pass: f64,
    pub policy_capture: f64,
    pub argmax_pass: u64,
    /// Captures that won material: (count, mover's value before, same mover's value after).
    pub winning_captures: (u64, f64, f64),
}

/// Opens the shards at `paths` with the rules options each was played under.
pub fn open_shards(paths: &[PathBuf]) -> Result<Vec<(Shard, RulesOptions)>, DiagnosisError> {
    paths
        .iter()
        .map(|path| {
            let shard = Shard::open(path).map_err(|source| DiagnosisError::Read {
                path: path.clone(),
                source,
            })?;
            let rules: RulesOptions = serde_json::from_value(
                shard.meta().provenance.rules_options.clone(),
            )
            .map_err(|source| DiagnosisError::Rules {
                path: path.clone(),
                source,
            })?;
            Ok((shard, rules))
        })
        .collect()
}

/// The legal moves of row `row`, or `None` if the stored count disagrees (unusable row).
fn row_moves(arrays: &ShardArrays, rules: &RulesOptions, row: usize) -> Option<Vec<Move>> {
    let record = arrays.record(row)?;
    let mut moves = Vec::new();
    position_and_moves(&record, rules, &mut moves).ok()?;
    Some(moves)
}

/// What the rows of `shards` teach: moves played, policy-target mass, value targets per mover
/// (rows whose stored move count disagrees with the rules are skipped).
pub fn target_stats(shards: &[(Shard, RulesOptions)], outlook_plies: u32) -> TargetStats {
    let mut stats = TargetStats::default();
    for (shard, rules) in shards {
        let arrays = shard.arrays();
        let balances = mover_balances(arrays);
        stats.games += arrays.game_count() as u64;
        for row in 0..arrays.len() {
            let Some(moves) = row_moves(arrays, rules, row) else {
                continue;
            };
            let record = arrays.record(row).expect("row in range");
            stats.positions += 1;
            let played = moves[record.played_move as usize];
            stats.played_pass += u64::from(played.is_pass());
            stats.played_capture += u64::from(played.is_capture());
            let has_pass = moves.iter().any(Move::is_pass);
            stats.with_pass += u64::from(has_pass);
            stats.with_capture += u64::from(moves.iter().any(Move::is_capture));
            let mover = usize::from(record.ply % 2 == 1);
            let outlook = material_outlook(arrays, &balances, row, outlook_plies);
            let entry = &mut stats.by_mover[mover];
            entry.0 += 1;
            entry.1 += f64::from(record.game_result);
            entry.2 += f64::from(record.search_value);
            entry.3 += f64::from(outlook);
            if !record.full_search || record.policy_moves.is_empty() {
                continue;
            }
            stats.full += 1;
            let mut top = (0usize, f32::NEG_INFINITY);
            for (&m, &w) in record.policy_moves.iter().zip(record.policy_weights) {
                let mv = moves[m as usize];
                let w64 = f64::from(w);
                if mv.is_pass() {
                    stats.target_pass += w64;
                } else if mv.is_capture() {
                    stats.target_capture += w64;
                } else {
                    stats.target_quiet += w64;
                }
                if w > top.1 {
                    top = (m as usize, w);
                }
            }
            if has_pass {
                stats.full_with_pass += 1;
                stats.top_target_pass += u64::from(moves[top.0].is_pass());
            }
        }
    }
    stats
}

/// `part` of `whole` in per cent (0 for an empty whole).
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// `sum / count` (0 for no count).
pub fn mean(sum: f64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

/// What `model` makes of about `sample` rows of `shards`, spread evenly: its value against the
/// targets, its policy mass on passes and captures, its value around captures that won material.
pub fn network_stats(
    model: &mut InferenceModel,
    shards: &[(Shard, RulesOptions)],
    sample: usize,
    outlook_plies: u32,
    max_plies: Option<u32>,
) -> Result<NetworkStats, DiagnosisError> {
    let mut stats = NetworkStats::default();
    let total: usize = shards.iter().map(|(s, _)| s.arrays().len()).sum();
    let stride = (total / sample.max(1)).max(1);
    let mut answers = Vec::new();
    for (shard, rules) in shards {
        let arrays = shard.arrays();
        let balances = mover_balances(arrays);
        for row in (0..arrays.len()).step_by(stride) {
            let Some(moves) = row_moves(arrays, rules, row) else {
                continue;
            };
            let record = arrays.record(row).expect("row in range");
            let value = evaluate(model, arrays, rules, row, &moves, max_plies, &mut answers)?;
            let outlook = f64::from(material_outlook(arrays, &balances, row, outlook_plies));
            let result = f64::from(record.game_result);
            stats.positions += 1;
            stats.value += value;
            stats.value_sq += value * value;
            stats.outlook += outlook;
            stats.outlook_sq += outlook * outlook;
            stats.value_outlook += value * outlook;
            stats.result += result;
            stats.result_sq += result * result;
            stats.value_result += value * result;
            let policy = &answers[0].policy;
            let mut argmax = 0;
            for (i, (mv, &p)) in moves.iter().zip(policy).enumerate() {
                if mv.is_pass() {
                    stats.policy_pass += f64::from(p);
                } else if mv.is_capture() {
                    stats.policy_capture += f64::from(p);
                }
                if p > policy[argmax] {
                    argmax = i;
                }
            }
            stats.argmax_pass += u64::from(moves[argmax].is_pass());
            // A played capture that won material (seen on the next row, the opponent's view).
            let next = row + 1;
            let played = moves[record.played_move as usize];
            let same_game = next < arrays.len() && arrays.game_id[next] == arrays.game_id[row];
            if played.is_capture() && same_game && -balances[next] > balances[row] {
                if let Some(next_moves) = row_moves(arrays, rules, next) {
                    let after = -evaluate(
                        model,
                        arrays,
                        rules,
                        next,
                        &next_moves,
                        max_plies,
                        &mut answers,
                    )?;
                    let c = &mut stats.winning_captures;
                    c.0 += 1;
                    c.1 += value;
                    c.2 += after;
                }
            }
        }
    }
    Ok(stats)
}

/// The network's scalar value (win − loss) of row `row` for its mover; the answer stays in
/// `answers[0]`.
fn evaluate(
    model: &mut InferenceModel,
    arrays: &ShardArrays,
    rules: &RulesOptions,
    row: usize,
    moves: &[Move],
    max_plies: Option<u32>,
    answers: &mut Vec<koshogi_nn::Evaluation>,
) -> Result<f64, DiagnosisError> {
    let record = arrays.record(row).expect("row in range");
    let position = decode_position(record.board, record.ply)?;
    let input = FeatureInput {
        position: &position,
        options: rules,
        repetition_count: 1,
        ply: record.ply,
        max_plies,
        attack_planes: false, // the model sets its own
    };
    answers.clear();
    model.evaluate(&[EvalPosition { input, moves }], answers)?;
    let wdl = answers[0].wdl;
    Ok(f64::from(wdl[0] - wdl[2]))
}

/// Pearson's correlation from the sums of `n` pairs (0 when either side does not vary).
pub fn correlation(n: u64, sx: f64, sy: f64, sxx: f64, syy: f64, sxy: f64) -> f64 {
    let n = n as f64;
    let cov = sxy / n - (sx / n) * (sy / n);
    let vx = sxx / n - (sx / n).powi(2);
    let vy = syy / n - (sy / n).powi(2);
    if vx <= 0.0 || vy <= 0.0 {
        0.0
    } else {
        cov / (vx * vy).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summaries_guard_empty_groups_and_correlate_by_pearson() {
        assert_eq!(percent(1, 4), 25.0);
        assert_eq!(percent(3, 0), 0.0);
        assert_eq!(mean(6.0, 4), 1.5);
        assert_eq!(mean(6.0, 0), 0.0);
        // Pairs (1, 2), (2, 4), (3, 6): y = 2x, correlation 1; y = -2x, correlation -1.
        let (sx, sxx) = (6.0, 14.0);
        assert!((correlation(3, sx, 12.0, sxx, 56.0, 28.0) - 1.0).abs() < 1e-12);
        assert!((correlation(3, sx, -12.0, sxx, 56.0, -28.0) + 1.0).abs() < 1e-12);
        // A side that does not vary (y = 5 throughout) has no correlation.
        assert_eq!(correlation(3, sx, 15.0, sxx, 75.0, 30.0), 0.0);
    }
}
