//! The losses the trainer minimises, computed on the float32 master network for one batch.
//!
//! The policy target is sparse (a few visited moves out of hundreds of legal ones), given per
//! sample as (index into that sample's legal move list, probability) pairs; the cross-entropy is
//! taken over the sample's legal moves only, through the same gather as inference. The trainer
//! owns the optimiser (exact resume needs optimiser state tch cannot save); this module only
//! builds batches and returns differentiable losses.

use tch::{Device, Kind, Reduction, Tensor};

use crate::error::NnError;
use crate::features::{FEATURE_LEN, INPUT_PLANES};
use crate::geometry::BOARD_SIZE;
use crate::model::{Network, MATERIAL_SCALE, MOVES_LEFT_SCALE};
use crate::move_encoding::MoveLegs;
use crate::move_gather::LegalMoveIndex;

/// Targets of one training sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleTargets<'a> {
    /// (index into the sample's legal moves, probability); probabilities should sum to 1.
    pub policy: &'a [(u32, f32)],
    /// Weight of the policy term for this sample (0 for positions searched too little to be a
    /// policy target, as with playout cap randomisation).
    pub policy_weight: f32,
    /// Game outcome (or a mix with search values) as win/draw/loss probabilities for the side to
    /// move.
    pub wdl: [f32; 3],
    /// Remaining plies until the game ended.
    pub moves_left: f32,
    /// Final material balance (mover minus opponent).
    pub material: f32,
}

/// Relative weights of the loss terms.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LossWeights {
    pub policy: f64,
    pub value: f64,
    pub moves_left: f64,
    pub material: f64,
}

impl Default for LossWeights {
    fn default() -> Self {
        LossWeights {
            policy: 1.0,
            value: 1.0,
            moves_left: 0.1,
            material: 0.1,
        }
    }
}

/// Accumulates samples on the host; [`TrainingBatchBuilder::build`] moves them to the device.
#[derive(Clone, Debug, Default)]
pub struct TrainingBatchBuilder {
    features: Vec<f32>,
    index: LegalMoveIndex,
    policy: Vec<(u32, u32, f32)>,
    policy_weight: Vec<f32>,
    wdl: Vec<f32>,
    moves_left: Vec<f32>,
    material: Vec<f32>,
}

impl TrainingBatchBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.policy_weight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.policy_weight.is_empty()
    }

    pub fn clear(&mut self) {
        self.features.clear();
        self.index.clear();
        self.policy.clear();
        self.policy_weight.clear();
        self.wdl.clear();
        self.moves_left.clear();
        self.material.clear();
    }

    /// Adds one sample: its encoded features ([`FEATURE_LEN`] values), the legs of its legal
    /// moves, and its targets.
    pub fn push(
        &mut self,
        features: &[f32],
        legal_moves: &[MoveLegs],
        targets: &SampleTargets<'_>,
    ) -> Result<(), NnError> {
        if features.len() != FEATURE_LEN {
            return Err(NnError::BadBatch(format!(
                "{} feature values, need {FEATURE_LEN}",
                features.len()
            )));
        }
        if let Some(&(bad, _)) = targets
            .policy
            .iter()
            .find(|&&(m, _)| m as usize >= legal_moves.len())
        {
            return Err(NnError::BadBatch(format!(
                "policy target names move {bad} of a position with {} legal moves",
                legal_moves.len()
            )));
        }
        let row = self.len() as u32;
        self.features.extend_from_slice(features);
        self.index.push_position(legal_moves);
        self.policy
            .extend(targets.policy.iter().map(|&(m, p)| (row, m, p)));
        self.policy_weight.push(targets.policy_weight);
        self.wdl.extend_from_slice(&targets.wdl);
        self.moves_left.push(targets.moves_left);
        self.material.push(targets.material);
        Ok(())
    }

    /// The batch as device tensors.
    pub fn build(&self, device: Device) -> TrainingBatch {
        let n = self.len() as i64;
        let side = BOARD_SIZE as i64;
        let width = self.index.max_moves();
        let mut policy_target = vec![0f32; self.len() * width];
        for &(row, m, p) in &self.policy {
            policy_target[row as usize * width + m as usize] += p;
        }
        let tensor = |v: &[f32]| Tensor::from_slice(v).to_device(device);
        TrainingBatch {
            features: tensor(&self.features).view([n, INPUT_PLANES as i64, side, side]),
            index: self.index.clone(),
            policy_target: tensor(&policy_target).view([n, width as i64]),
            policy_weight: tensor(&self.policy_weight),
            wdl: tensor(&self.wdl).view([n, 3]),
            moves_left: tensor(&self.moves_left),
            material: tensor(&self.material),
        }
    }
}

