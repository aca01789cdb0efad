//! The mean of a sample with a 95 % confidence interval, for per-game measurements that are not
//! a score (player A's material balance at a given ply: `MatchReport::material_at`).
//!
//! Why: a match whose score sits near 0 % or 100 % says little about how far one side is
//! behind; the mean of a continuous measure over the same games can still tell two players
//! apart. The interval is the normal one, `mean ± 1.96 · s / √n` with the sample standard
//! deviation `s` (divisor `n − 1`).

use std::fmt;

use super::elo::Z_95;

/// A sample's mean, the half-width of its 95 % interval, and its size.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeanEstimate {
    pub mean: f64,
    /// Half the width of the 95 % interval; 0 for a single value.
    pub half_width_95: f64,
    pub count: usize,
}

impl MeanEstimate {
    /// `None` for an empty sample.
    pub fn of(values: &[f64]) -> Option<MeanEstimate> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let half_width_95 = if values.len() < 2 {
            0.0
        } else {
            let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
            Z_95 * (variance / n).sqrt()
        };
        Some(MeanEstimate {
            mean,
            half_width_95,
            count: values.len(),
        })
    }

    /// `+1.5 ± 0.8`: the mean and its interval, without the count (a table's cell, whose row
    /// says the games).
    pub fn interval_text(&self) -> String {
        format!("{:+.1} ± {:.1}", self.mean, self.half_width_95)
    }
}

impl fmt::Display for MeanEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} games)", self.interval_text(), self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_sample_has_no_mean() {
        assert_eq!(MeanEstimate::of(&[]), None);
    }

    #[test]
    fn one_value_is_its_own_mean_without_an_interval() {
        let m = MeanEstimate::of(&[-3.5]).unwrap();
        assert_eq!((m.mean, m.half_width_95, m.count), (-3.5, 0.0, 1));
    }

    #[test]
    fn the_interval_is_the_normal_one_with_the_sample_deviation() {
        // Mean 5, sample variance ((−3)² + (−1)² + 1² + 3²) / 3 = 20 / 3.
        let m = MeanEstimate::of(&[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert_eq!(m.mean, 5.0);
        let expected = Z_95 * ((20.0 / 3.0) / 4.0_f64).sqrt();
        assert!((m.half_width_95 - expected).abs() < 1e-12, "{m:?}");
        assert_eq!(m.to_string(), format!("+5.0 ± {expected:.1} (4 games)"));
    }
}
