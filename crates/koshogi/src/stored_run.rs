//! The roles' side of a run in object storage (docs/distributed.md).
//!
//! Every process works in a local directory exactly as in a local run — the cache of its
//! role — and a sync thread moves what the role makes and needs through the store:
//! self-play workers send shards and game records (one atomic put each, then delete them) and
//! fetch each newly published checkpoint; the trainer publishes its checkpoints (files, marker,
//! pointer) and prunes the store with the run's keep policy, and reads shards straight from the
//! store; everyone sends TensorBoard events.
//!
//! A store that does not answer is waited for, not an error: every request retries with
//! backoff for the role's `--store-patience` (koshogi-run-store's `RemoteRun`), the outage is
//! logged once, and the role works locally meanwhile — workers go on playing and queue their
//! shards in the cache, the trainer trains on the shards it holds (its shard reads do not
//! wait) and its checkpoints wait in the cache to be published in order. A role started while
//! the store is away waits for it the same way. A store error that retries cannot fix
//! (denied, no bucket) stops the process with that message, and so does an outage longer than
//! the patience.

use std::collections::BTreeSet;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use koshogi_run_store::layout::{
    accepted_key, RunLayout, ACCEPTED_FILE, ARENA_DIR, CONFIG_FILE, GAMES_DIR, SHARDS_DIR,
    TENSORBOARD_DIR,
};
use koshogi_run_store::local_checkpoints::{list_checkpoints, read_accepted};
use koshogi_run_store::tree::SentFiles;
use koshogi_run_store::{
    outbox, remote_checkpoints, tree, RemoteRun, StoreError, DEFAULT_PATIENCE,
};
use koshogi_train::checkpoint_manager::{steps_to_keep, CheckpointConfig};

use crate::run_config::RunConfig;

/// Where a process of a stored run works, and how often it looks at the store.
#[derive(Debug, Clone, clap::Args)]
pub struct StoreOptions {
    /// Local working directory when --run is a store URL (default: <root>/<run>/<role> with
    /// root $KOSHOGI_RUN_CACHE, else $XDG_CACHE_HOME/koshogi-zero/runs). Each process needs its
    /// own; unsent shards in it are sent when a process starts on it again.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Seconds between looks at the store (new checkpoints, new shards) and between uploads.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = positive_seconds)]
    pub poll_seconds: f64,
    /// How long to wait for a store that does not answer (an outage, or a store not up yet)
    /// before giving up, in seconds; the process works locally meanwhile.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_PATIENCE.as_secs_f64(),
          value_parser = patience_seconds)]
    pub store_patience: f64,
}

impl StoreOptions {
    pub fn patience(&self) -> Duration {
        Duration::from_secs_f64(self.store_patience)
    }
}

/// Gives `remote` the role's patience and waits until the store answers (a role may start
/// while the store is away, e.g. a Slurm job during a blip).
pub fn connect(remote: RemoteRun, options: &StoreOptions) -> Result<RemoteRun> {
    let remote = remote.with_patience(options.patience());
    remote.probe()?;
    Ok(remote)
}

fn patience_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=31_536_000.0).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds in [0, 31536000]"
        )),
    }
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s <= 86_400.0 => Ok(s),
        _ => Err(format!("`{text}` is not a number of seconds in (0, 86400]")),
    }
}

/// Consecutive failed passes (about this many poll intervals) before a process gives up on
/// an error of its own disk (a store that does not answer is waited for inside each request).
const MAX_FAILED_PASSES: u32 = 30;
/// How often TensorBoard's event files are sent.
const TENSORBOARD_EVERY: Duration = Duration::from_secs(60);

/// A role's local working directory, locked for this process.
pub struct Cache {
    pub dir: PathBuf,
    _lock: std::fs::File,
}

impl Cache {
    /// Opens (creating) the cache directory of `role` for `remote`, and locks it.
    pub fn open(remote: &RemoteRun, role: &str, options: &StoreOptions) -> Result<Cache> {
        let dir = match &options.cache {
            Some(dir) => dir.clone(),
            None => cache_root().join(run_slug(remote.url())).join(role),
        };
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("creating the cache directory {}", dir.display()))?;
        let lock_path = dir.join(".lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .with_context(|| format!("opening {}", lock_path.display()))?;
        // SAFETY: flock on a file descriptor this function owns; no memory is passed.
        let locked = unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if locked != 0 {
            return Err(anyhow!(
                "another process works in {}: give each process of a stored run its own \
                 --worker-id or --cache",
                dir.display()
            ));
        }
        Ok(Cache { dir, _lock: lock })
    }
}

