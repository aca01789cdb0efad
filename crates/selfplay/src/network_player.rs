//! The network that plays self-play games, following the run's newest checkpoint.
//!
//! It lives on a worker's evaluation thread (a tch model is not `Sync`). Workers set
//! [`ModelSignals::request_recheck`] whenever a game ends; before its next batch the evaluator then looks
//! in `<run>/checkpoints/` and, if a newer complete checkpoint is there, loads it. A checkpoint
//! that fails to load is skipped with a warning (the old weights keep playing) rather than
//! stopping self-play. With gating on, it plays the checkpoint named in `accepted.json` (the last
//! one that passed its gate match) instead of the newest. With a material bootstrap
//! (`selfplay.material_value_weight`) it mixes the material value into every answer, with the
//! weight the loaded checkpoint's step calls for.

use std::path::PathBuf;
use std::sync::Arc;

use koshogi_mcts::material::{blend_material_value, MaterialEvaluator};
use koshogi_mcts::{EvalError, EvalRequest, Evaluation, Evaluator};
use koshogi_nn::{InferenceModel, ModelConfig, NetworkEvaluator, RuntimeConfig};
use koshogi_rules::Game;
use koshogi_run_store::layout::{checkpoint_dir_name, MODEL_CARD_FILE};
use koshogi_run_store::local_checkpoints::{latest_checkpoint, read_accepted};

use crate::config::SelfplayConfig;
use crate::worker::ModelSignals;

/// A [`NetworkEvaluator`] that swaps in newer checkpoints between games.
pub struct CheckpointFollowingEvaluator {
    inner: NetworkEvaluator,
    checkpoints: PathBuf,
    runtime: RuntimeConfig,
    signals: Arc<ModelSignals>,
    /// This evaluator's slot in `signals` (its worker).
    worker: usize,
    loaded_step: Option<u64>,
    /// How many checkpoints were loaded: the [`Evaluator::generation`] of the answers.
    loads: u64,
    gated: bool,
    /// The material bootstrap: its schedule and the piece values (None = off).
    material: Option<(SelfplayConfig, MaterialEvaluator)>,
}

impl CheckpointFollowingEvaluator {
    /// Starts from the newest checkpoint in `checkpoints`, or from a random network of
    /// `model` when there is none yet (the first games of a run). Sets libtorch's intra-op
    /// threads for the calling (evaluation) thread.
    pub fn new(
        checkpoints: PathBuf,
        model: &ModelConfig,
        runtime: RuntimeConfig,
        intra_op_threads: i32,
        signals: Arc<ModelSignals>,
        worker: usize,
        gated: bool,
    ) -> Result<Self, EvalError> {
        koshogi_nn::set_intra_op_threads(intra_op_threads);
        let fresh =
            InferenceModel::new(model, &runtime).map_err(|e| EvalError::Failed(e.to_string()))?;
        let mut evaluator = CheckpointFollowingEvaluator {
            inner: NetworkEvaluator::new(fresh),
            checkpoints,
            runtime,
            signals,
            worker,
            loaded_step: None,
            loads: 0,
            gated,
            material: None,
        };
        evaluator.reload_if_newer();
        Ok(evaluator)
    }

    /// Mixes the material value into the network's with `config`'s weight schedule
    /// (`material_value_weight`, `material_value_until_step`).
    pub fn with_material_bootstrap(mut self, config: &SelfplayConfig) -> Self {
        self.material =
            (config.material_value_weight > 0.0).then(|| (config.clone(), MaterialEvaluator));
        self
    }

    /// The training step of the weights now playing (`None` = random initialisation).
    pub fn loaded_step(&self) -> Option<u64> {
        self.loaded_step
    }

    fn reload_if_newer(&mut self) {
        let Some((step, dir)) = self.wanted_checkpoint() else {
            return;
        };
        if self.loaded_step == Some(step) || (!self.gated && self.loaded_step > Some(step)) {
            return;
        }
        let card = dir.join(MODEL_CARD_FILE);
        match InferenceModel::load(&card, &self.runtime) {
            Ok((model, _card)) => {
                self.inner = NetworkEvaluator::new(model);
                self.loaded_step = Some(step);
                self.loads += 1;
                self.signals.publish_step(self.worker, step);
                tracing::info!("self-play now plays checkpoint step {step}");
            }
            Err(e) => tracing::warn!("skipping checkpoint {}: {e}", card.display()),
        }
    }

    /// The checkpoint that should play: the accepted one with gating, else the newest.
    fn wanted_checkpoint(&self) -> Option<(u64, PathBuf)> {
        if self.gated {
            let step = read_accepted(&self.checkpoints)?;
            return Some((step, self.checkpoints.join(checkpoint_dir_name(step))));
        }
        match latest_checkpoint(&self.checkpoints) {
            Ok(latest) => latest.map(|entry| (entry.step, entry.path)),
            Err(e) => {
                tracing::warn!(
                    "cannot list checkpoints in {}: {e}",
                    self.checkpoints.display()
                );
                None
            }
        }
    }
}

impl Evaluator<Game> for CheckpointFollowingEvaluator {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<Game>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        if self.signals.take_recheck(self.worker) {
            self.reload_if_newer();
        }
        let first = out.len();
        self.inner.evaluate(requests, out)?;
        if let Some((config, material)) = &self.material {
            let weight = config.material_value_weight_at(self.loaded_step);
            blend_material_value(material, requests, &mut out[first..], weight);
        }
        Ok(())
    }

    fn generation(&self) -> u64 {
        self.loads
    }
}
