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
//!   after a capture that won material (does it see the capture coming?);
//! * over all the shards, the resignations: how many were checked and false, and what
//!   `selfplay.resign.max_false_rate` would have made of them (`koshogi_selfplay::resign_review`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use koshogi_nn::{InferenceModel, RuntimeConfig};
use koshogi_replay::list_shards;
use koshogi_run_store::layout::RunLayout;
use koshogi_train::diagnosis::{
    correlation, mean, network_stats, open_shards, percent, target_stats, NetworkStats, TargetStats,
};

use koshogi_run::RunConfig;
use koshogi_selfplay::resign_review::{review_resignations, ResignReview};

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
    /// The false-resignation rate the resignation review calibrates to (as
    /// `selfplay.resign.max_false_rate`).
    #[arg(long, default_value_t = 0.05, value_name = "RATE")]
    pub max_false_rate: f32,
}

pub fn run(args: DiagnoseArgs) -> Result<()> {
    if args.shards == 0 {
        bail!("--shards must be at least 1");
    }
    if !(0.0..=1.0).contains(&args.max_false_rate) {
        bail!("--max-false-rate must lie in [0, 1]");
    }
    koshogi_run::require_local_run(&args.run)?;
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
        let shards = open_shards(group)?;
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
    let resign = &config.selfplay.resign;
    println!(
        "== resignation over all {} shard(s): threshold {}, {} consecutive moves, from ply {}{}",
        paths.len(),
        resign.threshold,
        resign.consecutive_moves,
        resign.min_ply,
        if resign.enabled {
            ""
        } else {
            " (off in this run: reviewed as if on)"
        }
    );
    let review = review_resignations(&paths, resign, args.max_false_rate)?;
    print_resign_review(&review, args.max_false_rate);
    Ok(())
}

fn print_resign_review(r: &ResignReview, max_false_rate: f32) {
    println!(
        "  {} games, {} resigned; {} played out with a side that would have resigned, {} of them not lost ({:.1} %)",
        r.games,
        r.resignations,
        r.audited_games,
        r.false_resignations,
        percent(r.false_resignations, r.audited_games)
    );
    let Some(last) = r.thresholds.last() else {
        println!("  no audit game to calibrate on");
        return;
    };
    // A long run has thousands of audit games: show at most a dozen, evenly spread.
    let n = r.thresholds.len();
    let shown = n.min(12);
    let trace: Vec<String> = (0..shown)
        .map(|i| {
            if shown == 1 {
                0
            } else {
                i * (n - 1) / (shown - 1)
            }
        })
        .map(|i| format!("#{} {:.3}", i + 1, r.thresholds[i]))
        .collect();
    println!(
        "  calibrated to {:.0} % false: threshold {last:.3} after the last of {n} audit games (after audit game {})",
        100.0 * max_false_rate,
        trace.join(", ")
    );
    println!(
        "  of the {} resignations, the calibrated threshold in force would have kept {} (search values are stored as float16)",
        r.resignations, r.kept_resignations
    );
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
