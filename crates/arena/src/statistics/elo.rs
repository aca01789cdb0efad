//! Match score → Elo difference, with a 95 % confidence interval and the likelihood of
//! superiority.
//!
//! Why this module exists: "A scored 56 %" means little without an error bar, and the people
//! reading a training run want Elo. Everything here is the standard logistic (not BayesElo)
//! model: a score `s` corresponds to `Elo = -400·log10(1/s − 1)`.
//!
//! The uncertainty is the **trinomial** one: each game scores 1, ½ or 0, the per-game variance is
//! estimated from the observed W/D/L frequencies (maximum-likelihood estimate, divisor `n`), the
//! standard error of the mean score is `sqrt(var / n)`, and the Elo interval follows by the
//! **delta method** (`dElo/ds = 400 / (ln 10 · s · (1 − s))`), giving a symmetric `±`. The
//! endpoint-transformed interval (score interval mapped through the Elo curve; asymmetric, as
//! cutechess prints it) is reported as well because it stays sensible near 0 % and 100 %.
//! When every game had the same result (a 10–0 sweep, or all draws) the observed variance is 0
//! and the trinomial interval collapses to a point; the bounds then come from the **Wilson
//! score interval** of a binomial proportion instead (conservative with draws), so a sweep
//! still gets an honest finite lower bound: 8–0 → score ≥ 67.6 %, Elo ≥ +127.

use std::fmt;

