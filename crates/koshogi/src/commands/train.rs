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
//! (koshogi_run_store::role_sync, docs/distributed.md); restarted anywhere with `--resume`, it continues
//! from the newest published checkpoint.

use anyhow::Result;
use clap::Args;
use koshogi_run_store::layout::RunLayout;
use koshogi_run_store::role_sync::{prepare_trainer_cache, trainer_sync};
use koshogi_run_store::SyncThread;
use koshogi_train::checkpoint_manager::published_steps_to_keep;
use koshogi_train::Trainer;

use crate::interrupt::stop_flag_on_interrupt;
use crate::run_location::RunLocation;
use crate::store_options::{self, StoreOptions};
use crate::train_display::{print_summary, progress_bar};
use koshogi_run::prepare_run_dir;

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
    let remote = store_options::connect(remote, &args.store)?;
    let cache = args.store.open_cache(&remote, "train")?;
    let mut config = args.location.resolve_stored(&remote, &cache.dir, None)?;
    if let Some(steps) = args.steps {
        config.train.steps = steps;
    }
    config.validate()?;
    prepare_trainer_cache(&remote, &cache.dir, args.resume)?;
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
    let sync = SyncThread::spawn("store-sync", poll, stop.clone(), {
        let keep = config.train.checkpoint.clone();
        let local = RunLayout::new(&cache.dir).checkpoints_dir();
        trainer_sync(remote.clone(), cache.dir.clone(), move |steps| {
            published_steps_to_keep(steps, &keep, &local)
        })
    })?;
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
