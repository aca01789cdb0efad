//! Sequential probability ratio test: stop a match as soon as the data decide between
//! "the candidate is `elo0` stronger" (H0) and "it is `elo1` stronger" (H1).
//!
//! Why: a fixed number of games either wastes time on clear results or is too short for close
//! ones. The SPRT keeps the error rates at `alpha` (accepting H1 when H0 holds) and `beta`
//! (accepting H0 when H1 holds) while playing, on average, far fewer games.
//!
//! Which test exactly (so results are comparable with other tools): the **generalised SPRT with
//! the normal approximation** used by fishtest in the logistic (BayesElo-free) Elo model. With
//! `s0 = 1/(1+10^(−elo0/400))`, `s1` likewise, `x̄` the mean observed score per unit and `var`
//! the per-unit variance of that score (maximum-likelihood, divisor `n`),
//!
//! ```text
//! LLR ≈ (s1 − s0) · (2·x̄ − s0 − s1) · n / (2·var)
//! ```
//!
//! The unit is either one game (**trinomial**: scores 1, ½, 0) or one pair of games played from the
//! same opening with colours swapped (**pentanomial**: pair scores 0, ¼, ½, ¾, 1 per game). The
//! pentanomial form is the right one for paired openings because it accounts for the correlation
//! inside a pair (usually making the test faster). Counts that are zero are replaced by 1e-3
//! before the variance is computed (fishtest regularises the same way), so that one-sided results
//! such as 10–0 give a large, finite LLR instead of 0/0.
//!
//! Decision: accept H1 when `LLR ≥ ln((1−β)/α)`, accept H0 when `LLR ≤ ln(β/(1−α))`, otherwise
//! continue (Wald's bounds) — but never before [`MIN_SAMPLES_BEFORE_DECISION`] samples (games,
//! or pairs once the pentanomial form is used). The normal approximation rests on the *sample*
//! variance, which is meaningless for a handful of games: after a single win the regularised
//! variance is ~0 and the LLR is ~50. Fishtest avoids this by evaluating the test only after
//! batches of games; the arena uses a minimum. Measured by simulation (3000 tests per
//! hypothesis, elo0 = 0, elo1 = 40, α = β = 0.05, 30 % draws, test in this module): with a
//! minimum of 20 the false-H1 rate was 5.2 % (trinomial) and 5.9 % (pentanomial), with 40 it is
//! 5.1 % and 5.3 %, false-H0 4.6 % and 4.8 %. A 40–0 sweep has an exact generalised LLR of
//! 40·ln(s1/s0) (9.9 for elo1 = 100), so the minimum does not delay clear decisions much.

use std::fmt;
use std::str::FromStr;

use super::elo::{score_from_elo, WinDrawLoss};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SprtError {
    #[error("SPRT settings must be `elo0,elo1,alpha,beta` (e.g. `0,10,0.05,0.05`), got `{0}`")]
    Syntax(String),
    #[error("SPRT needs elo0 < elo1 (got elo0 = {elo0}, elo1 = {elo1})")]
    EloOrder { elo0: f64, elo1: f64 },
    #[error(
        "SPRT error rates must lie strictly between 0 and 0.5 (got alpha = {alpha}, beta = {beta})"
    )]
    ErrorRate { alpha: f64, beta: f64 },
}

/// Samples — games for the trinomial test, game pairs for the pentanomial one — before the SPRT
/// may decide (see the module docs).
pub const MIN_SAMPLES_BEFORE_DECISION: u64 = 40;

