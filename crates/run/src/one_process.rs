//! The roles of a run meeting in one process on one machine (`koshogi run`).
//!
//! Self-play runs on its own threads and writes shards; the trainer (the caller's thread)
//! consumes them as they appear, waiting when it has used its share of the data
//! (`train.samples_per_new_row`), and writes checkpoints that self-play picks up between games;
//! with `[gate]` on, a gatekeeper thread decides which checkpoints self-play may use. Setting
//! `stop` ends the run as Ctrl-C does: the trainer finishes its step and writes a checkpoint,
//! self-play finishes the current moves and writes its shards. The same roles run as separate
//! processes (on many machines) through koshogi-run-store instead.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use indicatif::ProgressBar;
use koshogi_arena::gate::spawn_gatekeeper;
use koshogi_run_store::layout::RunLayout;
use koshogi_selfplay::SelfplayStats;
use koshogi_train::{TrainProgress, TrainSummary, Trainer};

use crate::selfplay_role::{play, worker_context, Reporter};
use crate::{RunConfig, RunError};

/// A run whose self-play (and gate) threads are going and whose trainer is open; [`Self::train`]
/// trains until the step target or `stop`, then joins the threads.
pub struct OneProcessRun {
    stop: Arc<AtomicBool>,
    stats: Arc<SelfplayStats>,
    reporter: Reporter,
    selfplay: JoinHandle<Result<(), RunError>>,
    gate: Option<JoinHandle<()>>,
    trainer: Trainer,
}

/// What a finished one-process run did.
pub struct OneProcessOutcome {
    pub training: TrainSummary,
    /// Self-play's closing line (games, positions, results).
    pub selfplay_summary: String,
}

impl OneProcessRun {
    /// Starts self-play (its progress line drawn on `selfplay_bar`), opens the trainer on
    /// `run_dir` (a new run writes its step-0 checkpoint), and starts the gate if configured.
    pub fn start(
        config: &RunConfig,
        run_dir: &Path,
        stop: Arc<AtomicBool>,
        selfplay_bar: ProgressBar,
    ) -> Result<OneProcessRun, RunError> {
        let stats = Arc::new(SelfplayStats::default());
        let ctx = worker_context(config, run_dir, None, stop.clone(), stats.clone())?;
        let reporter = Reporter::start(run_dir, stats.clone(), selfplay_bar);
        let selfplay = {
            let config = config.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("selfplay-pool".into())
                .spawn(move || {
                    let result = play(&config, &ctx, config.gate.enabled);
                    // A failed self-play must not leave the trainer waiting for data forever.
                    stop.store(true, Ordering::SeqCst);
                    result
                })
                .map_err(|e| RunError::Spawn("self-play", e))?
        };
        let opened = open_trainer_and_gate(config, run_dir, &stop);
        match opened {
            Ok((trainer, gate)) => Ok(OneProcessRun {
                stop,
                stats,
                reporter,
                selfplay,
                gate,
                trainer,
            }),
            Err(e) => {
                stop.store(true, Ordering::SeqCst);
                let _ = selfplay.join();
                reporter.finish();
                Err(e)
            }
        }
    }

    /// The open trainer (its step and step target, e.g. for a progress bar).
    pub fn trainer(&self) -> &Trainer {
        &self.trainer
    }

    /// Trains until the step target or `stop`, then stops self-play and the gate and waits for
    /// them. A training error is reported before a self-play error.
    pub fn train(
        mut self,
        progress: Option<&dyn TrainProgress>,
    ) -> Result<OneProcessOutcome, RunError> {
        let training = self.trainer.run(&self.stop, progress);
        self.stop.store(true, Ordering::SeqCst);
        if let Some(gate) = self.gate {
            gate.join().map_err(|_| RunError::Panicked("gate"))?;
        }
        let played = self
            .selfplay
            .join()
            .map_err(|_| RunError::Panicked("self-play"))?;
        self.reporter.finish();
        let training = training?;
        played.map_err(|e| RunError::Role("self-play", Box::new(e)))?;
        Ok(OneProcessOutcome {
            training,
            selfplay_summary: self.stats.summary(),
        })
    }
}

fn open_trainer_and_gate(
    config: &RunConfig,
    run_dir: &Path,
    stop: &Arc<AtomicBool>,
) -> Result<(Trainer, Option<JoinHandle<()>>), RunError> {
    let trainer = Trainer::open(config.trainer_setup(run_dir, true, true)?)?;
    // After `open`, so that a new run's step-0 checkpoint (the first accepted one) exists.
    let gate = if config.gate.enabled {
        let checkpoints: PathBuf = RunLayout::new(run_dir).checkpoints_dir();
        let thread = spawn_gatekeeper(
            config.gate.clone(),
            config.inference,
            checkpoints,
            stop.clone(),
        )
        .map_err(|e| RunError::Spawn("gate", e))?;
        Some(thread)
    } else {
        None
    };
    Ok((trainer, gate))
}
