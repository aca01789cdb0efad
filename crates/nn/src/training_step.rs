//! The losses the trainer minimises for one batch, computed on the float32 master network or on
//! a bfloat16 working copy of it.
//!
//! The policy target is sparse (a few visited moves out of hundreds of legal ones), given per
//! sample as (index into that sample's legal move list, probability) pairs; the cross-entropy is
//! taken over the sample's legal moves only, through the same gather as inference. Listed
//! probabilities may sum to less than 1: the remainder is the target mass of the unlisted legal
//! moves *as a group* (see [`policy_cross_entropy`]). The trainer
//! owns the optimiser (exact resume needs optimiser state tch cannot save); this module only
//! builds batches and returns differentiable losses.

use tch::{Device, Kind, Reduction, Tensor};

use crate::config::ResolvedRuntime;
use crate::error::NnError;
use crate::features::{FEATURE_LEN, INPUT_PLANES};
use crate::geometry::BOARD_SIZE;
use crate::model::{Network, MATERIAL_SCALE, MOVES_LEFT_SCALE};
use crate::move_encoding::MoveLegs;
use crate::move_gather::LegalMoveIndex;

/// Targets of one training sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleTargets<'a> {
    /// (index into the sample's legal moves, probability); probabilities sum to at most 1, and
    /// the remainder is the target mass of all unlisted legal moves together.
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
    /// Per sample: 1 minus the listed probabilities (never negative).
    policy_rest: Vec<f32>,
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
        self.policy_rest.clear();
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
        let listed: f32 = targets.policy.iter().map(|&(_, p)| p).sum();
        let rest = if targets.policy.is_empty() {
            0.0
        } else {
            (1.0 - listed).max(0.0)
        };
        self.policy_rest.push(rest);
        self.policy_weight.push(targets.policy_weight);
        self.wdl.extend_from_slice(&targets.wdl);
        self.moves_left.push(targets.moves_left);
        self.material.push(targets.material);
        Ok(())
    }

    /// The value targets pushed so far, one (win, draw, loss) per sample.
    pub fn wdl_targets(&self) -> Vec<[f32; 3]> {
        self.wdl
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect()
    }

    /// The material targets pushed so far, one per sample.
    pub fn material_targets(&self) -> &[f32] {
        &self.material
    }

    /// The batch as device tensors, features in float32.
    pub fn build(&self, device: Device) -> TrainingBatch {
        self.build_for(&ResolvedRuntime::float32(device))
    }

    /// The batch as tensors on `runtime`'s device with the features already in its kind and
    /// layout (the targets stay float32), so that the prefetch thread, not the training step,
    /// pays for converting them for a bfloat16 channels-last network.
    pub fn build_for(&self, runtime: &ResolvedRuntime) -> TrainingBatch {
        let device = runtime.device;
        let n = self.len() as i64;
        let side = BOARD_SIZE as i64;
        let width = self.index.max_moves();
        let mut policy_target = vec![0f32; self.len() * width];
        let mut policy_listed = vec![0f32; self.len() * width];
        for &(row, m, p) in &self.policy {
            policy_target[row as usize * width + m as usize] += p;
            policy_listed[row as usize * width + m as usize] = 1.0;
        }
        let tensor = |v: &[f32]| Tensor::from_slice(v).to_device(device);
        TrainingBatch {
            features: runtime.prepare_input(&Tensor::from_slice(&self.features).view([
                n,
                INPUT_PLANES as i64,
                side,
                side,
            ])),
            index: self.index.clone(),
            policy_target: tensor(&policy_target).view([n, width as i64]),
            policy_listed: tensor(&policy_listed).view([n, width as i64]),
            policy_rest: tensor(&self.policy_rest),
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
    /// 1 where the target lists the move, else 0.
    policy_listed: Tensor,
    policy_rest: Tensor,
    policy_weight: Tensor,
    wdl: Tensor,
    moves_left: Tensor,
    material: Tensor,
}

impl TrainingBatch {
    pub fn len(&self) -> usize {
        self.index.positions()
    }

    /// The same batch with its features in `runtime`'s kind and layout (the targets are shared,
    /// not copied): one batch for networks of different precisions.
    pub fn converted_for(&self, runtime: &ResolvedRuntime) -> TrainingBatch {
        TrainingBatch {
            features: runtime.prepare_input(&self.features),
            index: self.index.clone(),
            policy_target: self.policy_target.shallow_clone(),
            policy_listed: self.policy_listed.shallow_clone(),
            policy_rest: self.policy_rest.shallow_clone(),
            policy_weight: self.policy_weight.shallow_clone(),
            wdl: self.wdl.shallow_clone(),
            moves_left: self.moves_left.shallow_clone(),
            material: self.material.shallow_clone(),
        }
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

/// Per-sample policy cross-entropy against a sparse target: `listed` marks the moves the
/// target names with probability `target`, and `rest` is the target mass of the other legal
/// moves taken together, scored against the predicted mass of that group:
/// `-sum_listed t log p - rest * log(sum_unlisted p)`.
///
/// Why a group: a search with a handful of simulations says nothing about the moves it did not
/// try beyond their total share (their improved-policy weights are the prior's, rescaled). A
/// target cut to its heaviest moves and renormalised would instead tell the network to move that
/// share onto whatever it already rated highest, and the policy collapses onto its own favourite
/// moves (this happened: passes took 79 % of a trained network's moves).
pub fn policy_cross_entropy(
    log_policy: &Tensor,
    target: &Tensor,
    listed: &Tensor,
    rest: &Tensor,
) -> Tensor {
    let listed_term = -(target * log_policy).sum_dim_intlist(-1, false, Kind::Float);
    // log of the predicted mass of the unlisted legal moves; padding slots are already at
    // PADDING_LOGIT, listed moves are pushed as far down. Clamped so that a target listing every
    // legal move (rest = 0) cannot produce 0 * -inf.
    let unlisted_log_mass = (log_policy + listed * f64::from(crate::move_gather::PADDING_LOGIT))
        .logsumexp([-1i64].as_slice(), false)
        .clamp_min(-30.0);
    listed_term - rest * unlisted_log_mass
}

/// Forward pass of `network` on `batch` and the weighted losses.
///
/// The network may be a bfloat16 working copy (see [`crate::working_copy`]): the features are
/// converted to its kind if the batch was built for another, and the heads' outputs are cast to
/// float32 before any softmax or Huber loss, so the losses and their first gradients are
/// float32 whatever precision the trunk ran in.
pub fn compute_losses(
    network: &Network,
    batch: &TrainingBatch,
    weights: &LossWeights,
) -> Result<Losses, NnError> {
    let output = network.forward(&batch.features.f_to_kind(network.kind())?);
    let wdl_logits = output.wdl_logits.to_kind(Kind::Float);
    let log_policy = batch
        .index
        .move_logits(&output.policy)?
        .log_softmax(-1, Kind::Float);
    let per_sample_policy = policy_cross_entropy(
        &log_policy,
        &batch.policy_target,
        &batch.policy_listed,
        &batch.policy_rest,
    );
    let n = batch.len() as f64;
    // The mean over the rows that have a policy target: with playout cap randomisation most
    // rows have none, and dividing by the whole batch would weigh the policy at the share of
    // full searches (a quarter of the value's weight in cpu.toml) whatever `weights.policy` says.
    let policy_rows = batch.policy_weight.sum(Kind::Float).clamp_min(1.0);
    let policy = (per_sample_policy * &batch.policy_weight).sum(Kind::Float) / policy_rows;
    let log_wdl = wdl_logits.log_softmax(-1, Kind::Float);
    let value = -(&batch.wdl * log_wdl).sum(Kind::Float) / n;
    let moves_left = output.moves_left.to_kind(Kind::Float).huber_loss(
        &(&batch.moves_left / MOVES_LEFT_SCALE),
        Reduction::Mean,
        1.0,
    );
    let material = output.material.to_kind(Kind::Float).huber_loss(
        &(&batch.material / MATERIAL_SCALE),
        Reduction::Mean,
        1.0,
    );
    let total = &policy * weights.policy
        + &value * weights.value
        + &moves_left * weights.moves_left
        + &material * weights.material;
    // Monitoring only: no gradient.
    let (policy_entropy, value_accuracy) = tch::no_grad(|| {
        let entropy = -(log_policy.exp() * &log_policy).sum_dim_intlist(-1, false, Kind::Float);
        let hits = wdl_logits
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[f32]) -> Tensor {
        Tensor::from_slice(values).view([1, values.len() as i64])
    }

    fn loss(probabilities: &[f32], target: &[f32], listed: &[f32], rest: f32) -> f64 {
        let log_policy = row(probabilities).log();
        policy_cross_entropy(
            &log_policy,
            &row(target),
            &row(listed),
            &Tensor::from_slice(&[rest]),
        )
        .double_value(&[0])
    }

    #[test]
    fn the_rest_of_the_target_scores_the_unlisted_moves_as_a_group() {
        // Target: move 0 at 0.5, the other 0.5 on moves 1..3 together.
        let listed = [1.0, 0.0, 0.0, 0.0];
        let target = [0.5, 0.0, 0.0, 0.0];
        let p = [0.2, 0.5, 0.2, 0.1];
        let expected = -(0.5 * 0.2f64.ln() + 0.5 * 0.8f64.ln());
        assert!((loss(&p, &target, &listed, 0.5) - expected).abs() < 1e-5);
        // How the group's mass is spread inside it does not matter ...
        let q = [0.2, 0.1, 0.1, 0.6];
        assert!((loss(&q, &target, &listed, 0.5) - expected).abs() < 1e-5);
        // ... but the group's total does: the minimum is at p(move 0) = 0.5.
        let best = loss(&[0.5, 0.3, 0.1, 0.1], &target, &listed, 0.5);
        assert!(best < expected - 0.05);
        assert!(best < loss(&[0.6, 0.2, 0.1, 0.1], &target, &listed, 0.5));
    }

    /// The property the group term exists for: a search that learned nothing (target = the
    /// network's own policy, cut to its heaviest moves) must leave the network where it is. A
    /// renormalised cut target would push it towards its favourites.
    #[test]
    fn the_networks_own_policy_cut_to_its_top_moves_is_a_fixed_point() {
        let logits = Tensor::from_slice(&[1.5f32, 1.0, 0.2, -0.3, -1.0])
            .view([1, 5])
            .set_requires_grad(true);
        let p: Vec<f32> =
            Vec::try_from(logits.softmax(-1, Kind::Float).view([-1]).detach()).unwrap();
        let listed = [1.0, 1.0, 0.0, 0.0, 0.0];
        let gradient = |target: [f32; 5], rest: f32| {
            let loss = policy_cross_entropy(
                &logits.log_softmax(-1, Kind::Float),
                &row(&target),
                &row(&listed),
                &Tensor::from_slice(&[rest]),
            );
            let grads = Tensor::run_backward(&[loss.sum(Kind::Float)], &[&logits], false, false);
            let grad: Vec<f32> = Vec::try_from(grads[0].view([-1])).unwrap();
            grad.iter().map(|g| g.abs()).fold(0.0f32, f32::max)
        };
        let kept = p[0] + p[1];
        assert!(gradient([p[0], p[1], 0.0, 0.0, 0.0], 1.0 - kept) < 1e-6);
        assert!(gradient([p[0] / kept, p[1] / kept, 0.0, 0.0, 0.0], 0.0) > 0.05);
    }

    #[test]
    fn a_complete_target_is_the_plain_cross_entropy() {
        let p = [0.7, 0.2, 0.1];
        let target = [0.6, 0.4, 0.0];
        let expected = -(0.6 * 0.7f64.ln() + 0.4 * 0.2f64.ln());
        assert!((loss(&p, &target, &[1.0, 1.0, 0.0], 0.0) - expected).abs() < 1e-5);
        // Every move listed, nothing left for the group: finite, no 0 * -inf.
        let all = loss(&p, &[0.6, 0.4, 0.0], &[1.0, 1.0, 1.0], 0.0);
        assert!((all - expected).abs() < 1e-5);
    }

    #[test]
    fn the_builder_gives_the_unlisted_moves_what_the_listed_ones_leave() {
        let legs = vec![MoveLegs::default(); 4];
        let features = vec![0f32; FEATURE_LEN];
        let mut builder = TrainingBatchBuilder::new();
        for policy in [&[(0u32, 0.25f32), (2, 0.5)][..], &[(1, 0.5), (3, 0.5)], &[]] {
            let targets = SampleTargets {
                policy,
                policy_weight: 1.0,
                wdl: [1.0, 0.0, 0.0],
                moves_left: 0.0,
                material: 0.0,
            };
            builder.push(&features, &legs, &targets).unwrap();
        }
        assert_eq!(builder.policy_rest, vec![0.25, 0.0, 0.0]);
        let batch = builder.build(Device::Cpu);
        let listed: Vec<f32> = Vec::try_from(batch.policy_listed.view([-1])).unwrap();
        assert_eq!(listed, vec![1., 0., 1., 0., 0., 1., 0., 1., 0., 0., 0., 0.]);
    }
}