/// Hypotheses and error rates of one test.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SprtSettings {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl SprtSettings {
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, SprtError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtError::EloOrder { elo0, elo1 });
        }
        let valid = |p: f64| p > 0.0 && p < 0.5;
        if !(valid(alpha) && valid(beta)) {
            return Err(SprtError::ErrorRate { alpha, beta });
        }
        Ok(Self {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// `ln(β/(1−α))`: at or below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// `ln((1−β)/α)`: at or above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// Trinomial (per-game) LLR; 0 before the first game.
    pub fn llr_trinomial(&self, wdl: WinDrawLoss) -> f64 {
        let counts = [wdl.losses as f64, wdl.draws as f64, wdl.wins as f64];
        self.llr_from_distribution(&counts, &[0.0, 0.5, 1.0])
    }

    /// Pentanomial (per-pair) LLR; `pairs[k]` counts pairs whose two games scored `k/2` points
    /// together (0, ½, 1, 1½, 2). 0 before the first pair.
    pub fn llr_pentanomial(&self, pairs: &PairCounts) -> f64 {
        let counts = pairs.0.map(|c| c as f64);
        self.llr_from_distribution(&counts, &[0.0, 0.25, 0.5, 0.75, 1.0])
    }

    fn llr_from_distribution(&self, counts: &[f64], scores: &[f64]) -> f64 {
        let n: f64 = counts.iter().sum();
        if n == 0.0 {
            return 0.0;
        }
        let regularised: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0.0 { 1e-3 } else { c })
            .collect();
        let total: f64 = regularised.iter().sum();
        let mean = regularised
            .iter()
            .zip(scores)
            .map(|(c, x)| c * x)
            .sum::<f64>()
            / total;
        let variance = regularised
            .iter()
            .zip(scores)
            .map(|(c, x)| c * (x - mean).powi(2))
            .sum::<f64>()
            / total;
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        (s1 - s0) * (2.0 * mean - s0 - s1) * n / (2.0 * variance)
    }

    /// Where a test with this LLR stands.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// LLR, bounds and decision in one value, from per-game counts and (if games were paired)
    /// per-pair counts; the pentanomial form is used as soon as there is at least one pair.
    /// Undecided before [`MIN_SAMPLES_BEFORE_DECISION`] samples (games, or pairs when paired).
    pub fn status(&self, wdl: WinDrawLoss, pairs: Option<&PairCounts>) -> SprtStatus {
        let (llr, units) = match pairs {
            Some(p) if p.pairs() > 0 => (self.llr_pentanomial(p), p.pairs()),
            _ => (self.llr_trinomial(wdl), wdl.games()),
        };
        let decision = if units < MIN_SAMPLES_BEFORE_DECISION {
            SprtDecision::Continue
        } else {
            self.decide(llr)
        };
        SprtStatus {
            llr,
            lower: self.lower_bound(),
            upper: self.upper_bound(),
            decision,
        }
    }
}

impl FromStr for SprtSettings {
    type Err = SprtError;

    /// `elo0,elo1,alpha,beta`, e.g. `0,10,0.05,0.05`.
    fn from_str(text: &str) -> Result<Self, SprtError> {
        let parts: Vec<f64> = text
            .split(',')
            .map(|p| p.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| SprtError::Syntax(text.to_string()))?;
        match parts[..] {
            [elo0, elo1, alpha, beta] => Self::new(elo0, elo1, alpha, beta),
            _ => Err(SprtError::Syntax(text.to_string())),
        }
    }
}

impl fmt::Display for SprtSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "H0: {:+} Elo, H1: {:+} Elo, alpha {}, beta {}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// Counts of game pairs by their combined score: index `k` = `k/2` points from two games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PairCounts(pub [u64; 5]);

