//! From the dense policy output to one logit per legal move, on the device.
//!
//! A batch's legal moves are flattened into two index tensors: for every leg, where its entry
//! sits in the policy output's storage and which (position, move) slot it adds to. One
//! `index_select` + one `index_add` then give a `[N, max_moves]` matrix of move logits (padding
//! slots hold a large negative number so that softmax gives them zero). Only that matrix ever
//! leaves the device; the `N × POLICY_PLANES × 361` output never does. The same code serves
//! inference and the training loss (it is differentiable).

use tch::{Device, Kind, Tensor};

use crate::error::NnError;
use crate::geometry::POINTS;
use crate::move_encoding::{MoveLegs, POLICY_PLANES};

/// Logit given to padding slots (finite, so that `0 · log p` stays 0 in the loss).
pub const PADDING_LOGIT: f32 = -1.0e9;

/// Host-side index of a batch's legal moves, reusable across batches (no reallocation once
/// grown).
#[derive(Clone, Debug, Default)]
pub struct LegalMoveIndex {
    /// Per leg: (position, entry plane·361+point).
    legs: Vec<(u32, u32)>,
    /// Per leg: slot position·max + move index, filled by `finish`.
    leg_move: Vec<(u32, u32)>,
    move_counts: Vec<usize>,
}

impl LegalMoveIndex {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.legs.clear();
        self.leg_move.clear();
        self.move_counts.clear();
    }

    /// Appends the next position's legal moves (in the order their probabilities are wanted).
    pub fn push_position(&mut self, moves: &[MoveLegs]) {
        let position = self.move_counts.len() as u32;
        for (m, legs) in moves.iter().enumerate() {
            for entry in legs.iter() {
                self.legs.push((position, entry));
                self.leg_move.push((position, m as u32));
            }
        }
        self.move_counts.push(moves.len());
    }

    pub fn positions(&self) -> usize {
        self.move_counts.len()
    }

    /// Legal moves of each position.
    pub fn move_counts(&self) -> &[usize] {
        &self.move_counts
    }

    /// The widest position's move count (the padded row length).
    pub fn max_moves(&self) -> usize {
        self.move_counts.iter().copied().max().unwrap_or(0).max(1)
    }

    /// Builds the device tensors for gathering from a policy output with the given strides
    /// (`[N, P, H, W]` strides of the tensor the gather will read; NCHW and channels-last both
    /// work).
    fn device_index(&self, policy_strides: &[i64], device: Device) -> DeviceMoveIndex {
        let width = self.max_moves() as i64;
        let (sn, sc, sh, sw) = (
            policy_strides[0],
            policy_strides[1],
            policy_strides[2],
            policy_strides[3],
        );
        let side = crate::geometry::BOARD_SIZE as i64;
        let storage_offsets: Vec<i64> = self
            .legs
            .iter()
            .map(|&(n, entry)| {
                let (plane, point) = (
                    (entry as usize / POINTS) as i64,
                    (entry as usize % POINTS) as i64,
                );
                n as i64 * sn + plane * sc + (point / side) * sh + (point % side) * sw
            })
            .collect();
        let slots: Vec<i64> = self
            .leg_move
            .iter()
            .map(|&(n, m)| n as i64 * width + m as i64)
            .collect();
        let mut base = vec![PADDING_LOGIT; self.positions() * width as usize];
        for (n, &count) in self.move_counts.iter().enumerate() {
            base[n * width as usize..n * width as usize + count].fill(0.0);
        }
        DeviceMoveIndex {
            storage_offsets: Tensor::from_slice(&storage_offsets).to_device(device),
            slots: Tensor::from_slice(&slots).to_device(device),
            base: Tensor::from_slice(&base)
                .view([self.positions() as i64, width])
                .to_device(device),
        }
    }

    /// `[N, max_moves]` float32 move logits (padding = [`PADDING_LOGIT`]) from a policy output
    /// `[N, POLICY_PLANES, 19, 19]` of any kind and dense layout; differentiable.
    pub fn move_logits(&self, policy: &Tensor) -> Result<Tensor, NnError> {
        let size = policy.size();
        if size.len() != 4 || size[0] != self.positions() as i64 || size[1] != POLICY_PLANES as i64
        {
            return Err(NnError::BadBatch(format!(
                "policy output of shape {size:?} for {} positions with {POLICY_PLANES} planes",
                self.positions()
            )));
        }
        // A dense tensor (NCHW or NHWC) is read through a flat view of its memory; anything
        // else is made contiguous first. The view is a reshape of the memory-order permutation,
        // not `as_strided`, whose generic backward pass doubled the gather's cost (gather and
        // backward of a 256-position batch on 2 cores: 165 ms → 83 ms).
        let dense = if policy.is_contiguous() || is_channels_last(&size, &policy.stride()) {
            policy.shallow_clone()
        } else {
            policy.contiguous()
        };
        let index = self.device_index(&dense.stride(), dense.device());
        let flat = if dense.is_contiguous() {
            dense.view([-1])
        } else {
            dense.permute([0, 2, 3, 1]).view([-1])
        };
        let gathered = flat
            .index_select(0, &index.storage_offsets)
            .to_kind(Kind::Float);
        let logits = index.base.view([-1]).index_add(0, &index.slots, &gathered);
        Ok(logits.view([self.positions() as i64, self.max_moves() as i64]))
    }
}

