//! The resignation threshold chosen from the audit games, for a target false-resignation rate.
//!
//! A fixed threshold that is safe for one network is not for the next: a value head that grows
//! confident early resigns games it would not have lost (AB11 in docs/results.md: 6 of 20 checked
//! resignations false). With `selfplay.resign.max_false_rate` set, the pool keeps the audited
//! sides of its last `calibration_window` audit games (their resign depth and whether they lost,
//! [`crate::resign::AuditedSide`]) and resigns at the lowest threshold, not below the configured
//! one, at which at most that fraction of those would-be resignations were false. AlphaGo Zero
//! chose its resignation threshold the same way (5 %).
//!
//! The calibration lives with the process's pool: it starts again from the configured threshold
//! when a run resumes, and workers on other machines calibrate on their own audit games.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use crate::config::ResignConfig;
use crate::resign::AuditedSide;

/// The pool's resignation threshold, shared by its workers.
#[derive(Debug)]
pub struct ResignCalibration {
    floor: f32,
    max_false_rate: Option<f32>,
    window: usize,
    audited: Mutex<VecDeque<AuditedSide>>,
    /// The threshold in force, as `f32` bits (read at every move, so lock-free).
    threshold: AtomicU32,
}

impl ResignCalibration {
    /// Starts at the configured threshold; calibrates only with `max_false_rate` set.
    pub fn new(config: &ResignConfig) -> ResignCalibration {
        ResignCalibration {
            floor: config.threshold,
            max_false_rate: config.max_false_rate,
            window: config.calibration_window.max(1) as usize,
            audited: Mutex::new(VecDeque::new()),
            threshold: AtomicU32::new(config.threshold.to_bits()),
        }
    }

    /// The threshold in force: a side resigns when its value stays below minus this.
    pub fn threshold(&self) -> f32 {
        f32::from_bits(self.threshold.load(Ordering::Relaxed))
    }

    /// Adds an audit game's sides and recomputes the threshold; returns the threshold in force.
    /// Sides that could not resign at any allowed threshold (depth at or below the configured
    /// one) do not enter the window, so it holds only the cases the choice depends on.
    pub fn record(&self, sides: &[AuditedSide]) -> f32 {
        let Some(max_false_rate) = self.max_false_rate else {
            return self.threshold();
        };
        let mut audited = self.audited.lock().unwrap_or_else(|p| p.into_inner());
        for side in sides.iter().filter(|side| side.depth > self.floor) {
            if audited.len() == self.window {
                audited.pop_front();
            }
            audited.push_back(*side);
        }
        let threshold = calibrated_threshold(audited.make_contiguous(), self.floor, max_false_rate);
        self.threshold.store(threshold.to_bits(), Ordering::Relaxed);
        threshold
    }
}