impl PairCounts {
    /// Records one pair from the two per-game scores of the same player.
    pub fn record(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round() as usize;
        self.0[half_points.min(4)] += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum SprtDecision {
    AcceptH0,
    AcceptH1,
    Continue,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "undecided",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: SprtDecision,
}

impl fmt::Display for SprtStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LLR {:.3} [{:.3}, {:.3}] {}",
            self.llr, self.lower, self.upper, self.decision
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wald_bounds() {
        let s = SprtSettings::new(0.0, 10.0, 0.05, 0.05).unwrap();
        // ln(0.05/0.95) = −2.944439, ln(0.95/0.05) = +2.944439
        assert!((s.lower_bound() + 2.944_439).abs() < 1e-6);
        assert!((s.upper_bound() - 2.944_439).abs() < 1e-6);
        let asym = SprtSettings::new(0.0, 5.0, 0.05, 0.10).unwrap();
        // ln(0.10/0.95) = −2.251292, ln(0.90/0.05) = 2.890372
        assert!((asym.lower_bound() + 2.251_292).abs() < 1e-6);
        assert!((asym.upper_bound() - 2.890_372).abs() < 1e-6);
    }

    #[test]
    fn trinomial_llr_by_hand() {
        // elo0 = 0, elo1 = 10: s0 = 0.5, s1 = 1/(1+10^(−1/40)) = 0.5143872.
        // W/D/L = 120/60/100: n = 280, x̄ = 150/280 = 0.5357143,
        // var = (120·0.4642857² + 60·0.0357143² + 100·0.5357143²)/280 = 54.643/280 = 0.1951531.
        // LLR = 0.0143872·(1.0714286 − 1.0143872)·280/(2·0.1951531) = 0.58873.
        let s = SprtSettings::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let llr = s.llr_trinomial(WinDrawLoss::new(120, 60, 100));
        assert!((llr - 0.588_73).abs() < 1e-4, "{llr}");
        assert_eq!(s.decide(llr), SprtDecision::Continue);
    }

    #[test]
    fn llr_is_zero_midway_and_antisymmetric() {
        // x̄ exactly halfway between s0 and s1 gives LLR 0; symmetric hypotheses flip the sign.
        let s = SprtSettings::new(-10.0, 10.0, 0.05, 0.05).unwrap();
        assert!(s.llr_trinomial(WinDrawLoss::new(30, 40, 30)).abs() < 1e-12);
        let a = s.llr_trinomial(WinDrawLoss::new(40, 30, 30));
        let b = s.llr_trinomial(WinDrawLoss::new(30, 30, 40));
        assert!((a + b).abs() < 1e-9 && a > 0.0);
        assert_eq!(s.llr_trinomial(WinDrawLoss::default()), 0.0);
    }

    /// Exact generalised log-likelihood ratio of the trinomial model: the maximum-likelihood
    /// W/D/L distribution under the constraint "mean score = s" is p_i = p̂_i / (1 + λ(x_i − s))
    /// with λ solving Σ p_i = 1. The normal approximation must agree closely near s0 ≈ s1.
    fn exact_trinomial_llr(wdl: WinDrawLoss, s0: f64, s1: f64) -> f64 {
        let n = wdl.games() as f64;
        let counts = [wdl.losses as f64, wdl.draws as f64, wdl.wins as f64];
        let xs = [0.0, 0.5, 1.0];
        let constrained_log_likelihood = |s: f64| {
            let p_hat: Vec<f64> = counts.iter().map(|c| c / n).collect();
            let mass = |l: f64| -> f64 {
                p_hat
                    .iter()
                    .zip(xs)
                    .map(|(p, x)| p / (1.0 + l * (x - s)))
                    .sum()
            };
            // Σ p_i(λ) − 1 is monotone on the interval keeping every denominator positive.
            let (mut lo, mut hi) = (-1.0 / (1.0 - s) + 1e-12, 1.0 / s - 1e-12);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                let g: f64 = p_hat
                    .iter()
                    .zip(xs)
                    .map(|(p, x)| p * (x - s) / (1.0 + mid * (x - s)))
                    .sum();
                if g > 0.0 {
                    lo = mid
                } else {
                    hi = mid
                }
            }
            let l = 0.5 * (lo + hi);
            assert!((mass(l) - 1.0).abs() < 1e-9);
            counts
                .iter()
                .zip(p_hat.iter().zip(xs))
                .map(|(c, (p, x))| c * (p / (1.0 + l * (x - s))).ln())
                .sum::<f64>()
        };
        constrained_log_likelihood(s1) - constrained_log_likelihood(s0)
    }

    #[test]
    fn normal_approximation_matches_exact_generalised_llr() {
        let s = SprtSettings::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let (s0, s1) = (score_from_elo(0.0), score_from_elo(5.0));
        for wdl in [
            WinDrawLoss::new(1_050, 2_000, 950),
            WinDrawLoss::new(3_000, 4_000, 3_100),
            WinDrawLoss::new(500, 100, 470),
        ] {
            let approx = s.llr_trinomial(wdl);
            let exact = exact_trinomial_llr(wdl, s0, s1);
            assert!(
                (approx - exact).abs() < 0.02 * exact.abs().max(0.5),
                "{wdl}: approx {approx}, exact {exact}"
            );
        }
    }

    #[test]
    fn pentanomial_llr_by_hand() {
        // elo0 = 0, elo1 = 10 (s0 = 0.5, s1 = 0.5143872). Pairs [0, 10, 40, 30, 20] (100 pairs):
        // per-game pair means 0, .25, .5, .75, 1 → x̄ = (2.5 + 20 + 22.5 + 20)/100 = 0.65,
        // var = (10·0.16 + 40·0.0225 + 30·0.01 + 20·0.1225)/100 = 0.0525, zero count → 1e-3
        // (adds 1e-3·0.65² to the numerator and 1e-3 to n: negligible at 1e-4),
        // LLR = 0.0143872·(1.3 − 1.0143872)·100/(2·0.0525) = 3.9132.
        let s = SprtSettings::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let pairs = PairCounts([0, 10, 40, 30, 20]);
        let llr = s.llr_pentanomial(&pairs);
        assert!((llr - 3.913).abs() < 2e-3, "{llr}");
        assert_eq!(s.decide(llr), SprtDecision::AcceptH1);
    }

