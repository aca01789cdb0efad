//! `koshogi train`: train the network on the replay shards of a run directory.
//!
//! Reads `<run>/shards/`, writes checkpoints to `<run>/checkpoints/` and TensorBoard events to
//! `<run>/tb/`. The run configuration comes from `--config`, else from the copy kept in
//! `<run>/config.toml` (written on the first start so that `--resume` trains under the same
//! settings), else the built-in defaults; the trainer reads `[model]`, `[train]`, `[rules]` and
//! `selfplay.max_plies`. Ctrl-C (or SIGTERM) asks the trainer to stop after the current step;
//! it then writes a final checkpoint and exits normally.
//!
//! With `--run s3://…` (or another store URL) the trainer reads shards straight from the store,
//! works in a local cache directory, and publishes each checkpoint to the store
//! (crate::stored_run, docs/distributed.md); restarted anywhere with `--resume`, it continues
//! from the newest published checkpoint.

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use koshogi_train::sampler::Starved;
use koshogi_train::{StepStats, StopReason, TrainProgress, TrainSummary, Trainer};

use crate::interrupt::stop_flag_on_interrupt;
use crate::run_config::{prepare_run_dir, RunLocation};
use crate::stored_run::{self, Cache, StoreOptions, SyncThread};

#[derive(Args)]
pub struct TrainArgs {
    /// Shards are read from <run>/shards, checkpoints go to <run>/checkpoints and TensorBoard
    /// events to <run>/tb.
    #[command(flatten)]
    pub location: RunLocation,
    /// Stop when the run reaches this many optimiser steps in total (overrides train.steps).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Continue from the newest checkpoint in <run>/checkpoints (a new run starts if there is
    /// none).
    #[arg(long)]
    pub resume: bool,
    /// When the data runs out (reuse cap), wait for new shards instead of stopping.
    #[arg(long)]
    pub follow: bool,
    #[command(flatten)]
    pub store: StoreOptions,
}

pub fn run(args: TrainArgs) -> Result<()> {
    if let Some(remote) = args.location.remote()? {
        return run_stored(args, remote);
    }
    let (mut config, text, run_dir) = args.location.resolve()?;
    if let Some(steps) = args.steps {
        config.train.steps = steps;
    }
    config.validate()?;
    prepare_run_dir(&run_dir, &text)?;

    let stop = stop_flag_on_interrupt("the current training step and a final checkpoint");
    let setup = config.trainer_setup(&run_dir, args.resume, args.follow)?;
    let mut trainer = Trainer::open(setup)?;
    let bar = progress_bar(trainer.step(), trainer.target_steps());
    let summary = trainer.run(&stop, Some(&bar))?;
    bar.finish_and_clear();

    print_summary(&summary);
    Ok(())
}

/// The trainer of a run in object storage.
fn run_stored(args: TrainArgs, remote: koshogi_run_store::RemoteRun) -> Result<()> {
    let remote = stored_run::connect(remote, &args.store)?;
    let cache = Cache::open(&remote, "train", &args.store)?;
    let (mut config, _) = stored_run::resolve_config(
        &remote,
        &cache.dir,
        args.location.config.as_deref(),
        false,
        None,
    )?;
    if let Some(steps) = args.steps {
        config.train.steps = steps;
    }
    config.validate()?;
    stored_run::prepare_trainer_cache(&remote, &cache.dir, args.resume)?;
    tracing::info!("training {} in {}", remote.url(), cache.dir.display());

    let stop = stop_flag_on_interrupt("the current training step and a final checkpoint");
    let poll = std::time::Duration::from_secs_f64(args.store.poll_seconds);
    let mut setup = config.trainer_setup(&cache.dir, args.resume, args.follow)?;
    // Following self-play, shard reads do not wait out an outage: the trainer goes on
    // training on the shards it holds and looks again at its next poll.
    let shard_remote = if args.follow {
        remote.impatient()
    } else {
        remote.clone()
    };
    setup.shards = Some(std::sync::Arc::new(koshogi_run_store::StoredShards::new(
        shard_remote,
        poll,
    )));
    let sync = SyncThread::spawn(
        "store-sync",
        poll,
        stop.clone(),
        stored_run::trainer_sync(
            remote.clone(),
            cache.dir.clone(),
            config.train.checkpoint.clone(),
        ),
    )?;
    let trained = Trainer::open(setup).and_then(|mut trainer| {
        let bar = progress_bar(trainer.step(), trainer.target_steps());
        let summary = trainer.run(&stop, Some(&bar));
        bar.finish_and_clear();
        summary
    });
    // The last pass publishes the final checkpoint.
    let synced = sync.finish();
    let summary = trained?;
    synced?;
    print_summary(&summary);
    println!("published to {}/checkpoints", remote.url());
    Ok(())
}

/// The closing lines of a training session (also used by `koshogi run`).
pub fn print_summary(summary: &TrainSummary) {
    let reason = match &summary.reason {
        StopReason::ReachedSteps => "reached the step target".to_string(),
        StopReason::Requested => "stopped on request".to_string(),
        StopReason::OutOfData(why) => format!("out of data ({why})"),
    };
    println!(
        "trained steps {} -> {} ({} samples, {:.1} samples/s): {reason}",
        summary.start_step,
        summary.end_step,
        summary.samples,
        summary.samples_per_second()
    );
    if let Some(stats) = &summary.last_step {
        println!(
            "last step: loss {:.4} (policy {:.4}, value {:.4}, moves left {:.4}, material {:.4}), grad norm {:.3}, lr {:.3e}",
            stats.losses[0], stats.losses[1], stats.losses[2], stats.losses[3], stats.losses[4],
            stats.grad_norm, stats.lr
        );
    }
    if let Some(checkpoint) = &summary.last_checkpoint {
        println!("checkpoint: {}", checkpoint.path.display());
    }
}

/// The trainer's progress bar: draws what [`Trainer::run`] reports through [`TrainProgress`].
pub struct TrainBar(ProgressBar);

impl TrainBar {
    pub fn finish_and_clear(&self) {
        self.0.finish_and_clear();
    }
}

impl TrainProgress for TrainBar {
    fn trained(&self, step: u64, stats: &StepStats, total_rows: u64) {
        self.0.set_position(step);
        self.0.set_message(format!(
            "loss {:.3} (policy {:.3}, value {:.3}) | lr {:.2e} | {total_rows} positions",
            stats.losses[0], stats.losses[1], stats.losses[2], stats.lr,
        ));
    }

    fn waiting(&self, starved: &Starved) {
        self.0
            .set_message(format!("waiting for self-play data: {starved}"));
    }
}

/// The trainer's progress bar, starting at `start` of `target` steps.
pub fn progress_bar(start: u64, target: Option<u64>) -> TrainBar {
    let bar = crate::progress::add(match target {
        Some(target) => ProgressBar::new(target),
        None => ProgressBar::no_length(),
    });
    let template = if target.is_some() {
        "{elapsed_precise} [{bar:30}] step {pos}/{len} {per_sec} {msg}"
    } else {
        "{elapsed_precise} step {pos} {per_sec} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_position(start);
    TrainBar(bar)
}
