//! The files of one checkpoint and the trainer's own state file.
//!
//! A checkpoint directory (see [`crate::checkpoint_manager`]) holds
//! * `model.json` + `model.safetensors`: the weights and model card (koshogi-nn's format, what
//!   self-play, the arena and export load);
//! * `optimizer.safetensors`: the optimiser's buffers ([`crate::optimizer`]);
//! * with `train.ema_decay > 0`, `model.*` holds the weight average ([`crate::weight_average`])
//!   and `raw_model.json` + `raw_model.safetensors` the trained weights training resumes on;
//! * `trainer_state.json`: [`TrainerState`] — step, samples, the sampler cursor (which is also
//!   the random-number state: batch `k` uses stream `k` of the seed), the learning rate and a
//!   hash of the run configuration.

use std::path::{Path, PathBuf};

use koshogi_files::small_file::read_small_text;
use serde::{Deserialize, Serialize};

use crate::sampler::SamplerCursor;

pub use koshogi_run_store::layout::MODEL_CARD_FILE;
pub const OPTIMIZER_FILE: &str = "optimizer.safetensors";
/// The trained (not averaged) weights, written when `train.ema_decay > 0`.
pub const RAW_MODEL_CARD_FILE: &str = "raw_model.json";
pub const TRAINER_STATE_FILE: &str = "trainer_state.json";

/// Version of [`TrainerState`]'s layout.
pub const TRAINER_STATE_VERSION: u32 = 1;

/// The largest `trainer_state.json` read: the file lists every shard the run has seen (about
/// 100 bytes each), so this allows some 600,000 shards; anything larger is not read whole.
pub const MAX_TRAINER_STATE_BYTES: u64 = 64 << 20;

/// The largest step, sample, batch and row count a state may hold (2⁶² — TensorBoard steps
/// are `i64`): what is added to them later can never overflow.
pub const MAX_COUNT: u64 = 1 << 62;

/// Everything besides weights and optimiser buffers that resume needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainerState {
    pub format_version: u32,
    /// Optimiser steps taken.
    pub step: u64,
    /// Training samples consumed (`step · batch_size` unless the batch size changed).
    pub samples: u64,
    pub sampler: SamplerCursor,
    /// The learning rate of the last step (for information; the schedule recomputes it).
    pub last_lr: f64,
    /// Hash of the run configuration the checkpoint was trained under.
    pub config_hash: String,
    /// Updates of the weight average (`train.ema_decay`) so far; 0 when it is off. Absent in
    /// states written before the average existed.
    #[serde(default)]
    pub ema_updates: u64,
    pub created_unix_seconds: u64,
    /// Wall-clock seconds the trainer had been open in this run when the checkpoint was
    /// written, summed over resumes: the clock of `koshogi run --hours`. 0 in states written
    /// before it was counted.
    #[serde(default)]
    pub training_seconds: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum TrainerStateError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a trainer state: {reason}")]
    Parse { path: PathBuf, reason: String },
}

