//! How checkpoints appear atomically, and which ones are kept.
//!
//! Layout (names and listing: `koshogi_run_store::layout` and
//! `koshogi_run_store::local_checkpoints`): `<run>/checkpoints/step-000001200/` holds one
//! complete checkpoint (the trainer decides which files; see [`crate::trainer_state`]). It is
//! written as
//! `.tmp-step-000001200-<pid>/`, every file fsynced, then renamed, so a directory named
//! `step-*` is always complete: `--resume` and self-play workers list only those. Old
//! checkpoints are pruned to the last `keep_last` plus every `keep_every`-th one (at steps that
//! are multiples of `keep_every · every_steps`), which keeps a thinning history for evaluation
//! without filling the disk. `keep_hours` also keeps, for each listed hour of the training
//! clock, the earliest checkpoint trained that long (the trainer writes one as the clock passes
//! it): the checkpoints that the eval table at 1, 2, 4 and 8 hours reads, whatever the steps.
//!
//! With gating (`[gate]` in `koshogi run`), `accepted.json` names the checkpoint that passed its
//! gate match ([`read_accepted`]); self-play plays that one instead of the newest, and pruning
//! never removes it.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use koshogi_files::atomic::{sync_dir, sync_tree};
use koshogi_run_store::layout::{checkpoint_dir_name, MODEL_CARD_FILE};
use koshogi_run_store::local_checkpoints::{
    latest_checkpoint, list_checkpoints, LocalCheckpointError,
};
// What the manager returns, and the gate's choice that pruning keeps (read by the roles
// through koshogi-run-store).
pub use koshogi_run_store::local_checkpoints::{read_accepted, CheckpointEntry};

/// `[train.checkpoint]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointConfig {
    /// Write a checkpoint every this many optimiser steps (and always when training stops).
    pub every_steps: u64,
    /// How many of the most recent checkpoints to keep (at least 1).
    pub keep_last: usize,
    /// Also keep every `keep_every`-th checkpoint forever (0 = none).
    pub keep_every: u64,
    /// Also keep forever, for each of these hours of the training clock, the earliest
    /// checkpoint trained at least that long; the trainer writes one as the clock passes each.
    /// Empty (the default) = none. Left out of the serialised form when empty, so the hash of a
    /// configuration written before the key existed does not change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keep_hours: Vec<f64>,
}

/// The most `keep_hours` entries a configuration may list.
pub const MAX_KEEP_HOURS: usize = 64;

/// The longest training time taken anywhere (`keep_hours`, `koshogi run --hours`, `koshogi
/// eval --at-hours`), in hours: ten years, a time rather than an overflow.
pub const MAX_TRAINING_HOURS: f64 = 87_600.0;

impl CheckpointConfig {
    /// Checks the keep policy; the message names the key.
    pub fn validate(&self) -> Result<(), &'static str> {
        if self.keep_last == 0 {
            return Err("keep_last must be at least 1");
        }
        if self.keep_hours.len() > MAX_KEEP_HOURS {
            return Err("keep_hours lists more than 64 hours");
        }
        if self
            .keep_hours
            .iter()
            .any(|h| !(*h > 0.0 && *h <= MAX_TRAINING_HOURS))
        {
            return Err("keep_hours must list positive numbers of hours (at most 87600)");
        }
        Ok(())
    }

    /// The first of `keep_hours` that the training clock passed between two readings (in
    /// seconds): `before < hour ≤ now`. The step that passes it is written and kept.
    pub fn keep_hour_passed(&self, before_seconds: f64, now_seconds: f64) -> Option<f64> {
        self.keep_hours
            .iter()
            .copied()
            .filter(|h| before_seconds < h * 3600.0 && h * 3600.0 <= now_seconds)
            .min_by(f64::total_cmp)
    }
}

