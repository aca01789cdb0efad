//! What each role of a run in object storage sends and fetches (docs/distributed.md): the
//! passes of their sync threads ([`crate::sync_thread`]) and the preparation of their caches.
//!
//! Self-play workers send shards and game records (one atomic put each, then delete them) and
//! fetch each newly published checkpoint; the trainer publishes its checkpoints (files, marker,
//! pointer) and prunes the store with the run's keep policy; the gate and the ladder mirror the
//! checkpoints they compare; everyone sends TensorBoard events.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::layout::{
    accepted_key, RunLayout, ACCEPTED_FILE, ARENA_DIR, GAMES_DIR, SHARDS_DIR, TENSORBOARD_DIR,
};
use crate::local_checkpoints::{list_checkpoints, read_accepted};
use crate::tree::SentFiles;
use crate::{outbox, remote_checkpoints, tree, RemoteRun, StoreError};

/// How often TensorBoard's event files are sent.
const TENSORBOARD_EVERY: Duration = Duration::from_secs(60);

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
    std::fs::create_dir_all(&local).map_err(StoreError::local("creating", &local))?;
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
pub fn prepare_trainer_cache(
    remote: &RemoteRun,
    cache: &Path,
    resume: bool,
) -> Result<(), StoreError> {
    let local = RunLayout::new(cache).checkpoints_dir();
    if local.exists() {
        std::fs::remove_dir_all(&local).map_err(StoreError::local("clearing", &local))?;
    }
    std::fs::create_dir_all(&local).map_err(StoreError::local("creating", &local))?;
    let (published, _) = remote_checkpoints::list(remote)?;
    if let Some(&newest) = published.last() {
        if !resume {
            return Err(StoreError::NotResumed {
                url: remote.url().to_string(),
            });
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
/// the run's keep policy (`keep`: which of the published steps it keeps; the accepted checkpoint
/// and the newest are kept besides).
pub fn trainer_sync(
    remote: RemoteRun,
    cache: PathBuf,
    keep: impl Fn(&[u64]) -> BTreeSet<u64> + Send,
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
            let mut kept = keep(&steps);
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
pub fn prepare_ladder_cache(remote: &RemoteRun, cache: &Path) -> Result<(), StoreError> {
    let local = RunLayout::new(cache).checkpoints_dir();
    std::fs::create_dir_all(&local).map_err(StoreError::local("creating", &local))?;
    let (published, _) = remote_checkpoints::list(remote)?;
    mirror_checkpoints(remote, &local, &published, &published)?;
    fetch_accepted(remote, &local)?;
    tree::pull(remote, ARENA_DIR, cache, |_| false)?;
    Ok(())
}

/// Sends the ladder's tables, games and TensorBoard events.
pub fn send_ladder_results(remote: &RemoteRun, cache: &Path) -> Result<(), StoreError> {
    tree::push_changed(remote, cache, ARENA_DIR, &mut SentFiles::default())?;
    tree::push_changed(remote, cache, TENSORBOARD_DIR, &mut SentFiles::default())?;
    Ok(())
}

/// Brings what the gate compares into its cache: the accepted marker and checkpoint, and the
/// newest published checkpoint; older ones leave the cache.
pub fn fetch_gate_checkpoints(remote: &RemoteRun, cache: &Path) -> Result<(), StoreError> {
    let local = RunLayout::new(cache).checkpoints_dir();
    std::fs::create_dir_all(&local).map_err(StoreError::local("creating", &local))?;
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
) -> Result<(), StoreError> {
    for entry in list_checkpoints(local_checkpoints).unwrap_or_default() {
        if !wanted.contains(&entry.step) {
            std::fs::remove_dir_all(&entry.path)
                .map_err(StoreError::local("removing", &entry.path))?;
        }
    }
    for &step in wanted.intersection(published) {
        remote_checkpoints::fetch(remote, step, local_checkpoints)?;
    }
    Ok(())
}