impl TrainerState {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a trainer state always serialises") + "\n"
    }

    /// Reads and checks the state file of a checkpoint (what `--resume` starts from).
    pub fn read(path: &Path) -> Result<Self, TrainerStateError> {
        let text = read_small_text(path, MAX_TRAINER_STATE_BYTES).map_err(|source| {
            TrainerStateError::Read {
                path: path.to_path_buf(),
                source,
            }
        })?;
        let parse_error = |reason: String| TrainerStateError::Parse {
            path: path.to_path_buf(),
            reason,
        };
        let state: TrainerState =
            serde_json::from_str(&text).map_err(|e| parse_error(e.to_string()))?;
        if state.format_version != TRAINER_STATE_VERSION {
            return Err(parse_error(format!(
                "format version {}, this build reads {TRAINER_STATE_VERSION}",
                state.format_version
            )));
        }
        state.check_counts().map_err(parse_error)?;
        if !(state.training_seconds.is_finite() && state.training_seconds >= 0.0) {
            return Err(parse_error(format!(
                "training_seconds = {} is not a time",
                state.training_seconds
            )));
        }
        Ok(state)
    }

    /// The counters and the row numbering must leave room for the steps, samples and shards
    /// still to come: the trainer, the sampler and the replay window add to them without
    /// checks. No run comes near [`MAX_COUNT`].
    fn check_counts(&self) -> Result<(), String> {
        for (name, count) in [
            ("step", self.step),
            ("samples", self.samples),
            ("sampler.batches", self.sampler.batches),
        ] {
            if count > MAX_COUNT {
                return Err(format!("{name} = {count} is more than {MAX_COUNT}"));
            }
        }
        let rows = self
            .sampler
            .shards
            .iter()
            .try_fold(0u64, |total, shard| total.checked_add(shard.rows))
            .filter(|&rows| rows <= MAX_COUNT);
        if rows.is_none() {
            return Err(format!(
                "its {} shards hold more than {MAX_COUNT} rows in all",
                self.sampler.shards.len()
            ));
        }
        Ok(())
    }
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay_window::KnownShard;

    #[test]
    fn state_round_trips_through_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TRAINER_STATE_FILE);
        let state = TrainerState {
            format_version: TRAINER_STATE_VERSION,
            step: 1200,
            samples: 1200 * 64,
            sampler: SamplerCursor {
                seed: u64::MAX,
                batches: 1200,
                shards: vec![KnownShard {
                    file: "shard-000000001-w0.npz".into(),
                    rows: 4096,
                }],
            },
            last_lr: 0.0125,
            config_hash: "abc".into(),
            ema_updates: 7,
            created_unix_seconds: 1,
            training_seconds: 3600.25,
        };
        std::fs::write(&path, state.to_json()).unwrap();
        assert_eq!(TrainerState::read(&path).unwrap(), state);
        // A state written before the weight average existed reads with no updates.
        let old = state.to_json().replace("  \"ema_updates\": 7,\n", "");
        assert!(!old.contains("ema_updates"));
        std::fs::write(&path, old).unwrap();
        assert_eq!(TrainerState::read(&path).unwrap().ema_updates, 0);
        // So does one written before the training clock existed, with no time trained.
        let older = state
            .to_json()
            .replace(",\n  \"training_seconds\": 3600.25", "");
        assert!(!older.contains("training_seconds"), "{older}");
        std::fs::write(&path, older).unwrap();
        assert_eq!(TrainerState::read(&path).unwrap().training_seconds, 0.0);
        let negative = state.to_json().replace("3600.25", "-1.0");
        std::fs::write(&path, negative).unwrap();
        let err = TrainerState::read(&path).unwrap_err().to_string();
        assert!(err.contains("training_seconds"), "{err}");
        std::fs::write(&path, "{\"step\": 3}").unwrap();
        assert!(matches!(
            TrainerState::read(&path),
            Err(TrainerStateError::Parse { .. })
        ));
    }

    fn state_with(step: u64, samples: u64, batches: u64, rows: &[u64]) -> TrainerState {
        TrainerState {
            format_version: TRAINER_STATE_VERSION,
            step,
            samples,
            sampler: SamplerCursor {
                seed: 1,
                batches,
                shards: rows
                    .iter()
                    .enumerate()
                    .map(|(i, &rows)| KnownShard {
                        file: format!("shard-{i:09}-w0.npz"),
                        rows,
                    })
                    .collect(),
            },
            last_lr: 0.01,
            config_hash: "abc".into(),
            ema_updates: 0,
            created_unix_seconds: 1,
            training_seconds: 0.0,
        }
    }

    #[test]
    fn a_state_whose_counts_leave_no_room_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TRAINER_STATE_FILE);
        let largest = state_with(
            MAX_COUNT,
            MAX_COUNT,
            MAX_COUNT,
            &[MAX_COUNT / 2, MAX_COUNT / 2],
        );
        std::fs::write(&path, largest.to_json()).unwrap();
        assert_eq!(TrainerState::read(&path).unwrap(), largest);
        // The resumed trainer adds 1 to the step (overflow at u64::MAX); the sampler multiplies
        // the batches by the batch size; the replay window adds up the shards' rows (two
        // shards of 2⁶³ rows overflowed when the window was built).
        for (state, field) in [
            (state_with(u64::MAX, 0, 0, &[]), "step"),
            (state_with(0, MAX_COUNT + 1, 0, &[]), "samples"),
            (state_with(0, 0, u64::MAX, &[]), "sampler.batches"),
            (state_with(0, 0, 0, &[1 << 63, 1 << 63]), "rows in all"),
            (state_with(0, 0, 0, &[MAX_COUNT, 1]), "rows in all"),
        ] {
            std::fs::write(&path, state.to_json()).unwrap();
            let error = TrainerState::read(&path).unwrap_err();
            assert!(matches!(error, TrainerStateError::Parse { .. }), "{error}");
            assert!(error.to_string().contains(field), "{error}");
        }
    }

    #[test]
    fn a_state_file_over_its_bound_is_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TRAINER_STATE_FILE);
        let mut text = state_with(1, 1, 1, &[]).to_json();
        text.push_str(&" ".repeat(MAX_TRAINER_STATE_BYTES as usize));
        std::fs::write(&path, text).unwrap();
        let error = TrainerState::read(&path).unwrap_err();
        assert!(matches!(error, TrainerStateError::Read { .. }), "{error}");
        assert!(error.to_string().contains("more than"), "{error}");
    }
}