/// The steps `keep_hours` retains: for each hour, the earliest step whose training clock (in
/// seconds; `None` when unknown) had reached it.
pub fn hour_steps(clocks: &[(u64, Option<f64>)], hours: &[f64]) -> BTreeSet<u64> {
    hours
        .iter()
        .filter_map(|hour| {
            clocks
                .iter()
                .filter(|(_, clock)| clock.is_some_and(|c| c >= hour * 3600.0))
                .map(|(step, _)| *step)
                .min()
        })
        .collect()
}

/// The training clock a checkpoint's model card recorded, if it can be read.
fn checkpoint_clock(checkpoint: &Path) -> Option<f64> {
    koshogi_nn::checkpoint::read_card(&checkpoint.join(MODEL_CARD_FILE))
        .ok()?
        .training_seconds
}

/// The checkpoints in `dir` that `keep_hours` retains.
pub fn hour_checkpoints(dir: &Path, hours: &[f64]) -> Result<BTreeSet<u64>, CheckpointError> {
    if hours.is_empty() {
        return Ok(BTreeSet::new());
    }
    Ok(hour_steps_of(&list_checkpoints(dir)?, hours))
}

/// What a store keeps of its `published` steps: the keep policy over them, plus the hour
/// checkpoints that the local checkpoint directory `dir` spares (their clocks are in its model
/// cards). Unsure which those are (`dir` cannot be listed), it keeps every published step.
pub fn published_steps_to_keep(
    published: &[u64],
    config: &CheckpointConfig,
    dir: &Path,
) -> BTreeSet<u64> {
    let mut keep = steps_to_keep(published, config);
    match hour_checkpoints(dir, &config.keep_hours) {
        Ok(hours) => keep.extend(hours),
        Err(_) => keep.extend(published.iter().copied()),
    }
    keep
}

/// [`hour_steps`] of listed checkpoints; their cards are read only when hours are listed.
fn hour_steps_of(entries: &[CheckpointEntry], hours: &[f64]) -> BTreeSet<u64> {
    if hours.is_empty() {
        return BTreeSet::new();
    }
    let clocks: Vec<(u64, Option<f64>)> = entries
        .iter()
        .map(|e| (e.step, checkpoint_clock(&e.path)))
        .collect();
    hour_steps(&clocks, hours)
}

