//! The files of one checkpoint and the trainer's own state file.
//!
//! A checkpoint directory (see [`crate::checkpoint_manager`]) holds
//! * `model.json` + `model.safetensors`: the weights and model card (koshogi-nn's format, what
//!   self-play, the arena and export load);
//! * `optimizer.safetensors`: the optimiser's buffers ([`crate::optimizer`]);
//! * `trainer_state.json`: [`TrainerState`] — step, samples, the sampler cursor (which is also
//!   the random-number state: batch `k` uses stream `k` of the seed), the learning rate and a
//!   hash of the run configuration.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sampler::SamplerCursor;

pub use koshogi_run_store::layout::MODEL_CARD_FILE;
pub const OPTIMIZER_FILE: &str = "optimizer.safetensors";
pub const TRAINER_STATE_FILE: &str = "trainer_state.json";

/// Version of [`TrainerState`]'s layout.
pub const TRAINER_STATE_VERSION: u32 = 1;

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
    pub created_unix_seconds: u64,
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

    pub fn read(path: &Path) -> Result<Self, TrainerStateError> {
        let text = std::fs::read_to_string(path).map_err(|source| TrainerStateError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let state: TrainerState =
            serde_json::from_str(&text).map_err(|e| TrainerStateError::Parse {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })?;
        if state.format_version != TRAINER_STATE_VERSION {
            return Err(TrainerStateError::Parse {
                path: path.to_path_buf(),
                reason: format!(
                    "format version {}, this build reads {TRAINER_STATE_VERSION}",
                    state.format_version
                ),
            });
        }
        Ok(state)
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
            created_unix_seconds: 1,
        };
        std::fs::write(&path, state.to_json()).unwrap();
        assert_eq!(TrainerState::read(&path).unwrap(), state);
        std::fs::write(&path, "{\"step\": 3}").unwrap();
        assert!(matches!(
            TrainerState::read(&path),
            Err(TrainerStateError::Parse { .. })
        ));
    }
}
