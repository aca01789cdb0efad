//! `koshogi diagnose`: what a run's replay shards teach, and what a checkpoint learned from them.
//!
//! Why: a loss curve cannot tell whether the targets push the network the right way. The
//! first runs' networks passed half their moves and never recaptured; finding out why took
//! reading shards position by position. This command does that reading for any run, over
//! its earliest and latest shards:
//! * the moves played and the policy-target mass on passes, captures and quiet moves;
//! * the value targets from each side's view (game result, search value, material outlook);
//! * with `--checkpoint`, the network's own view of the same positions: its value against
//!   the targets, its policy mass on passes and captures, and its value just before and just
//!   after a capture that won material (does it see the capture coming?).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use koshogi_nn::{EvalPosition, FeatureInput, InferenceModel, RuntimeConfig};
use koshogi_replay::targets::{material_outlook, mover_balances};
use koshogi_replay::{decode_position, list_shards, Shard, ShardArrays};
use koshogi_rules::{Move, RulesOptions};
use koshogi_run_store::layout::RunLayout;

use crate::run_config::RunConfig;

#[derive(Args, Debug)]
pub struct DiagnoseArgs {
    /// The run directory (its `config.toml` and `shards/`).
    #[arg(long, value_name = "DIR")]
    pub run: PathBuf,
    /// Also evaluate the positions with this checkpoint (directory or model card).
    #[arg(long, value_name = "CKPT")]
    pub checkpoint: Option<PathBuf>,
    /// Shards in each of the two groups (earliest and latest).
    #[arg(long, default_value_t = 4)]
    pub shards: usize,
    /// Positions per group the network evaluates (with `--checkpoint`).
    #[arg(long, default_value_t = 512)]
    pub sample: usize,
    /// Plies ahead for the material outlook (as `train.material_outlook_plies`).
    #[arg(long, default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(1..=koshogi_train::config::MAX_OUTLOOK_PLIES as i64))]
    pub outlook_plies: u32,
}

/// Sums over the positions of one group of shards.
#[derive(Default)]
struct TargetStats {
    positions: u64,
    games: u64,
    played_pass: u64,
    played_capture: u64,
    with_capture: u64,
    with_pass: u64,
    full: u64,
    target_pass: f64,
    target_capture: f64,
    target_quiet: f64,
    top_target_pass: u64,
    full_with_pass: u64,
    /// Per mover (0 Black, 1 White): positions, result, search value, outlook.
    by_mover: [(u64, f64, f64, f64); 2],
}

/// Sums over the network's evaluations of one group.
#[derive(Default)]
struct NetworkStats {
    positions: u64,
    value: f64,
    value_sq: f64,
    outlook: f64,
    outlook_sq: f64,
    value_outlook: f64,
    result: f64,
    value_result: f64,
    result_sq: f64,
    policy_pass: f64,
    policy_capture: f64,
    argmax_pass: u64,
    /// Captures that won material: (count, mover's value before, same mover's value after).
    winning_captures: (u64, f64, f64),
}

pub fn run(args: DiagnoseArgs) -> Result<()> {
    if args.shards == 0 {
        bail!("--shards must be at least 1");
    }
    crate::run_config::require_local_run(&args.run)?;
    let (config, _) = RunConfig::load(&RunLayout::new(&args.run).config_file())
        .with_context(|| format!("reading the run configuration in {}", args.run.display()))?;
    let max_plies = Some(config.selfplay.max_plies);
    let files = list_shards(&RunLayout::new(&args.run).shards_dir())
        .with_context(|| format!("listing the shards of {}", args.run.display()))?;
    if files.is_empty() {
        bail!("{} has no replay shards", args.run.display());
    }
    let paths: Vec<PathBuf> = files.into_iter().map(|f| f.path).collect();
    // The two groups overlap when the run has fewer than 2 × --shards shards.
    let count = paths.len().min(args.shards);
    let early = &paths[..count];
    let late = &paths[paths.len() - count..];
    let mut model = match &args.checkpoint {
        Some(checkpoint) => {
            let card = koshogi_nn::checkpoint::resolve_card(checkpoint)?;
            let (model, _) = InferenceModel::load(&card, &RuntimeConfig::default())
                .with_context(|| format!("loading {}", card.display()))?;
            Some(model)
        }
        None => None,
    };
    for (name, group) in [("earliest", early), ("latest", late)] {
        let shards = open_group(group)?;
        let steps: Vec<u64> = shards
            .iter()
            .map(|(s, _)| s.meta().provenance.model_step)
            .collect();
        println!(
            "== {name} {} shard(s), played by checkpoint steps {}..={}",
            shards.len(),
            steps.iter().min().unwrap_or(&0),
            steps.iter().max().unwrap_or(&0)
        );
        let stats = target_stats(&shards, args.outlook_plies);
        print_target_stats(&stats);
        if let Some(model) = model.as_mut() {
            let stats = network_stats(model, &shards, args.sample, args.outlook_plies, max_plies)?;
            print_network_stats(&stats);
        }
    }
    Ok(())
}