/// Whether a `[N, C, H, W]` tensor with these strides is dense channels-last (NHWC) memory.
fn is_channels_last(size: &[i64], strides: &[i64]) -> bool {
    let (c, h, w) = (size[1], size[2], size[3]);
    strides == [h * w * c, 1, w * c, c]
}

/// The device-side tensors of a [`LegalMoveIndex`].
struct DeviceMoveIndex {
    storage_offsets: Tensor,
    slots: Tensor,
    base: Tensor,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::to_channels_last;

    fn legs(entries: &[u32]) -> MoveLegs {
        MoveLegs::from_entries(entries).unwrap()
    }

    #[test]
    fn move_logit_is_the_sum_of_its_legs_in_both_layouts() {
        let policy = Tensor::randn(
            [2, POLICY_PLANES as i64, 19, 19],
            (Kind::Float, Device::Cpu),
        );
        let flat: Vec<f32> = Vec::try_from(policy.view([-1])).unwrap();
        let per_position = POLICY_PLANES * POINTS;
        let moves0 = [legs(&[5]), legs(&[7, 900, 50_000])];
        let moves1 = [legs(&[107_000]), legs(&[3, 4]), legs(&[1_000])];
        let mut index = LegalMoveIndex::new();
        index.push_position(&moves0);
        index.push_position(&moves1);
        for layout in [policy.shallow_clone(), to_channels_last(&policy)] {
            let logits = index.move_logits(&layout).unwrap();
            assert_eq!(logits.size(), vec![2, 3]);
            let got: Vec<f32> = Vec::try_from(logits.view([-1])).unwrap();
            let expect = |n: usize, l: &MoveLegs| {
                l.iter()
                    .map(|e| flat[n * per_position + e as usize])
                    .sum::<f32>()
            };
            assert!((got[0] - expect(0, &moves0[0])).abs() < 1e-5);
            assert!((got[1] - expect(0, &moves0[1])).abs() < 1e-5);
            assert_eq!(got[2], PADDING_LOGIT);
            for (m, l) in moves1.iter().enumerate() {
                assert!((got[3 + m] - expect(1, l)).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn gradients_flow_to_exactly_the_used_entries() {
        let policy = Tensor::zeros(
            [1, POLICY_PLANES as i64, 19, 19],
            (Kind::Float, Device::Cpu),
        )
        .set_requires_grad(true);
        let mut index = LegalMoveIndex::new();
        index.push_position(&[legs(&[10, 20]), legs(&[30])]);
        let logits = index.move_logits(&policy).unwrap();
        logits.sum(Kind::Float).backward();
        let grad = policy.grad().view([-1]);
        assert_eq!(grad.sum(Kind::Float).double_value(&[]), 3.0);
        for e in [10, 20, 30] {
            assert_eq!(grad.double_value(&[e]), 1.0);
        }
    }

    #[test]
    fn mismatched_batch_is_an_error() {
        let policy = Tensor::zeros(
            [2, POLICY_PLANES as i64, 19, 19],
            (Kind::Float, Device::Cpu),
        );
        let mut index = LegalMoveIndex::new();
        index.push_position(&[legs(&[1])]);
        assert!(index.move_logits(&policy).is_err());
    }
}