    #[test]
    fn sweeps_decide_quickly_and_finitely() {
        let s = SprtSettings::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let llr = s.llr_trinomial(WinDrawLoss::new(10, 0, 0));
        assert!(llr.is_finite() && llr > s.upper_bound());
        let llr = s.llr_trinomial(WinDrawLoss::new(0, 0, 10));
        assert!(llr.is_finite() && llr < s.lower_bound());
    }

    #[test]
    fn no_decision_on_a_handful_of_games() {
        let s = SprtSettings::new(0.0, 100.0, 0.05, 0.05).unwrap();
        let early = s.status(WinDrawLoss::new(1, 0, 0), None);
        assert!(early.llr > early.upper);
        assert_eq!(early.decision, SprtDecision::Continue);
        let later = s.status(WinDrawLoss::new(MIN_SAMPLES_BEFORE_DECISION, 0, 0), None);
        assert_eq!(later.decision, SprtDecision::AcceptH1);
    }

    /// Runs one SPRT on simulated games whose true Elo difference is `elo` (draw rate 30 %),
    /// returning the decision (undecided after 20 000 games counts as `Continue`).
    fn simulate(settings: &SprtSettings, elo: f64, seed: u64, paired: bool) -> SprtDecision {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let draw = 0.3;
        let win = score_from_elo(elo) - draw / 2.0;
        let mut game = || {
            let u: f64 = rng.random();
            if u < win {
                1.0
            } else if u < win + draw {
                0.5
            } else {
                0.0
            }
        };
        let mut wdl = WinDrawLoss::default();
        let mut pairs = PairCounts::default();
        let record = |wdl: &mut WinDrawLoss, x: f64| match x {
            1.0 => wdl.wins += 1,
            0.5 => wdl.draws += 1,
            _ => wdl.losses += 1,
        };
        for _ in 0..10_000 {
            let (a, b) = (game(), game());
            record(&mut wdl, a);
            record(&mut wdl, b);
            pairs.record(a, b);
            let status = settings.status(wdl, paired.then_some(&pairs));
            if status.decision != SprtDecision::Continue {
                return status.decision;
            }
        }
        SprtDecision::Continue
    }

    #[test]
    fn simulated_error_rates_stay_near_alpha_and_beta() {
        // 3000 simulated tests per hypothesis; Wald's bounds keep each error rate near or below
        // alpha (beta) = 5 %; allow 3 binomial standard errors: 0.05 + 3·sqrt(0.05·0.95/3000)
        // = 6.2 %.
        let settings = SprtSettings::new(0.0, 40.0, 0.05, 0.05).unwrap();
        let runs = 3000;
        let limit = 0.05 + 3.0 * (0.05f64 * 0.95 / runs as f64).sqrt();
        for paired in [false, true] {
            let false_h1 = (0..runs)
                .filter(|&s| simulate(&settings, 0.0, s, paired) == SprtDecision::AcceptH1)
                .count();
            let false_h0 = (0..runs)
                .filter(|&s| simulate(&settings, 40.0, 1_000 + s, paired) == SprtDecision::AcceptH0)
                .count();
            let (alpha_hat, beta_hat) =
                (false_h1 as f64 / runs as f64, false_h0 as f64 / runs as f64);
            assert!(alpha_hat <= limit, "paired {paired}: alpha {alpha_hat}");
            assert!(beta_hat <= limit, "paired {paired}: beta {beta_hat}");
        }
    }

    #[test]
    fn parsing_and_validation() {
        let s: SprtSettings = "0,10,0.05,0.1".parse().unwrap();
        assert_eq!(s, SprtSettings::new(0.0, 10.0, 0.05, 0.1).unwrap());
        assert!(matches!(
            "0,10,0.05".parse::<SprtSettings>(),
            Err(SprtError::Syntax(_))
        ));
        assert!(matches!(
            "10,0,0.05,0.05".parse::<SprtSettings>(),
            Err(SprtError::EloOrder { .. })
        ));
        assert!(matches!(
            "0,10,0,0.05".parse::<SprtSettings>(),
            Err(SprtError::ErrorRate { .. })
        ));
    }

    #[test]
    fn pair_counts_bucket_by_combined_score() {
        let mut p = PairCounts::default();
        p.record(1.0, 0.0);
        p.record(0.5, 1.0);
        p.record(1.0, 1.0);
        p.record(0.0, 0.0);
        assert_eq!(p.0, [1, 0, 1, 1, 1]);
        assert_eq!(p.pairs(), 4);
    }
}