impl Default for CheckpointConfig {
    fn default() -> Self {
        Self {
            every_steps: 500,
            keep_last: 5,
            keep_every: 10,
            keep_hours: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("train.checkpoint: {0}")]
    Config(&'static str),
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("writing checkpoint contents into {path}: {message}")]
    Contents { path: PathBuf, message: String },
    #[error(transparent)]
    Listing(#[from] LocalCheckpointError),
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> CheckpointError {
    let path = path.to_path_buf();
    move |source| CheckpointError::Io {
        action,
        path,
        source,
    }
}

const TEMP_PREFIX: &str = ".tmp-";
const TRASH_PREFIX: &str = ".trash-";

/// The steps the keep policy retains out of `steps`.
pub fn steps_to_keep(steps: &[u64], config: &CheckpointConfig) -> BTreeSet<u64> {
    let mut sorted: Vec<u64> = steps.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut keep: BTreeSet<u64> = sorted
        .iter()
        .rev()
        .take(config.keep_last)
        .copied()
        .collect();
    let period = config.keep_every.saturating_mul(config.every_steps);
    if period > 0 {
        keep.extend(sorted.iter().copied().filter(|s| s % period == 0));
    }
    keep
}

/// Writes checkpoints into one directory and prunes it.
#[derive(Debug)]
pub struct CheckpointManager {
    dir: PathBuf,
    config: CheckpointConfig,
}

impl CheckpointManager {
    /// Creates `dir` if needed and removes temporary directories left by a crash.
    pub fn open(
        dir: impl Into<PathBuf>,
        config: &CheckpointConfig,
    ) -> Result<Self, CheckpointError> {
        config.validate().map_err(CheckpointError::Config)?;
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(io_error("creating", &dir))?;
        for entry in fs::read_dir(&dir).map_err(io_error("listing", &dir))? {
            let entry = entry.map_err(io_error("listing", &dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(TEMP_PREFIX) || name.starts_with(TRASH_PREFIX) {
                tracing::warn!(path = %entry.path().display(), "removing an incomplete checkpoint left by an earlier run");
                fs::remove_dir_all(entry.path()).map_err(io_error("removing", &entry.path()))?;
            }
        }
        Ok(Self {
            dir,
            config: config.clone(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the policy asks for a checkpoint after `step` steps.
    pub fn is_due(&self, step: u64) -> bool {
        step > 0 && step.checked_rem(self.config.every_steps) == Some(0)
    }

    pub fn list(&self) -> Result<Vec<CheckpointEntry>, CheckpointError> {
        Ok(list_checkpoints(&self.dir)?)
    }

    pub fn latest(&self) -> Result<Option<CheckpointEntry>, CheckpointError> {
        Ok(latest_checkpoint(&self.dir)?)
    }

    /// Writes the checkpoint for `step`: `fill` puts its files into an empty temporary
    /// directory; they are synced and the directory is renamed into place (replacing an older
    /// checkpoint of the same step), then old checkpoints are pruned.
    pub fn write<E: std::fmt::Display>(
        &self,
        step: u64,
        fill: impl FnOnce(&Path) -> Result<(), E>,
    ) -> Result<CheckpointEntry, CheckpointError> {
        let name = checkpoint_dir_name(step);
        let temp = self
            .dir
            .join(format!("{TEMP_PREFIX}{name}-{}", std::process::id()));
        if temp.exists() {
            fs::remove_dir_all(&temp).map_err(io_error("removing", &temp))?;
        }
        fs::create_dir(&temp).map_err(io_error("creating", &temp))?;
        let filled = fill(&temp)
            .map_err(|e| CheckpointError::Contents {
                path: temp.clone(),
                message: e.to_string(),
            })
            .and_then(|()| sync_tree(&temp).map_err(io_error("syncing", &temp)));
        if let Err(e) = filled {
            let _ = fs::remove_dir_all(&temp);
            return Err(e);
        }
        let final_path = self.dir.join(&name);
        if final_path.exists() {
            self.discard(&final_path)?;
        }
        fs::rename(&temp, &final_path).map_err(io_error("renaming", &temp))?;
        sync_dir(&self.dir).map_err(io_error("syncing", &self.dir))?;
        self.prune()?;
        Ok(CheckpointEntry {
            step,
            path: final_path,
        })
    }

    /// Deletes checkpoints the keep policy no longer wants; returns their steps.
    pub fn prune(&self) -> Result<Vec<u64>, CheckpointError> {
        let all = self.list()?;
        let steps: Vec<u64> = all.iter().map(|c| c.step).collect();
        let mut keep = steps_to_keep(&steps, &self.config);
        keep.extend(hour_steps_of(&all, &self.config.keep_hours));
        // Self-play may be playing the accepted checkpoint; never delete it.
        keep.extend(read_accepted(&self.dir));
        let mut removed = Vec::new();
        for entry in all.into_iter().filter(|c| !keep.contains(&c.step)) {
            self.discard(&entry.path)?;
            removed.push(entry.step);
        }
        Ok(removed)
    }

    /// Renames first so that a deletion interrupted half-way never leaves a `step-*` directory
    /// with missing files.
    fn discard(&self, path: &Path) -> Result<(), CheckpointError> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let trash = self.dir.join(format!(
            "{TRASH_PREFIX}{}-{}",
            name.unwrap_or_default(),
            std::process::id()
        ));
        fs::rename(path, &trash).map_err(io_error("renaming", path))?;
        fs::remove_dir_all(&trash).map_err(io_error("removing", &trash))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_run_store::layout::ACCEPTED_FILE;
    use koshogi_run_store::local_checkpoints::write_accepted;

    fn policy(every_steps: u64, keep_last: usize, keep_every: u64) -> CheckpointConfig {
        CheckpointConfig {
            every_steps,
            keep_last,
            keep_every,
            keep_hours: Vec::new(),
        }
    }

    #[test]
    fn keeps_the_earliest_checkpoint_past_each_listed_hour() {
        let hour = 3600.0;
        let clocks = [
            (0, Some(0.0)),
            (100, Some(0.9 * hour)),
            (150, None), // an unreadable card is never an hour checkpoint
            (200, Some(1.0 * hour)),
            (300, Some(1.5 * hour)),
            (400, Some(2.5 * hour)),
            (500, Some(3.0 * hour)),
        ];
        let keep = hour_steps(&clocks, &[1.0, 2.0, 4.0]);
        // 1 h: step 200 (exactly one hour); 2 h: step 400; 4 h: not reached yet.
        assert_eq!(keep, [200, 400].into_iter().collect());
        // Two hours reached by the same checkpoint keep it once.
        assert_eq!(
            hour_steps(&clocks, &[2.1, 2.5]),
            [400].into_iter().collect()
        );
        assert!(hour_steps(&clocks, &[]).is_empty());
    }

    #[test]
    fn the_hour_passed_between_two_clock_readings() {
        let config = CheckpointConfig {
            keep_hours: vec![2.0, 1.0],
            ..CheckpointConfig::default()
        };
        assert_eq!(config.keep_hour_passed(3599.0, 3600.0), Some(1.0));
        assert_eq!(
            config.keep_hour_passed(3600.0, 3700.0),
            None,
            "already past"
        );
        assert_eq!(
            config.keep_hour_passed(100.0, 8000.0),
            Some(1.0),
            "the first"
        );
        assert_eq!(config.keep_hour_passed(5000.0, 7300.0), Some(2.0));
        assert_eq!(config.keep_hour_passed(0.0, 10.0), None);
        assert_eq!(CheckpointConfig::default().keep_hour_passed(0.0, 1e9), None);
    }

    #[test]
    fn keep_hours_are_checked() {
        let with = |hours: Vec<f64>| CheckpointConfig {
            keep_hours: hours,
            ..CheckpointConfig::default()
        };
        assert!(with(vec![1.0, 2.0, 4.0, 8.0]).validate().is_ok());
        for bad in [
            vec![0.0],
            vec![-1.0],
            vec![f64::NAN],
            vec![f64::INFINITY],
            vec![1e6],
        ] {
            let err = with(bad.clone()).validate().unwrap_err();
            assert!(err.contains("keep_hours"), "{bad:?}: {err}");
        }
        assert!(with(vec![1.0; 65]).validate().is_err());
        let root = tempfile::tempdir().unwrap();
        let err = CheckpointManager::open(root.path(), &with(vec![0.0])).unwrap_err();
        assert!(err.to_string().contains("keep_hours"), "{err}");
    }

    /// An empty `keep_hours` is left out of the serialised configuration, so the hash that
    /// checkpoints carry is the one configurations had before the key existed.
    #[test]
    fn an_empty_keep_hours_is_not_serialised() {
        let json = serde_json::to_string(&CheckpointConfig::default()).unwrap();
        assert!(!json.contains("keep_hours"), "{json}");
        let with = CheckpointConfig {
            keep_hours: vec![1.0],
            ..CheckpointConfig::default()
        };
        assert!(serde_json::to_string(&with).unwrap().contains("keep_hours"));
    }

    #[test]
    fn keeps_the_last_k_and_every_mth() {
        let steps: Vec<u64> = (1..=25).map(|i| i * 100).collect();
        let keep = steps_to_keep(&steps, &policy(100, 3, 10));
        let expected: BTreeSet<u64> = [1000, 2000, 2300, 2400, 2500].into_iter().collect();
        assert_eq!(keep, expected);
    }

    #[test]
    fn without_keep_every_only_the_last_k_survive() {
        let steps = [7, 3, 500, 10];
        let keep = steps_to_keep(&steps, &policy(100, 2, 0));
        assert_eq!(keep, [10, 500].into_iter().collect());
        // Fewer checkpoints than keep_last: all stay.
        assert_eq!(
            steps_to_keep(&steps, &policy(100, 10, 0)),
            steps.into_iter().collect()
        );
    }

    #[test]
    fn writes_atomically_prunes_and_cleans_up_after_a_crash() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("checkpoints");
        let manager = CheckpointManager::open(&dir, &policy(10, 2, 3)).unwrap();
        for step in (10..=70).step_by(10) {
            manager
                .write(step, |tmp: &Path| {
                    fs::write(tmp.join("weights.bin"), step.to_le_bytes())
                })
                .unwrap();
        }
        let steps: Vec<u64> = manager.list().unwrap().iter().map(|c| c.step).collect();
        assert_eq!(steps, vec![30, 60, 70]);
        let latest = manager.latest().unwrap().unwrap();
        assert_eq!(
            fs::read(latest.path.join("weights.bin")).unwrap(),
            70u64.to_le_bytes()
        );

        // A failing writer leaves nothing behind and keeps what was there.
        let failed = manager.write(80, |_: &Path| Err("disk full"));
        assert!(failed.unwrap_err().to_string().contains("disk full"));
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");

        // A crash mid-write leaves a temporary directory that is never listed and is removed
        // on the next open.
        fs::create_dir(dir.join(".tmp-step-000000090-4242")).unwrap();
        assert_eq!(manager.latest().unwrap().unwrap().step, 70);
        let reopened = CheckpointManager::open(&dir, &policy(10, 2, 3)).unwrap();
        assert!(!dir.join(".tmp-step-000000090-4242").exists());
        assert_eq!(reopened.list().unwrap().len(), 3);
    }

    #[test]
    fn the_accepted_checkpoint_survives_pruning() {
        let root = tempfile::tempdir().unwrap();
        let manager = CheckpointManager::open(root.path(), &policy(10, 2, 0)).unwrap();
        assert_eq!(read_accepted(root.path()), None);
        manager
            .write(10, |tmp: &Path| fs::write(tmp.join("a"), b"10"))
            .unwrap();
        write_accepted(root.path(), 10).unwrap();
        assert_eq!(read_accepted(root.path()), Some(10));
        for step in [20, 30, 40] {
            manager
                .write(step, |tmp: &Path| fs::write(tmp.join("a"), b"x"))
                .unwrap();
        }
        let steps: Vec<u64> = manager.list().unwrap().iter().map(|c| c.step).collect();
        assert_eq!(steps, vec![10, 30, 40], "last two plus the accepted one");
        fs::write(root.path().join(ACCEPTED_FILE), "not json").unwrap();
        assert_eq!(read_accepted(root.path()), None);
    }

    #[test]
    fn rewriting_a_step_replaces_it() {
        let root = tempfile::tempdir().unwrap();
        let manager = CheckpointManager::open(root.path(), &policy(10, 2, 0)).unwrap();
        manager
            .write(10, |tmp: &Path| fs::write(tmp.join("a"), b"old"))
            .unwrap();
        let entry = manager
            .write(10, |tmp: &Path| fs::write(tmp.join("a"), b"new"))
            .unwrap();
        assert_eq!(fs::read(entry.path.join("a")).unwrap(), b"new");
        assert_eq!(manager.list().unwrap().len(), 1);
    }

    #[test]
    fn due_every_n_steps() {
        let root = tempfile::tempdir().unwrap();
        let manager = CheckpointManager::open(root.path(), &policy(25, 1, 0)).unwrap();
        let due: Vec<u64> = (0..=100).filter(|&s| manager.is_due(s)).collect();
        assert_eq!(due, vec![25, 50, 75, 100]);
        assert!(CheckpointManager::open(root.path(), &policy(25, 0, 0)).is_err());
    }
}
