//! An exponential moving average of the trained weights, published for play (`train.ema_decay`).
//!
//! Why: a network taken right after an SGD step carries that step's noise; the average of the
//! last few hundred steps plays steadier. KataGo exports stochastic-weight-averaged networks
//! for self-play and lc0's trainer writes an averaged (SWA) network, while both keep training
//! the raw weights. Here the average is updated after every optimiser step,
//! `average ← d · average + (1 − d) · raw` with `d = min(decay, (1 + n) / (10 + n))` for the
//! `n`-th update (the bias-free warm start: early averages do not drag the random initial
//! network along for thousands of steps). Checkpoints store the average as the model that
//! self-play, the arena and export load, and the raw weights beside it (`raw_model.*`) so that
//! training resumes on them.

use std::collections::HashMap;

use koshogi_nn::{Model, NnError};
use tch::Tensor;

/// The largest accepted `train.ema_decay` (1 would never move).
pub const MAX_EMA_DECAY: f64 = 0.99999;

/// The decay of the `updates`-th update (counting from 0) under `decay`.
pub fn warm_decay(decay: f64, updates: u64) -> f64 {
    let n = updates as f64;
    decay.min((1.0 + n) / (10.0 + n))
}

/// The averaged copy of a network.
pub struct WeightAverage {
    decay: f64,
    updates: u64,
    average: Model,
}

impl WeightAverage {
    /// Starts an average at `raw`'s current weights (no update counted yet).
    pub fn start(decay: f64, raw: &Model) -> Result<Self, NnError> {
        let mut average = Model::new(raw.config(), raw.device())?;
        average.vs.copy(&raw.vs)?;
        Ok(Self {
            decay,
            updates: 0,
            average,
        })
    }

    /// Continues an average saved earlier: `average` holds its weights, `updates` its count.
    pub fn resume(decay: f64, average: Model, updates: u64) -> Self {
        Self {
            decay,
            updates,
            average,
        }
    }

    /// Moves the average toward `raw` by one update.
    pub fn update(&mut self, raw: &Model) -> Result<(), NnError> {
        let d = warm_decay(self.decay, self.updates);
        let raw_vars: HashMap<String, Tensor> = raw.vs.variables();
        tch::no_grad(|| -> Result<(), NnError> {
            for (name, mut var) in self.average.vs.variables() {
                let Some(source) = raw_vars.get(&name) else {
                    return Err(NnError::InvalidConfig(format!(
                        "the averaged network has {name}, the trained one lacks it"
                    )));
                };
                let _ = var.f_lerp_(source, 1.0 - d)?;
            }
            Ok(())
        })?;
        self.updates += 1;
        Ok(())
    }

    /// Updates made so far (saved with the trainer state).
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Sets how the averaged network's value is read (what its checkpoint card says).
    pub fn set_material_utility(&mut self, weight: f32) {
        self.average.set_material_utility(weight);
    }

    /// The averaged network.
    pub fn model(&self) -> &Model {
        &self.average
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_start_caps_the_decay_early_and_reaches_the_configured_one() {
        assert!((warm_decay(0.999, 0) - 0.1).abs() < 1e-12);
        assert!((warm_decay(0.999, 10) - 11.0 / 20.0).abs() < 1e-12);
        assert_eq!(warm_decay(0.99, 100_000), 0.99);
        assert!((warm_decay(0.5, 5) - 0.4).abs() < 1e-12);
        assert_eq!(warm_decay(0.5, 20), 0.5);
    }
}