fn open_group(paths: &[PathBuf]) -> Result<Vec<(Shard, RulesOptions)>> {
    paths
        .iter()
        .map(|path| {
            let shard = Shard::open(path).with_context(|| format!("reading {}", path.display()))?;
            let rules: RulesOptions =
                serde_json::from_value(shard.meta().provenance.rules_options.clone())
                    .with_context(|| format!("rules options of {}", path.display()))?;
            Ok((shard, rules))
        })
        .collect()
}

/// The legal moves of row `row`, or `None` if the stored count disagrees (unusable row).
fn row_moves(arrays: &ShardArrays, rules: &RulesOptions, row: usize) -> Option<Vec<Move>> {
    let record = arrays.record(row)?;
    let position = decode_position(record.board, record.ply).ok()?;
    let mut moves = Vec::new();
    position.generate_moves(rules, &mut moves);
    (moves.len() == record.legal_move_count as usize).then_some(moves)
}

fn target_stats(shards: &[(Shard, RulesOptions)], outlook_plies: u32) -> TargetStats {
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

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn mean(sum: f64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

fn print_target_stats(s: &TargetStats) {
    println!(
        "  {} positions, {} games; a capture is legal in {:.1} %, a pass in {:.1} %",
        s.positions,
        s.games,
        percent(s.with_capture, s.positions),
        percent(s.with_pass, s.positions)
    );
    println!(
        "  played moves: passes {:.1} %, captures {:.1} %",
        percent(s.played_pass, s.positions),
        percent(s.played_capture, s.positions)
    );
    println!(
        "  policy targets ({} full searches), mean mass: passes {:.3}, captures {:.3}, quiet {:.3}, unlisted {:.3}; top target is a pass in {:.1} % of those with a pass",
        s.full,
        mean(s.target_pass, s.full),
        mean(s.target_capture, s.full),
        mean(s.target_quiet, s.full),
        1.0 - mean(s.target_pass + s.target_capture + s.target_quiet, s.full),
        percent(s.top_target_pass, s.full_with_pass)
    );
    for (name, (n, result, search, outlook)) in ["Black", "White"].iter().zip(s.by_mover) {
        println!(
            "  {name} to move ({n}): mean result {:+.3}, search value {:+.3}, material outlook {:+.3}",
            mean(result, n),
            mean(search, n),
            mean(outlook, n)
        );
    }
}

fn network_stats(
    model: &mut InferenceModel,
    shards: &[(Shard, RulesOptions)],
    sample: usize,
    outlook_plies: u32,
    max_plies: Option<u32>,
) -> Result<NetworkStats> {
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
) -> Result<f64> {
    let record = arrays.record(row).expect("row in range");
    let position = decode_position(record.board, record.ply)?;
    let input = FeatureInput {
        position: &position,
        options: rules,
        repetition_count: 1,
        ply: record.ply,
        max_plies,
    };
    answers.clear();
    model.evaluate(&[EvalPosition { input, moves }], answers)?;
    let wdl = answers[0].wdl;
    Ok(f64::from(wdl[0] - wdl[2]))
}

fn correlation(n: u64, sx: f64, sy: f64, sxx: f64, syy: f64, sxy: f64) -> f64 {
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

fn print_network_stats(s: &NetworkStats) {
    let n = s.positions;
    println!(
        "  network on {n} positions: mean value {:+.3}; correlation with the material outlook {:+.3}, with the game result {:+.3}",
        mean(s.value, n),
        correlation(n, s.value, s.outlook, s.value_sq, s.outlook_sq, s.value_outlook),
        correlation(n, s.value, s.result, s.value_sq, s.result_sq, s.value_result)
    );
    println!(
        "  network policy mass: passes {:.3}, captures {:.3}; its most probable move is a pass in {:.1} %",
        mean(s.policy_pass, n),
        mean(s.policy_capture, n),
        percent(s.argmax_pass, n)
    );
    let (count, before, after) = s.winning_captures;
    println!(
        "  {count} played captures that won material: mover's value before {:+.3}, after {:+.3}",
        mean(before, count),
        mean(after, count)
    );
}
