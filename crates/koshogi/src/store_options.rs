//! The command line's side of a run in object storage (docs/distributed.md): the flags of a
//! process of a stored run (its cache, how often it looks, how long it waits for the store),
//! and connecting. The run configuration it runs with is koshogi-run's
//! ([`koshogi_run::resolve_stored_config`]); what the roles send and fetch, their caches and
//! sync threads are koshogi-run-store's ([`koshogi_run_store::role_sync`],
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

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use koshogi_run_store::{RemoteRun, RoleCache, DEFAULT_PATIENCE};

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
