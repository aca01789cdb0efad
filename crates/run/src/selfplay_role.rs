//! Self-play as a role of a run, shared by `koshogi selfplay` and the one-process
//! `koshogi run`: the workers' shared context, the pool playing with the checkpoint-following
//! network, and the reporter that draws the progress line and writes self-play's TensorBoard
//! scalars (`<run>/tb/selfplay/`).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use koshogi_metrics::EventWriter;
use koshogi_replay::Provenance;
use koshogi_run_store::layout::RunLayout;
use koshogi_selfplay::{
    run_pool, CheckpointFollowingEvaluator, GameBudget, ModelSignals, SelfplayStats, WorkerContext,
};

use crate::{RunConfig, RunError};

/// The shared context of all self-play workers of a run.
pub fn worker_context(
    config: &RunConfig,
    run_dir: &std::path::Path,
    games: Option<u64>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    stats: Arc<SelfplayStats>,
) -> Result<WorkerContext, RunError> {
    let provenance = Provenance {
        rules_version: env!("CARGO_PKG_VERSION").to_string(),
        feature_version: koshogi_nn::FEATURE_VERSION,
        move_encoding_version: koshogi_nn::MOVE_ENCODING_VERSION,
        rules_options: serde_json::to_value(config.rules).map_err(RunError::RulesOptions)?,
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
        writer_prefix: String::new(),
        pool_runtime: Some(koshogi_selfplay::PoolRuntime {
            runtime: config.inference,
            intra_op_threads: config.run.inference_threads,
        }),
    })
}

/// Runs the worker pool with the checkpoint-following network (with `gated`, the accepted
/// checkpoint instead of the newest).
pub fn play(config: &RunConfig, ctx: &WorkerContext, gated: bool) -> Result<(), RunError> {
    let checkpoints = RunLayout::new(&ctx.run_dir).checkpoints_dir();
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
    /// A bar for `games` games, or a spinner while the number is open; the caller adds it to
    /// its display before handing it to [`Reporter::start`].
    pub fn bar(games: Option<u64>) -> ProgressBar {
        match games {
            Some(n) => ProgressBar::new(n),
            None => ProgressBar::new_spinner(),
        }
    }

    /// Draws the self-play line on `bar` (see [`Reporter::bar`]).
    pub fn start(
        run_dir: &std::path::Path,
        stats: Arc<SelfplayStats>,
        bar: ProgressBar,
    ) -> Reporter {
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} self-play [{elapsed_precise}] {pos} games {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let mut events = EventWriter::create(&RunLayout::new(run_dir).selfplay_tensorboard_dir())
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
