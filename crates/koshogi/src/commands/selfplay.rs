//! `koshogi selfplay`: play games with the run's newest checkpoint and write replay shards.
//!
//! Shards go to `<run>/shards/`, game records to `<run>/games/`, statistics to
//! `<run>/tb/selfplay/` (TensorBoard) and to the progress line. Ctrl-C stops after the games in
//! progress have finished their current move: finished games are never lost, unfinished ones are
//! dropped.
//!
//! With `--run s3://…` (or another store URL) the worker plays in a local cache directory and
//! the store sync thread sends its shards and records and fetches newer checkpoints
//! (koshogi_run_store::role_sync, docs/distributed.md); `--worker-id` keeps several workers apart.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use koshogi_run_store::role_sync::{fetch_playing_checkpoint, selfplay_sync};
use koshogi_run_store::SyncThread;
use koshogi_selfplay::{parse_worker_id, SelfplayStats};

use crate::interrupt::stop_flag_on_interrupt;
use crate::run_location::RunLocation;
use crate::store_options::{self, StoreOptions};
use koshogi_run::prepare_run_dir;
use koshogi_run::selfplay_role::{play, worker_context, Reporter};

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
    /// This worker's name among the workers of a run (1-16 of A-Z, a-z, 0-9, _): it starts
    /// the names of its shards and varies its seed, so workers never collide. Each of several
    /// workers of a stored run on one machine needs its own.
    #[arg(long, value_parser = parse_worker_id)]
    pub worker_id: Option<String>,
    #[command(flatten)]
    pub store: StoreOptions,
}

pub fn run(args: SelfplayArgs) -> Result<()> {
    if let Some(remote) = args.location.remote()? {
        return run_stored(args, remote);
    }
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
    let mut ctx = worker_context(&config, &run_dir, args.games, stop, stats.clone())?;
    if let Some(id) = &args.worker_id {
        ctx.name_worker(id);
    }
    let reporter = Reporter::start(
        &run_dir,
        stats.clone(),
        crate::progress::add(Reporter::bar(args.games)),
    );
    let result = play(&config, &ctx, false);
    reporter.finish();
    result?;
    println!("{}", stats.summary());
    println!("shards: {}", koshogi_replay::shards_dir(&run_dir).display());
    Ok(())
}

/// A worker of a run in object storage: plays in its cache directory while the sync thread
/// sends shards and records and fetches the newest published checkpoint.
fn run_stored(args: SelfplayArgs, remote: koshogi_run_store::RemoteRun) -> Result<()> {
    let remote = store_options::connect(remote, &args.store)?;
    let role = match &args.worker_id {
        Some(id) => format!("selfplay-{id}"),
        None => "selfplay".to_string(),
    };
    let cache = args.store.open_cache(&remote, &role)?;
    let stop = stop_flag_on_interrupt("the games in progress finish their current move");
    let mut config = args
        .location
        .resolve_stored(&remote, &cache.dir, Some(&stop))?;
    if let Some(n) = args.parallel {
        config.selfplay.games_per_worker = n;
    }
    if let Some(n) = args.simulations {
        config.search.simulations = n;
    }
    config.validate()?;
    tracing::info!("self-play for {} in {}", remote.url(), cache.dir.display());
    // The newest network before the first game, not a random one.
    // With [gate] enabled, the checkpoint `koshogi gate` accepted plays, as in `koshogi run`.
    let gated = config.gate.enabled;
    fetch_playing_checkpoint(&remote, &cache.dir, gated)?;
    let poll = Duration::from_secs_f64(args.store.poll_seconds);
    let sync = SyncThread::spawn(
        "store-sync",
        poll,
        stop.clone(),
        selfplay_sync(remote.clone(), cache.dir.clone(), gated),
    )?;
    let stats = Arc::new(SelfplayStats::default());
    let mut ctx = worker_context(&config, &cache.dir, args.games, stop, stats.clone())?;
    if let Some(id) = &args.worker_id {
        ctx.name_worker(id);
    }
    ctx.reseed_fresh();
    let reporter = Reporter::start(
        &cache.dir,
        stats.clone(),
        crate::progress::add(Reporter::bar(args.games)),
    );
    let result = play(&config, &ctx, gated);
    reporter.finish();
    // The last pass sends what the games finished meanwhile, even after a failed pool.
    let synced = sync.finish();
    result?;
    synced.context("sending to the store")?;
    println!("{}", stats.summary());
    println!("shards: {}/shards", remote.url());
    Ok(())
}
