//! The command line's side of a run in object storage (docs/distributed.md): the flags of a
//! process of a stored run (its cache, how often it looks, how long it waits for the store),
//! connecting, and the run configuration it runs with. What the roles send and fetch, their
//! caches and sync threads are koshogi-run-store's ([`koshogi_run_store::role_sync`],
//! [`koshogi_run_store::RoleCache`], [`koshogi_run_store::SyncThread`]).
//!
//! A store that does not answer is waited for, not an error: every request retries with
//! backoff for the role's `--store-patience` (koshogi-run-store's `RemoteRun`), the outage is
//! logged once, and the role works locally meanwhile — workers go on playing and queue their
//! shards in the cache, the trainer trains on the shards it holds (its shard reads do not
//! wait) and its checkpoints wait in the cache to be published in order. A role started while
//! the store is away waits for it the same way. A store error that retries cannot fix
//! (denied, no bucket) stops the process with that message, and so does an outage longer than
//! the patience.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use koshogi_run_store::layout::CONFIG_FILE;
use koshogi_run_store::stored_config::{fetch_stored_config, keep_config};
use koshogi_run_store::{RemoteRun, RoleCache, DEFAULT_PATIENCE};

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

    /// The local working directory of `role` (`--cache`, else the default one), locked.
    pub fn open_cache(&self, remote: &RemoteRun, role: &str) -> Result<RoleCache> {
        Ok(RoleCache::open(remote, role, self.cache.as_deref())?)
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
    let stored = fetch_stored_config(remote, wait_for_config && config.is_none(), stop)?;
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
    keep_config(remote, cache, stored.as_deref(), &text)?;
    Ok((parsed, text))
}
