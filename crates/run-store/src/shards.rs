//! Replay shards read straight from the store: the trainer's [`ShardSource`] for a stored
//! run. Nothing is cached on disk; the trainer keeps the shards of its window in memory, as it
//! does for a local run. Listings are made at most once per `min_list_interval`, so a trainer
//! that polls every two seconds costs the store one listing per interval, not thirty.
//!
//! The trainer gives it an [`RemoteRun::impatient`] handle when it follows self-play: while the
//! store is away, listings and reads fail at once as [`ShardError::Unavailable`], and the
//! trainer goes on training on the shards it holds (koshogi-train's replay window tries the
//! same shards again later, never counting one it could not read).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use koshogi_replay::{finished_shard_names, Shard, ShardError, ShardSource};

use crate::layout::SHARDS_DIR;
use crate::remote::MAX_OBJECT_BYTES;
use crate::{RemoteRun, StoreError};

/// The `shards/` of a stored run.
#[derive(Debug)]
pub struct StoredShards {
    remote: RemoteRun,
    min_list_interval: Duration,
    last_list: Mutex<Option<(Instant, Vec<String>)>>,
}

impl StoredShards {
    pub fn new(remote: RemoteRun, min_list_interval: Duration) -> Self {
        StoredShards {
            remote,
            min_list_interval,
            last_list: Mutex::new(None),
        }
    }

    fn origin(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("{}/{SHARDS_DIR}/{name}", self.remote.url()))
    }
}

/// A store error as a shard error: an outage ([`StoreError::is_transient`], or a patience
/// spent) is [`ShardError::Unavailable`], so that the reader tries again later instead of
/// skipping the shard; anything else is an I/O error naming the shard.
fn store_error(origin: PathBuf, error: StoreError) -> ShardError {
    if error.is_transient() || matches!(error, StoreError::GaveUp { .. }) {
        return ShardError::Unavailable {
            location: origin.display().to_string(),
            reason: error.to_string(),
        };
    }
    ShardError::Io {
        path: origin,
        source: std::io::Error::other(error.to_string()),
    }
}

impl ShardSource for StoredShards {
    fn list(&self) -> Result<Vec<String>, ShardError> {
        let mut last = self.last_list.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, names)) = last.as_ref() {
            if at.elapsed() < self.min_list_interval {
                return Ok(names.clone());
            }
        }
        let entries = self
            .remote
            .list(SHARDS_DIR)
            .map_err(|e| store_error(PathBuf::from(self.location()), e))?;
        let names = finished_shard_names(entries.iter().filter_map(|e| {
            e.key
                .strip_prefix(&format!("{SHARDS_DIR}/"))
                .map(str::to_string)
        }));
        *last = Some((Instant::now(), names.clone()));
        Ok(names)
    }

    fn open(&self, name: &str) -> Result<Shard, ShardError> {
        if koshogi_replay::parse_shard_file_name(name).is_none() {
            return Err(ShardError::BadShardName(name.to_string()));
        }
        let origin = self.origin(name);
        let bytes = self
            .remote
            .get(&format!("{SHARDS_DIR}/{name}"), MAX_OBJECT_BYTES)
            .map_err(|e| store_error(origin.clone(), e))?
            .ok_or_else(|| {
                store_error(
                    origin.clone(),
                    StoreError::BadObject {
                        url: self.remote.url().to_string(),
                        key: format!("{SHARDS_DIR}/{name}"),
                        reason: "listed but gone".into(),
                    },
                )
            })?;
        Shard::from_bytes(&origin, &bytes)
    }

    fn location(&self) -> String {
        format!("{}/{SHARDS_DIR}", self.remote.url())
    }
}
