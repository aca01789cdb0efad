//! How many of the most recent positions the trainer samples from.
//!
//! Early in a run the data is produced by weak networks and goes stale quickly, so the window
//! must be small; later it should grow so that the network does not overfit the last few games.
//! KataGo's shuffler uses a power law of the total number of rows produced so far,
//! `window(N) = c · (1 + β · ((N/c)^α − 1) / α)` for `N ≥ c` (and all rows below `c`), which
//! grows like `N^α` (sub-linearly) and has slope 1 at `N = c`. This module is only that
//! arithmetic; [`crate::sampler`] applies it to the shards.

use serde::{Deserialize, Serialize};

/// Parameters of the power-law window (`[train.window]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WindowConfig {
    /// `c`: below this many rows every row is in the window; also the scale of the power law.
    pub min_rows: u64,
    /// `α` in (0, 1]: the exponent; 1 makes the window keep every row.
    pub alpha: f64,
    /// `β` > 0: how fast the window grows beyond `c` (the slope at `N = c` is `β`).
    pub beta: f64,
    /// Hard upper bound on the window (0 = none), like KataGo's `-keep-target-rows`.
    pub max_rows: u64,
}

impl Default for WindowConfig {
    /// KataGo's published values (c = 250k, α = 0.75, β = 0.4) are for GPU-scale runs; the
    /// default here is scaled for a 2-core machine where a run produces 10⁴–10⁶ positions.
    fn default() -> Self {
        Self {
            min_rows: 20_000,
            alpha: 0.75,
            beta: 0.4,
            max_rows: 0,
        }
    }
}

/// A window configuration that cannot describe a window.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum WindowConfigError {
    #[error("train.window.min_rows must be at least 1")]
    ZeroMinRows,
    #[error("train.window.alpha must be in (0, 1], got {0}")]
    Alpha(f64),
    #[error("train.window.beta must be positive and finite, got {0}")]
    Beta(f64),
}

impl WindowConfig {
    pub fn validate(&self) -> Result<(), WindowConfigError> {
        if self.min_rows == 0 {
            return Err(WindowConfigError::ZeroMinRows);
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(WindowConfigError::Alpha(self.alpha));
        }
        if !(self.beta > 0.0 && self.beta.is_finite()) {
            return Err(WindowConfigError::Beta(self.beta));
        }
        Ok(())
    }

    /// The number of most recent rows to sample from when `total_rows` rows exist in all.
    /// Never more than `total_rows`.
    pub fn window_rows(&self, total_rows: u64) -> u64 {
        let c = self.min_rows.max(1);
        let mut window = if total_rows <= c {
            total_rows
        } else {
            let c_f = c as f64;
            let ratio = total_rows as f64 / c_f;
            let grown = c_f * (1.0 + self.beta * (ratio.powf(self.alpha) - 1.0) / self.alpha);
            // Rounding can only matter by one row; never exceed the data itself.
            (grown.floor() as u64).min(total_rows)
        };
        if self.max_rows > 0 {
            window = window.min(self.max_rows);
        }
        window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn katago() -> WindowConfig {
        WindowConfig {
            min_rows: 250_000,
            alpha: 0.75,
            beta: 0.4,
            max_rows: 0,
        }
    }

    #[test]
    fn below_the_scale_every_row_is_in_the_window() {
        let w = katago();
        for n in [0, 1, 1000, 249_999, 250_000] {
            assert_eq!(w.window_rows(n), n);
        }
    }

    #[test]
    fn matches_the_formula_at_hand_computed_points() {
        let w = katago();
        // N = 16c: (16)^0.75 = 8, so window = c (1 + 0.4 * 7 / 0.75) = c * 4.7333…
        assert_eq!(w.window_rows(4_000_000), 1_183_333);
        // N = 81c: 81^0.75 = 27, window = c (1 + 0.4 * 26 / 0.75) = c * 14.8666…
        assert_eq!(w.window_rows(20_250_000), 3_716_666);
    }

    #[test]
    fn alpha_one_with_beta_one_keeps_everything() {
        let w = WindowConfig {
            min_rows: 100,
            alpha: 1.0,
            beta: 1.0,
            max_rows: 0,
        };
        for n in [50, 100, 101, 12_345, 10_000_000] {
            assert_eq!(w.window_rows(n), n);
        }
    }

    #[test]
    fn max_rows_caps_the_window() {
        let w = WindowConfig {
            max_rows: 1_000_000,
            ..katago()
        };
        assert_eq!(w.window_rows(20_250_000), 1_000_000);
        assert_eq!(w.window_rows(500), 500);
    }

    #[test]
    fn window_is_monotone_and_sublinear() {
        let w = katago();
        let mut previous = 0;
        let mut n = 1u64;
        while n < 1_000_000_000 {
            let rows = w.window_rows(n);
            assert!(rows >= previous, "window shrank at N = {n}");
            assert!(rows <= n);
            previous = rows;
            n = n * 3 / 2 + 1;
        }
        // Sub-linear growth: the fraction of data kept falls as N grows.
        let f = |n: u64| w.window_rows(n) as f64 / n as f64;
        assert!(f(10_000_000) > f(100_000_000));
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        let bad_alpha = WindowConfig {
            alpha: 1.5,
            ..katago()
        };
        assert_eq!(bad_alpha.validate(), Err(WindowConfigError::Alpha(1.5)));
        let zero = WindowConfig {
            min_rows: 0,
            ..katago()
        };
        assert_eq!(zero.validate(), Err(WindowConfigError::ZeroMinRows));
        let beta = WindowConfig {
            beta: 0.0,
            ..katago()
        };
        assert_eq!(beta.validate(), Err(WindowConfigError::Beta(0.0)));
        assert_eq!(katago().validate(), Ok(()));
    }
}
