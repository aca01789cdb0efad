//! `koshogi selfplay`: play games with the run's newest checkpoint and write replay shards.
//!
//! Shards go to `<run>/shards/`, game records to `<run>/games/`, statistics to
//! `<run>/tb/selfplay/` (TensorBoard) and to the progress line. Ctrl-C stops after the games in
//! progress have finished their current move: finished games are never lost, unfinished ones are
//! dropped.
//!
//! With `--run s3://…` (or another store URL) the worker plays in a local cache directory and
//! the store sync thread sends its shards and records and fetches newer checkpoints
//! (crate::stored_run, docs/distributed.md); `--worker-id` keeps several workers apart.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use koshogi_metrics::EventWriter;
use koshogi_replay::Provenance;
use koshogi_run_store::layout::RunLayout;
use koshogi_selfplay::{
    run_pool, CheckpointFollowingEvaluator, GameBudget, ModelSignals, SelfplayStats, WorkerContext,
};

use crate::interrupt::stop_flag_on_interrupt;
use crate::run_config::{prepare_run_dir, RunConfig, RunLocation};
use crate::stored_run::{self, Cache, StoreOptions, SyncThread};

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

fn parse_worker_id(text: &str) -> Result<String, String> {
    let ok = (1..=16).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(text.to_string())
    } else {
        Err(format!(
            "`{text}` is not a worker id: 1-16 characters of A-Z, a-z, 0-9 and _"
        ))
    }
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
    name_worker(&mut ctx, args.worker_id.as_deref());
    let reporter = Reporter::start(&run_dir, stats.clone(), args.games);
    let result = play(&config, &ctx, false);
    reporter.finish();
    result?;
    println!("{}", stats.summary());
    println!("shards: {}", koshogi_replay::shards_dir(&run_dir).display());
    Ok(())
}

/// Gives the workers of this process their id: shard names start with it and the seed
/// depends on it (two workers with the run's fixed seed would otherwise play the same games).
fn name_worker(ctx: &mut WorkerContext, worker_id: Option<&str>) {
    if let Some(id) = worker_id {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        id.hash(&mut hasher);
        ctx.seed ^= hasher.finish();
        ctx.writer_prefix = format!("{id}_");
    }
}

/// A worker of a run in object storage: plays in its cache directory while the sync thread
/// sends shards and records and fetches the newest published checkpoint.
fn run_stored(args: SelfplayArgs, remote: koshogi_run_store::RemoteRun) -> Result<()> {
    let remote = stored_run::connect(remote, &args.store)?;
    let role = match &args.worker_id {
        Some(id) => format!("selfplay-{id}"),
        None => "selfplay".to_string(),
    };
    let cache = Cache::open(&remote, &role, &args.store)?;
    let stop = stop_flag_on_interrupt("the games in progress finish their current move");
    let (mut config, _) = stored_run::resolve_config(
        &remote,
        &cache.dir,
        args.location.config.as_deref(),
        true,
        Some(&stop),
    )?;
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
    stored_run::fetch_playing_checkpoint(&remote, &cache.dir, gated)?;
    let poll = Duration::from_secs_f64(args.store.poll_seconds);
    let sync = SyncThread::spawn(
        "store-sync",
        poll,
        stop.clone(),
        stored_run::selfplay_sync(remote.clone(), cache.dir.clone(), gated),
    )?;
    let stats = Arc::new(SelfplayStats::default());
    let mut ctx = worker_context(&config, &cache.dir, args.games, stop, stats.clone())?;
    name_worker(&mut ctx, args.worker_id.as_deref());
    // A fresh seed at every start, whatever run.seed says: a worker restarted after a crash
    // must neither replay its games nor reuse its shard names (its sent shards have left the
    // cache, so the sequence numbers start again).
    ctx.seed ^= {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.finish()
    };
    let reporter = Reporter::start(&cache.dir, stats.clone(), args.games);
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
        writer_prefix: String::new(),
        pool_runtime: Some(koshogi_selfplay::PoolRuntime {
            runtime: config.inference,
            intra_op_threads: config.run.inference_threads,
        }),
    })
}

/// Runs the worker pool with the checkpoint-following network (with `gated`, the accepted
/// checkpoint instead of the newest).
pub fn play(config: &RunConfig, ctx: &WorkerContext, gated: bool) -> Result<()> {
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
    /// The line is drawn in the process's one display (crate::progress), with any other bars.
    pub fn start(
        run_dir: &std::path::Path,
        stats: Arc<SelfplayStats>,
        games: Option<u64>,
    ) -> Reporter {
        let bar = match games {
            Some(n) => ProgressBar::new(n),
            None => ProgressBar::new_spinner(),
        };
        let bar = crate::progress::add(bar);
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
