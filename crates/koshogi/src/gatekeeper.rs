//! Gating for `koshogi run` (`[gate] enabled = true`): a new checkpoint plays self-play only
//! after it passes a match against the checkpoint playing now.
//!
//! A thread watches `<run>/checkpoints/`; for each checkpoint newer than the accepted one it
//! plays a gate match (`koshogi_arena::gate`) and, if the candidate passes, records it in
//! `accepted.json`, which self-play follows (and pruning keeps). The first accepted checkpoint
//! is step 0, the random initialisation the trainer writes when a run starts. A failed gate
//! match (say, a checkpoint pruned mid-match) is logged and the next one is tried later.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use koshogi_arena::gate::gate_checkpoints;
use koshogi_run_store::layout::{checkpoint_dir_name, RunLayout};
use koshogi_run_store::local_checkpoints::{
    latest_checkpoint, list_checkpoints, read_accepted, write_accepted,
};

use crate::run_config::RunConfig;

/// Starts the gate thread; it ends when `stop` is set.
pub fn spawn(config: &RunConfig, run_dir: &Path, stop: Arc<AtomicBool>) -> Result<JoinHandle<()>> {
    let config = config.clone();
    let checkpoints = RunLayout::new(run_dir).checkpoints_dir();
    std::thread::Builder::new()
        .name("gatekeeper".into())
        .spawn(move || {
            // The gate's networks run on this thread; keep them to one core's worth.
            tch::set_num_threads(1);
            let mut keeper = Gatekeeper::new(config, checkpoints);
            while !stop.load(Ordering::Relaxed) {
                if let Err(e) = keeper.step() {
                    tracing::warn!("gate: {e:#}");
                }
                for _ in 0..10 {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        })
        .context("starting the gate thread")
}

/// The gate's state between rounds: which checkpoints it has tried. Driven by [`spawn`]'s
/// thread in `koshogi run`, or by `koshogi gate` as a process of its own.
pub struct Gatekeeper {
    config: RunConfig,
    checkpoints: PathBuf,
    /// Newest step already gated (passed or not).
    tried: u64,
    /// Gate matches played, to vary their openings.
    round: u64,
}

impl Gatekeeper {
    /// A gate over the checkpoint directory `checkpoints`.
    pub fn new(config: RunConfig, checkpoints: PathBuf) -> Gatekeeper {
        Gatekeeper {
            config,
            checkpoints,
            tried: 0,
            round: 0,
        }
    }

    /// Accepts step 0 if nothing is accepted yet, else gates the newest untried checkpoint.
    pub fn step(&mut self) -> Result<()> {
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
        let settings = self.config.gate.settings(self.round);
        let result = gate_checkpoints(
            &latest.path,
            &incumbent,
            &self.config.gate.player_kind(),
            &self.config.inference,
            &settings,
            &mut (),
        )
        .with_context(|| format!("gating step {} against step {accepted}", latest.step))?;
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

    fn accepted_or_initial(&self) -> Result<Option<u64>> {
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