/// z for a two-sided 95 % normal interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// Game counts from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WinDrawLoss {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl WinDrawLoss {
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Self {
            wins,
            draws,
            losses,
        }
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (win = 1, draw = ½).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean score per game, `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// The same counts seen from the opponent's side.
    pub fn flipped(&self) -> Self {
        Self::new(self.losses, self.draws, self.wins)
    }

    /// Adds one game result, `score` being 1, ½ or 0 for this side.
    pub fn record(&mut self, score: GameScore) {
        match score {
            GameScore::Win => self.wins += 1,
            GameScore::Draw => self.draws += 1,
            GameScore::Loss => self.losses += 1,
        }
    }

    /// Per-game variance of the score under the observed frequencies (divisor `n`).
    pub fn score_variance(&self) -> Option<f64> {
        let s = self.score()?;
        let n = self.games() as f64;
        Some(
            (self.wins as f64 * (1.0 - s).powi(2)
                + self.draws as f64 * (0.5 - s).powi(2)
                + self.losses as f64 * s.powi(2))
                / n,
        )
    }
}

impl std::ops::AddAssign for WinDrawLoss {
    fn add_assign(&mut self, other: Self) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

impl fmt::Display for WinDrawLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "+{} ={} -{}", self.wins, self.draws, self.losses)
    }
}

/// The result of one game for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameScore {
    Win,
    Draw,
    Loss,
}

impl GameScore {
    pub fn value(self) -> f64 {
        match self {
            GameScore::Win => 1.0,
            GameScore::Draw => 0.5,
            GameScore::Loss => 0.0,
        }
    }

    pub fn flipped(self) -> Self {
        match self {
            GameScore::Win => GameScore::Loss,
            GameScore::Draw => GameScore::Draw,
            GameScore::Loss => GameScore::Win,
        }
    }
}

/// Elo difference that makes the expected score `score` (±∞ at 100 % / 0 %).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Expected score of a player `elo` points stronger than its opponent.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Standard normal cumulative distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function (Chebyshev-fitted rational approximation, relative error
/// below 1.2e-7 everywhere — ample for error bars and LOS).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Everything a match summary prints about the strength difference.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EloEstimate {
    /// Mean score per game of the first player.
    pub score: f64,
    /// Standard error of `score` (trinomial).
    pub score_stderr: f64,
    /// Point estimate of the Elo difference (first player minus second).
    pub elo: f64,
    /// Half-width of the 95 % interval by the delta method (∞ at a 0 % / 100 % score).
    pub elo_error_95: f64,
    /// 95 % interval obtained by mapping the score interval's ends through the Elo curve.
    pub elo_lower_95: f64,
    pub elo_upper_95: f64,
    /// Probability that the first player is the stronger one, `Φ((W − L) / sqrt(W + L))`
    /// (draws carry no information about who is stronger).
    pub likelihood_of_superiority: f64,
}

impl EloEstimate {
    /// `None` before the first game.
    pub fn from_wdl(wdl: WinDrawLoss) -> Option<Self> {
        let score = wdl.score()?;
        let n = wdl.games() as f64;
        let variance = wdl.score_variance()?;
        let score_stderr = (variance / n).sqrt();
        let elo = elo_from_score(score);
        let slope = 400.0 / (std::f64::consts::LN_10 * score * (1.0 - score));
        let elo_error_95 = if score > 0.0 && score < 1.0 {
            Z_95 * score_stderr * slope
        } else {
            f64::INFINITY
        };
        let decisive = (wdl.wins + wdl.losses) as f64;
        let likelihood_of_superiority = if decisive > 0.0 {
            normal_cdf((wdl.wins as f64 - wdl.losses as f64) / decisive.sqrt())
        } else {
            0.5
        };
        let (score_lower, score_upper) = if variance > 0.0 {
            (score - Z_95 * score_stderr, score + Z_95 * score_stderr)
        } else {
            wilson_interval(score, n, Z_95)
        };
        Some(Self {
            score,
            score_stderr,
            elo,
            elo_error_95,
            elo_lower_95: elo_from_score(score_lower),
            elo_upper_95: elo_from_score(score_upper),
            likelihood_of_superiority,
        })
    }
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "score {:.1} % ± {:.1} %, Elo {} ± {} (95 %: [{}, {}]), LOS {:.1} %",
            100.0 * self.score,
            100.0 * Z_95 * self.score_stderr,
            format_elo(self.elo),
            format_elo(self.elo_error_95).trim_start_matches('+'),
            format_elo(self.elo_lower_95),
            format_elo(self.elo_upper_95),
            100.0 * self.likelihood_of_superiority
        )
    }
}

/// Wilson score interval of a proportion `p` observed over `n` trials.
pub fn wilson_interval(p: f64, n: f64, z: f64) -> (f64, f64) {
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denominator = 1.0 + z2 / n;
    // At p = 0 or 1 one bound is exactly 0 or 1; rounding must not turn it into a finite Elo.
    let lower = if p <= 0.0 {
        0.0
    } else {
        ((centre - spread) / denominator).clamp(0.0, 1.0)
    };
    let upper = if p >= 1.0 {
        1.0
    } else {
        ((centre + spread) / denominator).clamp(0.0, 1.0)
    };
    (lower, upper)
}

/// Signed Elo with one decimal, `+inf`/`-inf` for unbounded values.
pub fn format_elo(elo: f64) -> String {
    if elo == f64::INFINITY {
        "+inf".into()
    } else if elo == f64::NEG_INFINITY {
        "-inf".into()
    } else if elo.abs() < 0.05 {
        "+0.0".into()
    } else {
        format!("{elo:+.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_percent_is_about_seventy_elo() {
        // 400·log10(0.6/0.4) = 400·0.176091 = 70.437
        assert!((elo_from_score(0.6) - 70.437).abs() < 1e-3);
        assert!((elo_from_score(0.4) + 70.437).abs() < 1e-3);
        assert_eq!(elo_from_score(0.5), 0.0);
        // 400 Elo ↔ 10:1 odds ↔ 10/11 expected score.
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-12);
        assert!((elo_from_score(10.0 / 11.0) - 400.0).abs() < 1e-9);
    }

    #[test]
    fn score_and_elo_are_inverse() {
        for i in 1..100 {
            let s = i as f64 / 100.0;
            assert!((score_from_elo(elo_from_score(s)) - s).abs() < 1e-12);
        }
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn normal_cdf_matches_tables() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.0) - 0.841_344_746).abs() < 1e-6);
        assert!((normal_cdf(-1.0) - 0.158_655_254).abs() < 1e-6);
        assert!((normal_cdf(Z_95) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(3.0) - 0.998_650_102).abs() < 1e-6);
    }

    #[test]
    fn confidence_interval_for_60_wins_40_losses() {
        // By hand: s = 0.6, var = (60·0.4² + 40·0.6²)/100 = 0.24, se = sqrt(0.24/100) = 0.0489898,
        // dElo/ds = 400/(ln10·0.24) = 723.824, half-width = 1.959964·0.0489898·723.824 = 69.500.
        let e = EloEstimate::from_wdl(WinDrawLoss::new(60, 0, 40)).unwrap();
        assert!((e.score - 0.6).abs() < 1e-12);
        assert!((e.score_stderr - 0.048_989_8).abs() < 1e-6);
        assert!((e.elo - 70.437).abs() < 1e-3);
        assert!((e.elo_error_95 - 69.500).abs() < 1e-2, "{}", e.elo_error_95);
        // Endpoint mapping: s ± 0.0960178 → 0.5039822 .. 0.6960178 → +2.77 .. +143.91 Elo.
        assert!((e.elo_lower_95 - 2.767).abs() < 1e-2, "{}", e.elo_lower_95);
        assert!((e.elo_upper_95 - 143.91).abs() < 1e-2, "{}", e.elo_upper_95);
        // LOS = Φ(20/sqrt(100)) = Φ(2) = 0.97725.
        assert!((e.likelihood_of_superiority - 0.977_25).abs() < 1e-5);
    }

    #[test]
    fn draws_shrink_the_interval() {
        // Same score 60 %: 20 wins + 80 draws has var = (20·0.16 + 80·0.01)/100 = 0.04 (vs 0.24).
        let with_draws = EloEstimate::from_wdl(WinDrawLoss::new(20, 80, 0)).unwrap();
        let without = EloEstimate::from_wdl(WinDrawLoss::new(60, 0, 40)).unwrap();
        assert!((with_draws.elo - without.elo).abs() < 1e-9);
        let ratio = with_draws.elo_error_95 / without.elo_error_95;
        assert!((ratio - (0.04f64 / 0.24).sqrt()).abs() < 1e-9);
        // No losses at all: LOS = Φ(20/sqrt(20)) = Φ(4.472) ≈ 0.999996.
        assert!(with_draws.likelihood_of_superiority > 0.99999);
    }

    #[test]
    fn even_and_degenerate_results() {
        let even = EloEstimate::from_wdl(WinDrawLoss::new(10, 5, 10)).unwrap();
        assert_eq!(even.elo, 0.0);
        assert!((even.likelihood_of_superiority - 0.5).abs() < 1e-7);
        let sweep = EloEstimate::from_wdl(WinDrawLoss::new(8, 0, 0)).unwrap();
        assert_eq!(sweep.elo, f64::INFINITY);
        assert_eq!(sweep.elo_error_95, f64::INFINITY);
        // Wilson at p = 1: centre and spread are both z²/2n above/below 1, so the lower bound is
        // 1/(1 + z²/n) = 1/(1 + 3.841459/8) = 0.675592 → 400·log10(0.675592/0.324408) = +127.44.
        assert!(
            (sweep.elo_lower_95 - 127.44).abs() < 0.01,
            "{}",
            sweep.elo_lower_95
        );
        assert_eq!(sweep.elo_upper_95, f64::INFINITY);
        assert!(EloEstimate::from_wdl(WinDrawLoss::default()).is_none());
        let all_draws = EloEstimate::from_wdl(WinDrawLoss::new(0, 7, 0)).unwrap();
        assert_eq!(all_draws.elo, 0.0);
        assert_eq!(all_draws.elo_error_95, 0.0);
        // Wilson around ½ with n = 7 stays symmetric and non-trivial.
        assert!((all_draws.elo_lower_95 + all_draws.elo_upper_95).abs() < 1e-9);
        assert!(all_draws.elo_upper_95 > 100.0);
        assert_eq!(all_draws.likelihood_of_superiority, 0.5);
    }

    #[test]
    fn flipping_negates_elo() {
        let wdl = WinDrawLoss::new(13, 4, 7);
        let a = EloEstimate::from_wdl(wdl).unwrap();
        let b = EloEstimate::from_wdl(wdl.flipped()).unwrap();
        assert!((a.elo + b.elo).abs() < 1e-9);
        assert!((a.elo_error_95 - b.elo_error_95).abs() < 1e-9);
        assert!((a.likelihood_of_superiority + b.likelihood_of_superiority - 1.0).abs() < 1e-7);
    }
}