fn cache_root() -> PathBuf {
    if let Some(root) = std::env::var_os("KOSHOGI_RUN_CACHE") {
        return PathBuf::from(root);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("koshogi-zero").join("runs")
}

/// A directory name for a run URL: readable, and unique through a hash of the whole URL.
fn run_slug(url: &str) -> String {
    let readable: String = url
        .split("://")
        .nth(1)
        .unwrap_or(url)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(48)
        .collect();
    let hash = koshogi_files::digest::sha256_hex(url.as_bytes());
    format!("{readable}-{}", &hash[..8])
}

/// The run configuration of a stored run: its `config.toml`, or `--config` when the store has
/// none yet (then stored for every later process). A `--config` that differs from the stored
/// one applies to this process only, as in a local run. The text is kept in the cache too.
///
/// With `wait_for_config` (self-play workers), a store without a configuration is waited for
/// until `stop` is set, instead of being an error.
pub fn resolve_config(
    remote: &RemoteRun,
    cache: &Path,
    config: Option<&Path>,
    wait_for_config: bool,
    stop: Option<&AtomicBool>,
) -> Result<(RunConfig, String)> {
    let mut stored = remote.get(CONFIG_FILE, 1 << 20)?;
    if stored.is_none() && config.is_none() && wait_for_config {
        // Workers may start before the trainer has stored the configuration (a job array and
        // the trainer job submitted together).
        tracing::info!(
            "waiting for {}/{CONFIG_FILE} (start the trainer with --config, or give --config here)",
            remote.url()
        );
        while stored.is_none() {
            if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
                return Err(anyhow!(
                    "stopped while waiting for {}/{CONFIG_FILE}",
                    remote.url()
                ));
            }
            std::thread::sleep(Duration::from_secs(2));
            stored = remote.get(CONFIG_FILE, 1 << 20)?;
        }
    }
    let (parsed, text) = match (config, &stored) {
        (Some(path), _) => RunConfig::load(path)?,
        (None, Some(bytes)) => {
            let text = String::from_utf8(bytes.clone())
                .map_err(|_| anyhow!("{}/{CONFIG_FILE} is not UTF-8 text", remote.url()))?;
            let parsed = RunConfig::parse(&text)
                .with_context(|| format!("in {}/{CONFIG_FILE}", remote.url()))?;
            (parsed, text)
        }
        (None, None) => {
            return Err(anyhow!(
                "{} has no {CONFIG_FILE} yet: name the run's configuration with --config",
                remote.url()
            ))
        }
    };
    match &stored {
        None => remote.put(CONFIG_FILE, text.clone().into_bytes())?,
        Some(bytes) if bytes != text.as_bytes() => tracing::warn!(
            "--config differs from {}/{CONFIG_FILE}: this process uses --config, the run keeps its own",
            remote.url()
        ),
        Some(_) => {}
    }
    let kept = RunLayout::new(cache).config_file();
    koshogi_files::atomic::write_atomic(&kept, text.as_bytes())
        .with_context(|| format!("writing {}", kept.display()))?;
    Ok((parsed, text))
}

/// Errors no further pass can fix: the store refused, or did not answer for longer than the
/// process's patience.
fn is_permanent(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::Denied { .. }
            | StoreError::NoBucket { .. }
            | StoreError::BadUrl { .. }
            | StoreError::GaveUp { .. }
    )
}

/// The sync thread of a role: runs `pass` every poll interval, and once more after `finish`.
pub struct SyncThread {
    done: Arc<AtomicBool>,
    handle: Option<JoinHandle<Result<(), StoreError>>>,
}

impl SyncThread {
    /// Starts the thread. A permanent error, or `MAX_FAILED_PASSES` failures in a row, sets
    /// `stop` (the process winds down) and ends the thread with that error.
    pub fn spawn(
        name: &str,
        poll: Duration,
        stop: Arc<AtomicBool>,
        mut pass: impl FnMut(bool) -> Result<(), StoreError> + Send + 'static,
    ) -> Result<SyncThread> {
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        let handle = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let mut failures = 0;
                loop {
                    let last = finished.load(Ordering::SeqCst);
                    match pass(last) {
                        Ok(()) => failures = 0,
                        Err(error) => {
                            failures += 1;
                            let give_up = is_permanent(&error)
                                || failures >= MAX_FAILED_PASSES
                                || (last && failures >= 5);
                            if give_up {
                                stop.store(true, Ordering::SeqCst);
                                return Err(error);
                            }
                            tracing::warn!("store: {error} (retrying, {failures} in a row)");
                            if last {
                                std::thread::sleep(Duration::from_secs(1 << failures));
                                continue;
                            }
                        }
                    }
                    if last {
                        return Ok(());
                    }
                    let wake = Instant::now() + poll;
                    while Instant::now() < wake && !finished.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            })
            .context("starting the store sync thread")?;
        Ok(SyncThread {
            done,
            handle: Some(handle),
        })
    }

    /// Runs the last pass (what the role finished meanwhile is sent) and ends the thread.
    pub fn finish(mut self) -> Result<()> {
        self.done.store(true, Ordering::SeqCst);
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(result)) => result.map_err(Into::into),
            Some(Err(_)) => Err(anyhow!("the store sync thread panicked")),
            None => Ok(()),
        }
    }
}

