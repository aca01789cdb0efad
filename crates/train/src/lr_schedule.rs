//! The learning rate as a pure function of the optimiser step.
//!
//! Being a function of the step alone (no internal state) is what makes resume exact: a restored
//! step number restores the schedule. A linear warm-up protects the freshly initialised network
//! from large early updates; after it the rate stays constant, follows a cosine to a floor, or
//! drops by a factor at given steps.

use serde::{Deserialize, Serialize};

/// How the rate evolves after the warm-up (`[train.schedule]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LrScheduleConfig {
    /// Steps over which the rate rises linearly from `base/warmup_steps` to `base` (0 = none).
    pub warmup_steps: u64,
    pub decay: LrDecay,
    /// Cosine: the step at which the floor is reached (0 = use `train.steps`).
    pub total_steps: u64,
    /// Cosine: the floor as a fraction of the base rate.
    pub min_factor: f64,
    /// Step decay: the rate is multiplied by `gamma` at each of these steps.
    pub milestones: Vec<u64>,
    pub gamma: f64,
}

impl Default for LrScheduleConfig {
    fn default() -> Self {
        Self {
            warmup_steps: 100,
            decay: LrDecay::Constant,
            total_steps: 0,
            min_factor: 0.05,
            milestones: Vec::new(),
            gamma: 0.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrDecay {
    Constant,
    Cosine,
    Step,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LrScheduleError {
    #[error("the cosine schedule needs train.schedule.total_steps or train.steps")]
    CosineWithoutLength,
    #[error("train.schedule.min_factor must be in [0, 1], got {0}")]
    MinFactor(f64),
    #[error("train.schedule.gamma must be in (0, 1], got {0}")]
    Gamma(f64),
    #[error("train.schedule.milestones must be strictly increasing")]
    Milestones,
    #[error("the learning rate must be positive and finite, got {0}")]
    BaseRate(f64),
}

/// A validated schedule around a base learning rate.
#[derive(Debug, Clone, PartialEq)]
pub struct LrSchedule {
    base_lr: f64,
    config: LrScheduleConfig,
}

impl LrSchedule {
    /// `default_total_steps` (normally `train.steps`) stands in for a cosine length of 0.
    pub fn new(
        base_lr: f64,
        config: &LrScheduleConfig,
        default_total_steps: Option<u64>,
    ) -> Result<Self, LrScheduleError> {
        if !(base_lr > 0.0 && base_lr.is_finite()) {
            return Err(LrScheduleError::BaseRate(base_lr));
        }
        let mut config = config.clone();
        match config.decay {
            LrDecay::Constant => {}
            LrDecay::Cosine => {
                if config.total_steps == 0 {
                    config.total_steps = default_total_steps.unwrap_or(0);
                }
                if config.total_steps == 0 {
                    return Err(LrScheduleError::CosineWithoutLength);
                }
                if !(0.0..=1.0).contains(&config.min_factor) {
                    return Err(LrScheduleError::MinFactor(config.min_factor));
                }
            }
            LrDecay::Step => {
                if !(config.gamma > 0.0 && config.gamma <= 1.0) {
                    return Err(LrScheduleError::Gamma(config.gamma));
                }
                if config.milestones.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(LrScheduleError::Milestones);
                }
            }
        }
        Ok(Self { base_lr, config })
    }

    /// The rate for the update that takes the weights from `step` to `step + 1` (0-based).
    pub fn lr_at(&self, step: u64) -> f64 {
        self.base_lr * self.warmup_factor(step) * self.decay_factor(step)
    }

    fn warmup_factor(&self, step: u64) -> f64 {
        let warmup = self.config.warmup_steps;
        if step >= warmup {
            1.0
        } else {
            (step + 1) as f64 / warmup as f64
        }
    }

    fn decay_factor(&self, step: u64) -> f64 {
        match self.config.decay {
            LrDecay::Constant => 1.0,
            LrDecay::Cosine => {
                let start = self.config.warmup_steps;
                let end = self.config.total_steps;
                let span = end.saturating_sub(start);
                let progress = if span == 0 {
                    if step >= end {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    (step.saturating_sub(start) as f64 / span as f64).min(1.0)
                };
                let floor = self.config.min_factor;
                floor + (1.0 - floor) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
            }
            LrDecay::Step => {
                let passed = self
                    .config
                    .milestones
                    .iter()
                    .filter(|&&m| step >= m)
                    .count();
                self.config.gamma.powi(passed as i32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn warmup_rises_linearly_to_the_base_rate() {
        let config = LrScheduleConfig {
            warmup_steps: 4,
            ..Default::default()
        };
        let s = LrSchedule::new(0.1, &config, None).unwrap();
        let rates: Vec<f64> = (0..6).map(|t| s.lr_at(t)).collect();
        let expected = [0.025, 0.05, 0.075, 0.1, 0.1, 0.1];
        for (r, e) in rates.iter().zip(expected) {
            assert!(close(*r, e), "{rates:?}");
        }
    }

    #[test]
    fn cosine_reaches_half_way_and_the_floor() {
        let config = LrScheduleConfig {
            warmup_steps: 10,
            decay: LrDecay::Cosine,
            total_steps: 110,
            min_factor: 0.1,
            ..Default::default()
        };
        let s = LrSchedule::new(1.0, &config, None).unwrap();
        assert!(close(s.lr_at(10), 1.0));
        // Half-way through the decay the cosine term is 1/2: 0.1 + 0.9 * 0.5.
        assert!(close(s.lr_at(60), 0.55));
        assert!(close(s.lr_at(110), 0.1));
        assert!(close(s.lr_at(10_000), 0.1));
        // Strictly decreasing inside the decay.
        assert!((11..110).all(|t| s.lr_at(t) < s.lr_at(t - 1)));
    }

    #[test]
    fn cosine_takes_its_length_from_the_run_when_unset() {
        let config = LrScheduleConfig {
            warmup_steps: 0,
            decay: LrDecay::Cosine,
            min_factor: 0.0,
            ..Default::default()
        };
        assert_eq!(
            LrSchedule::new(1.0, &config, None),
            Err(LrScheduleError::CosineWithoutLength)
        );
        let s = LrSchedule::new(1.0, &config, Some(100)).unwrap();
        assert!(close(s.lr_at(50), 0.5));
        assert!(close(s.lr_at(100), 0.0));
    }

    #[test]
    fn step_decay_multiplies_at_each_milestone() {
        let config = LrScheduleConfig {
            warmup_steps: 0,
            decay: LrDecay::Step,
            milestones: vec![100, 300],
            gamma: 0.5,
            ..Default::default()
        };
        let s = LrSchedule::new(0.2, &config, None).unwrap();
        assert!(close(s.lr_at(99), 0.2));
        assert!(close(s.lr_at(100), 0.1));
        assert!(close(s.lr_at(299), 0.1));
        assert!(close(s.lr_at(300), 0.05));
    }

    #[test]
    fn bad_configurations_are_rejected() {
        let unsorted = LrScheduleConfig {
            decay: LrDecay::Step,
            milestones: vec![300, 100],
            ..Default::default()
        };
        assert_eq!(
            LrSchedule::new(0.1, &unsorted, None),
            Err(LrScheduleError::Milestones)
        );
        assert_eq!(
            LrSchedule::new(-1.0, &LrScheduleConfig::default(), None),
            Err(LrScheduleError::BaseRate(-1.0))
        );
    }
}