/// The lowest threshold `t >= floor` at which, among the audited sides that would have resigned
/// (`depth > t`), at most `max_false_rate` did not lose. Always exists: at the greatest depth
/// nobody would resign.
pub fn calibrated_threshold(audited: &[AuditedSide], floor: f32, max_false_rate: f32) -> f32 {
    let mut sides: Vec<AuditedSide> = audited
        .iter()
        .copied()
        .filter(|side| side.depth > floor && side.depth.is_finite())
        .collect();
    // Deepest first: the would-be resigners at a threshold are a prefix of this order.
    sides.sort_by(|a, b| b.depth.total_cmp(&a.depth));
    // Walk the thresholds from the deepest side down: at each side's depth, the sides strictly
    // deeper resign. The last threshold whose false rate holds is the lowest (the rate need not
    // grow steadily as the threshold falls: right resignations below dilute a false one above).
    let mut best = sides.first().map_or(floor, |side| side.depth);
    let (mut resigning, mut wrong) = (0usize, 0usize);
    let mut i = 0;
    while i < sides.len() {
        // All sides of this depth join together once the threshold drops below it.
        let depth = sides[i].depth;
        while i < sides.len() && sides[i].depth == depth {
            resigning += 1;
            wrong += usize::from(!sides[i].lost);
            i += 1;
        }
        let below = sides.get(i).map_or(floor, |side| side.depth);
        if wrong as f64 <= f64::from(max_false_rate) * resigning as f64 {
            best = below;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(depth: f32, lost: bool) -> AuditedSide {
        AuditedSide { depth, lost }
    }

    /// The definition, by brute force over every candidate threshold.
    fn slow(audited: &[AuditedSide], floor: f32, max_false_rate: f32) -> f32 {
        let mut candidates: Vec<f32> = audited
            .iter()
            .map(|side| side.depth)
            .filter(|&depth| depth > floor)
            .collect();
        candidates.push(floor);
        candidates.sort_by(f32::total_cmp);
        for t in candidates {
            let resigning: Vec<_> = audited.iter().filter(|side| side.depth > t).collect();
            let wrong = resigning.iter().filter(|side| !side.lost).count();
            if wrong as f64 <= f64::from(max_false_rate) * resigning.len() as f64 {
                return t;
            }
        }
        unreachable!("at the greatest depth nobody resigns")
    }

    #[test]
    fn no_audits_or_only_right_ones_keep_the_configured_threshold() {
        assert_eq!(calibrated_threshold(&[], 0.9, 0.05), 0.9);
        let right = [side(0.95, true), side(0.99, true), side(0.5, false)];
        assert_eq!(calibrated_threshold(&right, 0.9, 0.05), 0.9);
    }

    #[test]
    fn a_false_resignation_raises_the_threshold_past_it() {
        // One false among three at 0.92: rate 1/3 > 5 %, so resign only above 0.92.
        let audited = [side(0.92, false), side(0.95, true), side(0.99, true)];
        assert_eq!(calibrated_threshold(&audited, 0.9, 0.05), 0.92);
        // Allowing a third, the configured threshold holds.
        assert_eq!(calibrated_threshold(&audited, 0.9, 0.34), 0.9);
        // Enough right resignations below dilute the false one: 1 of 21 is under 5 %.
        let mut diluted = vec![side(0.97, false)];
        diluted.extend((0..20).map(|i| side(0.91 + i as f32 / 1000.0, true)));
        assert_eq!(calibrated_threshold(&diluted, 0.9, 0.05), 0.9);
        // A false one at the top: nobody may resign (the threshold is the greatest depth).
        let top = [side(0.99, false), side(0.95, true)];
        assert_eq!(calibrated_threshold(&top, 0.9, 0.05), 0.99);
    }

    #[test]
    fn the_walk_agrees_with_the_definition() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..2000 {
            let n = rng.random_range(0..30);
            // Few distinct depths, so ties are common.
            let audited: Vec<AuditedSide> = (0..n)
                .map(|_| {
                    side(
                        f32::from(rng.random_range(80u8..100)) / 100.0,
                        rng.random_bool(0.8),
                    )
                })
                .collect();
            let floor = f32::from(rng.random_range(80u8..95)) / 100.0;
            let rate = [0.0, 0.05, 0.1, 0.3][rng.random_range(0..4)];
            assert_eq!(
                calibrated_threshold(&audited, floor, rate),
                slow(&audited, floor, rate),
                "{audited:?} floor {floor} rate {rate}"
            );
        }
    }

    fn config(max_false_rate: Option<f32>, window: u32) -> ResignConfig {
        ResignConfig {
            threshold: 0.9,
            max_false_rate,
            calibration_window: window,
            ..ResignConfig::default()
        }
    }

    #[test]
    fn the_pool_calibrates_over_its_window_and_only_when_asked() {
        let fixed = ResignCalibration::new(&config(None, 10));
        assert_eq!(fixed.record(&[side(0.95, false)]), 0.9);
        assert_eq!(fixed.threshold(), 0.9);

        let calibrated = ResignCalibration::new(&config(Some(0.05), 2));
        assert_eq!(calibrated.threshold(), 0.9);
        assert_eq!(calibrated.record(&[side(0.95, false)]), 0.95);
        // Too shallow to matter: not kept.
        assert_eq!(calibrated.record(&[side(0.5, false)]), 0.95);
        // Two right ones push the false one out of the window of two.
        assert_eq!(
            calibrated.record(&[side(0.97, true), side(0.98, true)]),
            0.9
        );
        assert_eq!(calibrated.threshold(), 0.9);
    }
}
