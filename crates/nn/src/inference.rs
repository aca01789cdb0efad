//! Batched inference for the search: N positions with their legal moves in one forward pass →
//! for each, probabilities over its legal moves (in the order given), the WDL value and the
//! auxiliary predictions.
//!
//! [`InferenceModel`] owns its own copy of the weights in the inference precision and layout
//! (bfloat16 channels-last on a bf16-capable CPU, float16 on CUDA), re-synced from the float32
//! training master with [`InferenceModel::sync_from`]. tch tensors are `Send` but not `Sync`,
//! so the model is meant to be owned by the one evaluation thread that batches requests from
//! all searches; it keeps its scratch buffers between calls, so steady-state evaluation
//! allocates only the result vectors.

use std::path::Path;

use tch::{Kind, Tensor};

use crate::checkpoint::{self, ModelCard};
use crate::config::{ModelConfig, ResolvedRuntime, RuntimeConfig};
use crate::error::NnError;
use crate::features::{encode_position, FeatureInput, FEATURE_LEN, INPUT_PLANES};
use crate::geometry::BOARD_SIZE;
use crate::model::{Model, MATERIAL_SCALE, MOVES_LEFT_SCALE};
use crate::move_encoding::{encode_move, MoveLegs};
use crate::move_gather::LegalMoveIndex;

/// The network's answer for one position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// Probability of each legal move, in the order of the request (sums to 1).
    pub policy: Vec<f32>,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
    /// Predicted remaining plies.
    pub moves_left: f32,
    /// Predicted final material balance (mover minus opponent).
    pub material: f32,
}

/// One position to evaluate.
#[derive(Clone, Copy)]
pub struct EvalPosition<'a> {
    pub input: FeatureInput<'a>,
    /// Its legal moves, in the order the probabilities must follow.
    pub moves: &'a [koshogi_rules::Move],
}

/// The network in inference form; see the module docs.
#[derive(Debug)]
pub struct InferenceModel {
    model: Model,
    runtime: ResolvedRuntime,
    features: Vec<f32>,
    legs: Vec<MoveLegs>,
    index: LegalMoveIndex,
}

impl InferenceModel {
    /// A randomly initialised network (for benchmarks and the very first self-play games).
    pub fn new(config: &ModelConfig, runtime: &RuntimeConfig) -> Result<Self, NnError> {
        let resolved = runtime.resolve()?;
        let mut model = Model::new(config, resolved.device)?;
        model.convert(resolved.kind, resolved.channels_last);
        Ok(InferenceModel::wrap(model, resolved))
    }

    /// An inference copy of a training model's current weights.
    pub fn from_model(master: &Model, runtime: &RuntimeConfig) -> Result<Self, NnError> {
        let mut inference = InferenceModel::new(master.config(), runtime)?;
        inference.sync_from(master)?;
        Ok(inference)
    }

    /// Loads a checkpoint (see [`checkpoint::load`] for the checks made).
    pub fn load(card_path: &Path, runtime: &RuntimeConfig) -> Result<(Self, ModelCard), NnError> {
        let resolved = runtime.resolve()?;
        let (mut model, card) = checkpoint::load(card_path, resolved.device)?;
        model.convert(resolved.kind, resolved.channels_last);
        Ok((InferenceModel::wrap(model, resolved), card))
    }

    fn wrap(model: Model, runtime: ResolvedRuntime) -> Self {
        InferenceModel {
            model,
            runtime,
            features: Vec::new(),
            legs: Vec::new(),
            index: LegalMoveIndex::new(),
        }
    }

    /// Copies the master's weights in (converting kind and device, keeping this copy's layout).
    pub fn sync_from(&mut self, master: &Model) -> Result<(), NnError> {
        if !master.config().same_weights_as(self.model.config()) {
            return Err(NnError::InvalidConfig(format!(
                "cannot sync an inference model from a model that differs in {} (this model's \
                 value, the master's)",
                self.model
                    .config()
                    .weight_differences(master.config())
                    .join(", ")
            )));
        }
        self.model.vs.copy(&master.vs)?;
        self.model
            .set_material_utility(master.config().material_utility);
        Ok(())
    }

    /// Sets how the search reads this network's value (`ModelConfig::material_utility`), e.g.
    /// 0 for the network's own value alone; the weights are untouched.
    pub fn set_material_utility(&mut self, weight: f32) {
        self.model.set_material_utility(weight);
    }

