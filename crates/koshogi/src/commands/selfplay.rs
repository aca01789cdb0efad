//! `koshogi selfplay`: play games with the run's newest checkpoint and write replay shards.
//!
//! Shards go to `<run>/shards/`, game records to `<run>/games/`, statistics to
//! `<run>/tb/selfplay/` (TensorBoard) and to the progress line. Ctrl-C stops after the games in
//! progress have finished their current move: finished games are never lost, unfinished ones are
//! dropped.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use koshogi_metrics::EventWriter;
use koshogi_replay::Provenance;
use koshogi_selfplay::{
    run_pool, CheckpointFollowingEvaluator, GameBudget, ModelSignals, SelfplayStats, WorkerContext,
};

use crate::interrupt::stop_flag_on_interrupt;
use crate::run_config::{prepare_run_dir, RunConfig, RunLocation};

#[derive(Args)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub location: RunLocation,
    /// Stop after this many games (default: until Ctrl-C).
    #[arg(long)]
    pub games: Option<u64>,
    /// Override selfplay.games_per_worker.
    #[arg(long)]
    pub parallel: Option<usize>,
    /// Override search.simulations.
    #[arg(long)]
    pub simulations: Option<u32>,
}

pub fn run(args: SelfplayArgs) -> Result<()> {
    let (mut config, text, run_dir) = args.location.resolve()?;
    if let Some(n) = args.parallel {
        config.selfplay.games_per_worker = n;
    }
    if let Some(n) = args.simulations {
        config.search.simulations = n;
    }
    config.validate()?;
    prepare_run_dir(&run_dir, &text)?;

    let stop = stop_flag_on_interrupt("the games in progress finish their current move");
    let stats = Arc::new(SelfplayStats::default());
    let ctx = worker_context(&config, &run_dir, args.games, stop, stats.clone())?;
    let reporter = Reporter::start(&run_dir, stats.clone(), args.games, None);
    let result = play(&config, &ctx, false);
    reporter.finish();
    result?;
    println!("{}", stats.summary());
    println!("shards: {}", koshogi_replay::shards_dir(&run_dir).display());
    Ok(())
}

/// The shared context of all self-play workers of a run.
pub fn worker_context(
    config: &RunConfig,
    run_dir: &std::path::Path,
    games: Option<u64>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    stats: Arc<SelfplayStats>,
) -> Result<WorkerContext> {
    let provenance = Provenance {
        rules_version: env!("CARGO_PKG_VERSION").to_string(),
        feature_version: koshogi_nn::FEATURE_VERSION,
        move_encoding_version: koshogi_nn::MOVE_ENCODING_VERSION,
        rules_options: serde_json::to_value(config.rules)
            .context("serialising the rules options")?,
        model_step: 0,
    };
    Ok(WorkerContext {
        config: config.selfplay.clone(),
        search: config.search.clone(),
        driver: config.driver.clone(),
        rules: config.rules,
        run_dir: run_dir.to_path_buf(),
        provenance,
        stats,
        budget: Arc::new(GameBudget::new(games)),
        stop,
        model: Arc::new(ModelSignals::new(config.selfplay.workers)),
        seed: config.selfplay_seed(),
    })
}

/// Runs the worker pool with the checkpoint-following network (with `gated`, the accepted
/// checkpoint instead of the newest).
pub fn play(config: &RunConfig, ctx: &WorkerContext, gated: bool) -> Result<()> {
    let checkpoints = ctx.run_dir.join("checkpoints");
    let model = config.model.clone();
    let runtime = config.inference;
    let threads = config.run.inference_threads;
    let signals = ctx.model.clone();
    let selfplay = config.selfplay.clone();
    run_pool(ctx, move |worker| {
        CheckpointFollowingEvaluator::new(
            checkpoints.clone(),
            &model,
            runtime,
            threads,
            signals.clone(),
            worker,
            gated,
        )
        .map(|evaluator| evaluator.with_material_bootstrap(&selfplay))
    })?;
    Ok(())
}

/// Progress bar and TensorBoard scalars, refreshed from the shared statistics on a thread.
pub struct Reporter {
    done: Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Reporter {
    /// `multi`: draw the line inside a multi-line display (`koshogi run`).
    pub fn start(
        run_dir: &std::path::Path,
        stats: Arc<SelfplayStats>,
        games: Option<u64>,
        multi: Option<&indicatif::MultiProgress>,
    ) -> Reporter {
        let bar = match games {
            Some(n) => ProgressBar::new(n),
            None => ProgressBar::new_spinner(),
        };
        let bar = match multi {
            Some(multi) => multi.add(bar),
            None => bar,
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} self-play [{elapsed_precise}] {pos} games {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let mut events = EventWriter::create(&run_dir.join("tb").join("selfplay"))
            .map_err(|e| tracing::warn!("no TensorBoard events for self-play: {e}"))
            .ok();
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let finished = done.clone();
        let handle = std::thread::spawn(move || {
            let mut last_logged = 0;
            loop {
                let stop = finished.load(Ordering::Relaxed);
                let totals = stats.snapshot();
                bar.set_position(totals.games);
                bar.set_message(stats.summary());
                if let Some(events) = events.as_mut() {
                    if totals.games > last_logged || stop {
                        last_logged = totals.games;
                        let step = totals.games as i64;
                        for (tag, value) in stats.scalars() {
                            let _ = events.add_scalar(tag, value, step);
                        }
                    }
                }
                if stop {
                    bar.finish_and_clear();
                    return;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        });
        Reporter {
            done,
            handle: Some(handle),
        }
    }

    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}