/// One batch on the device.
#[derive(Debug)]
pub struct TrainingBatch {
    pub features: Tensor,
    index: LegalMoveIndex,
    policy_target: Tensor,
    policy_weight: Tensor,
    wdl: Tensor,
    moves_left: Tensor,
    material: Tensor,
}

impl TrainingBatch {
    pub fn len(&self) -> usize {
        self.index.positions()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The loss terms of one batch (scalar tensors; `total` is the one to back-propagate).
#[derive(Debug)]
pub struct Losses {
    pub total: Tensor,
    /// Policy cross-entropy over legal moves (weighted mean over the batch).
    pub policy: Tensor,
    /// WDL cross-entropy.
    pub value: Tensor,
    /// Huber loss of the scaled moves-left prediction.
    pub moves_left: Tensor,
    /// Huber loss of the scaled material prediction.
    pub material: Tensor,
    /// Mean entropy of the predicted policy over the legal moves (detached; for monitoring).
    pub policy_entropy: Tensor,
    /// Fraction of samples whose most likely predicted WDL outcome is the target's most likely
    /// one (detached; for monitoring).
    pub value_accuracy: Tensor,
}

impl Losses {
    /// The terms as plain numbers, for logging: (total, policy, value, moves_left, material).
    pub fn values(&self) -> [f64; 5] {
        [
            &self.total,
            &self.policy,
            &self.value,
            &self.moves_left,
            &self.material,
        ]
        .map(|t| t.double_value(&[]))
    }
}

/// Forward pass of `network` (float32, training mode) on `batch` and the weighted losses.
pub fn compute_losses(
    network: &Network,
    batch: &TrainingBatch,
    weights: &LossWeights,
) -> Result<Losses, NnError> {
    let output = network.forward(&batch.features);
    let log_policy = batch
        .index
        .move_logits(&output.policy)?
        .log_softmax(-1, Kind::Float);
    let per_sample_policy =
        -(&batch.policy_target * &log_policy).sum_dim_intlist(-1, false, Kind::Float);
    let n = batch.len() as f64;
    let policy = (per_sample_policy * &batch.policy_weight).sum(Kind::Float) / n;
    let log_wdl = output.wdl_logits.log_softmax(-1, Kind::Float);
    let value = -(&batch.wdl * log_wdl).sum(Kind::Float) / n;
    let moves_left = output.moves_left.huber_loss(
        &(&batch.moves_left / MOVES_LEFT_SCALE),
        Reduction::Mean,
        1.0,
    );
    let material =
        output
            .material
            .huber_loss(&(&batch.material / MATERIAL_SCALE), Reduction::Mean, 1.0);
    let total = &policy * weights.policy
        + &value * weights.value
        + &moves_left * weights.moves_left
        + &material * weights.material;
    // Monitoring only: no gradient.
    let (policy_entropy, value_accuracy) = tch::no_grad(|| {
        let entropy = -(log_policy.exp() * &log_policy).sum_dim_intlist(-1, false, Kind::Float);
        let hits = output
            .wdl_logits
            .argmax(-1, false)
            .eq_tensor(&batch.wdl.argmax(-1, false));
        (
            entropy.mean(Kind::Float),
            hits.to_kind(Kind::Float).mean(Kind::Float),
        )
    });
    Ok(Losses {
        total,
        policy,
        value,
        moves_left,
        material,
        policy_entropy,
        value_accuracy,
    })
}