    pub fn runtime(&self) -> ResolvedRuntime {
        self.runtime
    }

    pub fn config(&self) -> &ModelConfig {
        self.model.config()
    }

    /// Evaluates a batch of positions, appending one [`Evaluation`] per position to `out`.
    pub fn evaluate(
        &mut self,
        positions: &[EvalPosition<'_>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), NnError> {
        let mut features = std::mem::take(&mut self.features);
        let mut legs = std::mem::take(&mut self.legs);
        features.resize(positions.len() * FEATURE_LEN, 0.0);
        legs.clear();
        self.index.clear();
        let mut result: Result<(), NnError> = Ok(());
        let attack_planes = self.config().attack_planes;
        for (position, chunk) in positions.iter().zip(features.chunks_exact_mut(FEATURE_LEN)) {
            // The network, not the caller, decides which planes it reads.
            let input = position.input.with_attack_planes(attack_planes);
            result = encode_position(&input, chunk)
                .and_then(|()| {
                    let start = legs.len();
                    for mv in position.moves {
                        legs.push(encode_move(position.input.position, mv)?);
                    }
                    self.index.push_position(&legs[start..]);
                    Ok(())
                })
                .map_err(NnError::from);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = self.run(&features, out);
        }
        self.features = features;
        self.legs = legs;
        result
    }

    /// Evaluates already-encoded positions: `features` holds `moves.len()` positions of
    /// [`FEATURE_LEN`] values each, `moves[i]` the legs of position i's legal moves.
    pub fn evaluate_encoded(
        &mut self,
        features: &[f32],
        moves: &[&[MoveLegs]],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), NnError> {
        if features.len() != moves.len() * FEATURE_LEN {
            return Err(NnError::BadBatch(format!(
                "{} feature values for {} positions",
                features.len(),
                moves.len()
            )));
        }
        self.index.clear();
        for legs in moves {
            self.index.push_position(legs);
        }
        self.run(features, out)
    }

    /// The forward pass and the gather, given features and a filled `self.index`.
    fn run(&mut self, features: &[f32], out: &mut Vec<Evaluation>) -> Result<(), NnError> {
        let n = self.index.positions();
        if n == 0 {
            return Ok(());
        }
        let runtime = self.runtime;
        let (policy, wdl, moves_left, material) = tch::no_grad(|| -> Result<_, NnError> {
            let side = BOARD_SIZE as i64;
            let input = runtime.prepare_input(&Tensor::from_slice(features).view([
                n as i64,
                INPUT_PLANES as i64,
                side,
                side,
            ]));
            let output = self.model.network.forward(&input);
            let policy = self
                .index
                .move_logits(&output.policy)?
                .softmax(-1, Kind::Float);
            let wdl = output
                .wdl_logits
                .to_kind(Kind::Float)
                .softmax(-1, Kind::Float);
            let moves_left = output.moves_left.to_kind(Kind::Float) * MOVES_LEFT_SCALE;
            let material = output.material.to_kind(Kind::Float) * MATERIAL_SCALE;
            let to_vec = |t: Tensor| {
                Vec::<f32>::try_from(t.to_device(tch::Device::Cpu).contiguous().view([-1]))
            };
            Ok((
                to_vec(policy)?,
                to_vec(wdl)?,
                to_vec(moves_left)?,
                to_vec(material)?,
            ))
        })?;
        let width = self.index.max_moves();
        out.reserve(n);
        for (i, &count) in self.index.move_counts().iter().enumerate() {
            out.push(Evaluation {
                policy: policy[i * width..i * width + count].to_vec(),
                wdl: [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]],
                moves_left: moves_left[i],
                material: material[i],
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_can_move_to_its_evaluation_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<InferenceModel>();
        assert_send::<Model>();
    }

    #[test]
    fn an_empty_batch_evaluates_to_nothing() {
        let runtime = RuntimeConfig {
            device: crate::DeviceSpec::Cpu,
            precision: crate::Precision::Float32,
            channels_last: None,
        };
        let mut model = InferenceModel::new(&ModelConfig::tiny(), &runtime).unwrap();
        let mut out = Vec::new();
        model.evaluate(&[], &mut out).unwrap();
        assert!(out.is_empty());
        assert!(model.evaluate_encoded(&[0.0; 3], &[], &mut out).is_err());
    }
}
