//! The gatekeeper: the loop that gates each new checkpoint of a local run, for `koshogi run`
//! (`[gate] enabled = true`, a thread beside the trainer) and `koshogi gate` (a process of its
//! own). A new checkpoint plays self-play only after it passes a match against the checkpoint
//! playing now.
//!
//! It watches `<run>/checkpoints/`; for each checkpoint newer than the accepted one it plays a
//! gate match ([`gate_checkpoints`]) and, if the candidate passes, records it in
//! `accepted.json`, which self-play follows (and pruning keeps). The first accepted checkpoint
//! is step 0, the random initialisation the trainer writes when a run starts. A failed gate
//! match (say, a checkpoint pruned mid-match) is logged by [`spawn_gatekeeper`]'s thread and
//! the next one is tried later.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use koshogi_nn::RuntimeConfig;
use koshogi_run_store::layout::checkpoint_dir_name;
use koshogi_run_store::local_checkpoints::{
    latest_checkpoint, list_checkpoints, read_accepted, write_accepted, LocalCheckpointError,
};

use super::checkpoint_match::{gate_checkpoints, GateConfig, GateError};

/// Why a gate round failed (the gatekeeper goes on; the next round tries again).
#[derive(Debug, thiserror::Error)]
pub enum GatekeeperError {
    #[error(transparent)]
    Checkpoints(#[from] LocalCheckpointError),
    #[error("gating step {candidate} against step {incumbent}")]
    Gate {
        candidate: u64,
        incumbent: u64,
        #[source]
        source: GateError,
    },
}

/// Starts the gate thread over the checkpoint directory `checkpoints`; it ends when `stop` is
/// set.
pub fn spawn_gatekeeper(
    gate: GateConfig,
    runtime: RuntimeConfig,
    checkpoints: PathBuf,
    stop: Arc<AtomicBool>,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("gatekeeper".into())
        .spawn(move || {
            // The gate's networks run on this thread; keep them to one core's worth.
            tch::set_num_threads(1);
            let mut keeper = Gatekeeper::new(gate, runtime, checkpoints);
            while !stop.load(Ordering::Relaxed) {
                if let Err(e) = keeper.step() {
                    tracing::warn!("gate: {}", error_chain(&e));
                }
                for _ in 0..10 {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        })
}

/// `error: its source: …`, as `anyhow` prints `{:#}`.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The gate's state between rounds: which checkpoints it has tried. Driven by
/// [`spawn_gatekeeper`]'s thread in `koshogi run`, or by `koshogi gate` as a process of its own.
pub struct Gatekeeper {
    gate: GateConfig,
    runtime: RuntimeConfig,
    checkpoints: PathBuf,
    /// Newest step already gated (passed or not).
    tried: u64,
    /// Gate matches played, to vary their openings.
    round: u64,
}

impl Gatekeeper {
    /// A gate over the checkpoint directory `checkpoints`, its matches played as `gate` says
    /// with the networks on `runtime`.
    pub fn new(gate: GateConfig, runtime: RuntimeConfig, checkpoints: PathBuf) -> Gatekeeper {
        Gatekeeper {
            gate,
            runtime,
            checkpoints,
            tried: 0,
            round: 0,
        }
    }

    /// Accepts step 0 if nothing is accepted yet, else gates the newest untried checkpoint.
    pub fn step(&mut self) -> Result<(), GatekeeperError> {
        let Some(accepted) = self.accepted_or_initial()? else {
            return Ok(());
        };
        let Some(latest) = latest_checkpoint(&self.checkpoints)? else {
            return Ok(());
        };
        if latest.step <= accepted || latest.step <= self.tried {
            return Ok(());
        }
        self.tried = latest.step;
        self.round += 1;
        let incumbent = self.checkpoints.join(checkpoint_dir_name(accepted));
        let settings = self.gate.settings(self.round);
        let result = gate_checkpoints(
            &latest.path,
            &incumbent,
            &self.gate.player_kind(),
            &self.runtime,
            &settings,
            &mut (),
        )
        .map_err(|source| GatekeeperError::Gate {
            candidate: latest.step,
            incumbent: accepted,
            source,
        })?;
        tracing::info!(
            "gate: step {} vs step {accepted}: {} -> {}",
            latest.step,
            result.reason,
            if result.passed {
                "accepted"
            } else {
                "rejected"
            }
        );
        if result.passed {
            write_accepted(&self.checkpoints, latest.step)?;
        }
        Ok(())
    }

    fn accepted_or_initial(&self) -> Result<Option<u64>, GatekeeperError> {
        if let Some(step) = read_accepted(&self.checkpoints) {
            return Ok(Some(step));
        }
        if list_checkpoints(&self.checkpoints)?
            .iter()
            .any(|c| c.step == 0)
        {
            write_accepted(&self.checkpoints, 0)?;
            return Ok(Some(0));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keeper(dir: &std::path::Path) -> Gatekeeper {
        Gatekeeper::new(
            GateConfig::default(),
            RuntimeConfig::default(),
            dir.to_path_buf(),
        )
    }

    #[test]
    fn nothing_is_accepted_before_the_first_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        keeper(dir.path()).step().unwrap();
        assert_eq!(read_accepted(dir.path()), None);
    }

    #[test]
    fn step_zero_is_accepted_without_a_match() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(checkpoint_dir_name(0))).unwrap();
        keeper(dir.path()).step().unwrap();
        assert_eq!(read_accepted(dir.path()), Some(0));
    }

    #[test]
    fn a_failed_match_names_both_steps_and_its_cause() {
        let dir = tempfile::tempdir().unwrap();
        // Step 3 is a directory without a model card: its gate match cannot load it.
        for step in [0, 3] {
            std::fs::create_dir(dir.path().join(checkpoint_dir_name(step))).unwrap();
        }
        let mut keeper = keeper(dir.path());
        let error = keeper.step().unwrap_err();
        assert!(matches!(
            error,
            GatekeeperError::Gate {
                candidate: 3,
                incumbent: 0,
                ..
            }
        ));
        let text = error_chain(&error);
        assert!(text.starts_with("gating step 3 against step 0: "), "{text}");
        assert!(
            text.len() > "gating step 3 against step 0: ".len(),
            "{text}"
        );
        // Tried once: the next round does not play the same match again.
        keeper.step().unwrap();
        assert_eq!(read_accepted(dir.path()), Some(0));
    }
}