impl Drop for SyncThread {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Sends TensorBoard's event files at most every [`TENSORBOARD_EVERY`] (and on the last pass).
struct TensorboardSender {
    sent: SentFiles,
    last: Option<Instant>,
}

impl TensorboardSender {
    fn new() -> Self {
        TensorboardSender {
            sent: SentFiles::default(),
            last: None,
        }
    }

    fn pass(&mut self, remote: &RemoteRun, cache: &Path, last: bool) -> Result<(), StoreError> {
        if last || self.last.is_none_or(|t| t.elapsed() >= TENSORBOARD_EVERY) {
            tree::push_changed(remote, cache, TENSORBOARD_DIR, &mut self.sent)?;
            self.last = Some(Instant::now());
        }
        Ok(())
    }
}

fn is_game_record(name: &str) -> bool {
    name.starts_with("game-") && name.ends_with(".txt")
}

fn is_shard(name: &str) -> bool {
    koshogi_replay::parse_shard_file_name(name).is_some()
}

/// Brings the checkpoint self-play should play into the cache: the accepted one with gating,
/// else the newest published one. Keeps the two newest local ones (and the accepted one).
pub fn fetch_playing_checkpoint(
    remote: &RemoteRun,
    cache: &Path,
    gated: bool,
) -> Result<(), StoreError> {
    let local = RunLayout::new(cache).checkpoints_dir();
    std::fs::create_dir_all(&local).map_err(|e| StoreError::Local {
        action: "creating",
        path: local.clone(),
        source: e,
    })?;
    let wanted = if gated {
        fetch_accepted(remote, &local)?
    } else {
        remote_checkpoints::latest(remote)?
    };
    let Some(step) = wanted else {
        return Ok(());
    };
    let present: Vec<u64> = list_checkpoints(&local)
        .map(|all| all.iter().map(|c| c.step).collect())
        .unwrap_or_default();
    if !present.contains(&step) && (gated || present.last().is_none_or(|&newest| newest < step)) {
        remote_checkpoints::fetch(remote, step, &local)?;
        tracing::info!("fetched checkpoint step {step} from {}", remote.url());
    }
    // Bounded cache: the evaluator has loaded what it plays into memory.
    if let Ok(all) = list_checkpoints(&local) {
        let keep_from = all.len().saturating_sub(2);
        for old in &all[..keep_from] {
            if old.step != step {
                let _ = std::fs::remove_dir_all(&old.path);
            }
        }
    }
    Ok(())
}

/// The sync pass of a self-play worker.
pub fn selfplay_sync(
    remote: RemoteRun,
    cache: PathBuf,
    gated: bool,
) -> impl FnMut(bool) -> Result<(), StoreError> + Send {
    let mut tensorboard = TensorboardSender::new();
    move |last| {
        outbox::send_and_remove(
            &remote,
            &RunLayout::new(&cache).shards_dir(),
            SHARDS_DIR,
            is_shard,
        )?;
        outbox::send_and_remove(
            &remote,
            &RunLayout::new(&cache).games_dir(),
            GAMES_DIR,
            is_game_record,
        )?;
        if !last {
            fetch_playing_checkpoint(&remote, &cache, gated)?;
        }
        tensorboard.pass(&remote, &cache, last)
    }
}

/// Prepares the trainer's cache: the store is the truth, so local checkpoints are replaced by
/// the newest published one (and the accepted marker), from which `--resume` continues.
pub fn prepare_trainer_cache(remote: &RemoteRun, cache: &Path, resume: bool) -> Result<()> {
    let local = RunLayout::new(cache).checkpoints_dir();
    if local.exists() {
        std::fs::remove_dir_all(&local).with_context(|| format!("clearing {}", local.display()))?;
    }
    std::fs::create_dir_all(&local).with_context(|| format!("creating {}", local.display()))?;
    let (published, _) = remote_checkpoints::list(remote)?;
    if let Some(&newest) = published.last() {
        if !resume {
            return Err(anyhow!(
                "{} already holds checkpoints: pass --resume to continue that run, or use a new URL",
                remote.url()
            ));
        }
        let step = remote_checkpoints::latest(remote)?
            .filter(|s| published.contains(s))
            .unwrap_or(newest);
        remote_checkpoints::fetch(remote, step, &local)?;
        fetch_accepted(remote, &local)?;
        tracing::info!("resuming from checkpoint step {step} of {}", remote.url());
    }
    Ok(())
}

/// The sync pass of the trainer: publishes each new local checkpoint and prunes the store with
/// the run's keep policy (never the accepted checkpoint or the newest).
pub fn trainer_sync(
    remote: RemoteRun,
    cache: PathBuf,
    keep: CheckpointConfig,
) -> impl FnMut(bool) -> Result<(), StoreError> + Send {
    let mut tensorboard = TensorboardSender::new();
    let mut published: BTreeSet<u64> = BTreeSet::new();
    let mut primed = false;
    move |last| {
        if !primed {
            published = remote_checkpoints::list(&remote)?.0;
            primed = true;
        }
        let local = RunLayout::new(&cache).checkpoints_dir();
        let entries = list_checkpoints(&local).map_err(|e| StoreError::Local {
            action: "listing",
            path: local.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let mut new = false;
        let unpublished: Vec<_> = entries
            .iter()
            .filter(|e| !published.contains(&e.step))
            .collect();
        for entry in unpublished {
            let bytes = remote_checkpoints::publish(&remote, &entry.path, entry.step)?;
            tracing::info!(
                "published checkpoint step {} ({bytes} bytes) to {}",
                entry.step,
                remote.url()
            );
            published.insert(entry.step);
            new = true;
        }
        if new {
            let (complete, _) = remote_checkpoints::list(&remote)?;
            let steps: Vec<u64> = complete.iter().copied().collect();
            let mut kept = steps_to_keep(&steps, &keep);
            kept.extend(complete.last().copied());
            // The gate's choice, kept beside the local checkpoints too (local pruning spares it).
            kept.extend(fetch_accepted(&remote, &local)?);
            // Pruned steps stay in `published`: the local policy drops them too, and they
            // must never be sent again.
            remote_checkpoints::prune(&remote, &kept)?;
        }
        tensorboard.pass(&remote, &cache, last)
    }
}

/// Prepares the ladder's cache: every published checkpoint (those the store pruned leave the
/// cache too), the accepted marker, and the arena's earlier tables and games, so the ladder
/// continues where the last one, on any machine, stopped.
pub fn prepare_ladder_cache(remote: &RemoteRun, cache: &Path) -> Result<()> {
    let local = RunLayout::new(cache).checkpoints_dir();
    std::fs::create_dir_all(&local).with_context(|| format!("creating {}", local.display()))?;
    let (published, _) = remote_checkpoints::list(remote)?;
    mirror_checkpoints(remote, &local, &published, &published)?;
    fetch_accepted(remote, &local)?;
    tree::pull(remote, ARENA_DIR, cache, |_| false)?;
    Ok(())
}

/// Sends the ladder's tables, games and TensorBoard events.
pub fn send_ladder_results(remote: &RemoteRun, cache: &Path) -> Result<()> {
    tree::push_changed(remote, cache, ARENA_DIR, &mut SentFiles::default())?;
    tree::push_changed(remote, cache, TENSORBOARD_DIR, &mut SentFiles::default())?;
    Ok(())
}

/// Brings what the gate compares into its cache: the accepted marker and checkpoint, and the
/// newest published checkpoint; older ones leave the cache.
pub fn fetch_gate_checkpoints(remote: &RemoteRun, cache: &Path) -> Result<()> {
    let local = RunLayout::new(cache).checkpoints_dir();
    std::fs::create_dir_all(&local).with_context(|| format!("creating {}", local.display()))?;
    let accepted = fetch_accepted(remote, &local)?;
    let (published, _) = remote_checkpoints::list(remote)?;
    let mut wanted: BTreeSet<u64> = accepted.into_iter().collect();
    wanted.extend(published.first().copied()); // step 0: the first accepted one
    wanted.extend(remote_checkpoints::latest(remote)?.filter(|s| published.contains(s)));
    mirror_checkpoints(remote, &local, &wanted, &published)
}

/// Brings the store's `accepted.json` (if any) into `local_checkpoints` and returns its step.
fn fetch_accepted(remote: &RemoteRun, local_checkpoints: &Path) -> Result<Option<u64>, StoreError> {
    remote.download(&accepted_key(), &local_checkpoints.join(ACCEPTED_FILE))?;
    Ok(read_accepted(local_checkpoints))
}

/// Makes `local_checkpoints` hold exactly the `wanted` checkpoints that are `published`: the
/// others leave first (the cache stays bounded), then the missing ones are fetched whole.
fn mirror_checkpoints(
    remote: &RemoteRun,
    local_checkpoints: &Path,
    wanted: &BTreeSet<u64>,
    published: &BTreeSet<u64>,
) -> Result<()> {
    for entry in list_checkpoints(local_checkpoints).unwrap_or_default() {
        if !wanted.contains(&entry.step) {
            std::fs::remove_dir_all(&entry.path)
                .with_context(|| format!("removing {}", entry.path.display()))?;
        }
    }
    for &step in wanted.intersection(published) {
        remote_checkpoints::fetch(remote, step, local_checkpoints)?;
    }
    Ok(())
}
