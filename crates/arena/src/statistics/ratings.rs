//! Maximum-likelihood Bradley–Terry ratings for many players from all the games they played
//! against each other (a "ladder" of checkpoints).
//!
//! Why: pairwise match Elos do not add up consistently once checkpoints have met several
//! opponents; a joint fit uses every game and gives each player one number on one scale.
//!
//! Model: `P(i scores against j) = 1 / (1 + 10^((r_j − r_i)/400))`; a draw counts as half a win
//! and half a loss (the "draws as half wins" reading, which needs no extra draw parameter).
//! Only the total points and game count of each pair matter, so games are aggregated per pair.
//!
//! Regularisation: every pair that met also gets `virtual_draws_per_pair` extra drawn games
//! (default 1). This keeps a player that won every game finite (e.g. 10–0 becomes 10.5/11,
//! +529 Elo, instead of +∞) and barely moves well-measured pairs; it is the same idea as
//! KataGo's `elo.py` priors made of virtual games. Ratings are anchored by fixing one player at 0;
//! players with no chain of games to the anchor have no defined rating and are reported as an
//! error.
//!
//! Fit: Newton's method on the (concave) log-likelihood in natural units `θ = r·ln10/400`, with
//! step halving; standard errors come from the inverse of the observed information matrix with the
//! anchor removed (so they are errors *relative to the anchor*).

use std::collections::{BTreeMap, VecDeque};

const NATURAL_TO_ELO: f64 = 400.0 / std::f64::consts::LN_10;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RatingError {
    #[error("anchor player `{0}` has not played any game")]
    UnknownAnchor(String),
    #[error("no chain of games connects these players to the anchor: {0:?}")]
    Disconnected(Vec<String>),
    #[error("the rating fit did not converge")]
    NoConvergence,
}

/// Points and games of one pair, from the lower-indexed player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct PairTally {
    games: f64,
    points_of_first: f64,
}

/// Game results between named players, ready to be rated.
#[derive(Clone, Debug, Default)]
pub struct RatingPool {
    names: Vec<String>,
    pairs: BTreeMap<(usize, usize), PairTally>,
    /// Extra drawn games added to every pair that met (see module docs).
    pub virtual_draws_per_pair: f64,
}

/// One player's fitted rating.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Rating {
    pub name: String,
    /// Elo relative to the anchor (anchor = 0).
    pub elo: f64,
    /// Standard error of `elo` relative to the anchor (0 for the anchor itself).
    pub stderr: f64,
    /// Real games played (virtual draws excluded).
    pub games: f64,
    /// Real points scored.
    pub points: f64,
}

impl RatingPool {
    pub fn new() -> Self {
        Self {
            virtual_draws_per_pair: 1.0,
            ..Self::default()
        }
    }

    /// Index of `name`, registering it if new.
    pub fn player(&mut self, name: &str) -> usize {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return i;
        }
        self.names.push(name.to_string());
        self.names.len() - 1
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Records `games` games between `a` and `b` in which `a` scored `points_of_a` points.
    /// A game against oneself carries no information and is ignored.
    pub fn add_games(&mut self, a: &str, b: &str, games: f64, points_of_a: f64) {
        let (ia, ib) = (self.player(a), self.player(b));
        if ia == ib {
            return;
        }
        let (key, points_of_first) = if ia < ib {
            ((ia, ib), points_of_a)
        } else {
            ((ib, ia), games - points_of_a)
        };
        let tally = self.pairs.entry(key).or_default();
        tally.games += games;
        tally.points_of_first += points_of_first;
    }

    /// Records one game; `score_of_a` is 1, ½ or 0.
    pub fn add_game(&mut self, a: &str, b: &str, score_of_a: f64) {
        self.add_games(a, b, 1.0, score_of_a);
    }

    /// Fits all ratings with `anchor` fixed at 0. Players are returned in registration order.
    pub fn fit(&self, anchor: &str) -> Result<Vec<Rating>, RatingError> {
        let n = self.names.len();
        let anchor = self
            .names
            .iter()
            .position(|name| name == anchor)
            .ok_or_else(|| RatingError::UnknownAnchor(anchor.to_string()))?;
        self.check_connected(anchor)?;

        // Free parameters: every player except the anchor, mapped to 0..n-1.
        let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
        let slot = |i: usize| -> Option<usize> {
            (i != anchor).then(|| if i < anchor { i } else { i - 1 })
        };
        let mut theta = vec![0.0f64; n];
        let mut converged = false;
        for _ in 0..200 {
            let (gradient, information) = self.gradient_and_information(&theta, &free, &slot);
            let max_gradient = gradient.iter().fold(0.0f64, |m, g| m.max(g.abs()));
            if max_gradient < 1e-10 {
                converged = true;
                break;
            }
            let step = solve_symmetric(information, gradient).ok_or(RatingError::NoConvergence)?;
            let current = self.log_likelihood(&theta);
            let mut scale = 1.0;
            loop {
                let mut trial = theta.clone();
                for (k, &i) in free.iter().enumerate() {
                    trial[i] += scale * step[k];
                }
                if self.log_likelihood(&trial) >= current - 1e-12 || scale < 1e-6 {
                    theta = trial;
                    break;
                }
                scale *= 0.5;
            }
        }
        if !converged {
            return Err(RatingError::NoConvergence);
        }
        let (_, information) = self.gradient_and_information(&theta, &free, &slot);
        let covariance_diagonal = invert_diagonal(information).ok_or(RatingError::NoConvergence)?;

        let mut games = vec![0.0; n];
        let mut points = vec![0.0; n];
        for (&(i, j), tally) in &self.pairs {
            games[i] += tally.games;
            games[j] += tally.games;
            points[i] += tally.points_of_first;
            points[j] += tally.games - tally.points_of_first;
        }
        Ok((0..n)
            .map(|i| Rating {
                name: self.names[i].clone(),
                elo: theta[i] * NATURAL_TO_ELO,
                stderr: slot(i).map_or(0.0, |k| covariance_diagonal[k].sqrt() * NATURAL_TO_ELO),
                games: games[i],
                points: points[i],
            })
            .collect())
    }

    fn effective(&self, tally: &PairTally) -> (f64, f64) {
        let v = self.virtual_draws_per_pair.max(0.0);
        (tally.games + v, tally.points_of_first + 0.5 * v)
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        self.pairs
            .iter()
            .map(|(&(i, j), tally)| {
                let (games, points) = self.effective(tally);
                let d = theta[i] - theta[j];
                // ln σ(d) = −ln(1 + e^−d), computed stably.
                points * log_sigmoid(d) + (games - points) * log_sigmoid(-d)
            })
            .sum()
    }

    fn gradient_and_information(
        &self,
        theta: &[f64],
        free: &[usize],
        slot: &dyn Fn(usize) -> Option<usize>,
    ) -> (Vec<f64>, Vec<Vec<f64>>) {
        let m = free.len();
        let mut gradient = vec![0.0; m];
        let mut information = vec![vec![0.0; m]; m];
        for (&(i, j), tally) in &self.pairs {
            let (games, points) = self.effective(tally);
            let p = sigmoid(theta[i] - theta[j]);
            let residual = points - games * p;
            let weight = games * p * (1.0 - p);
            let (si, sj) = (slot(i), slot(j));
            if let Some(a) = si {
                gradient[a] += residual;
                information[a][a] += weight;
            }
            if let Some(b) = sj {
                gradient[b] -= residual;
                information[b][b] += weight;
            }
            if let (Some(a), Some(b)) = (si, sj) {
                information[a][b] -= weight;
                information[b][a] -= weight;
            }
        }
        (gradient, information)
    }

    fn check_connected(&self, anchor: usize) -> Result<(), RatingError> {
        let n = self.names.len();
        let mut seen = vec![false; n];
        seen[anchor] = true;
        let mut queue = VecDeque::from([anchor]);
        while let Some(k) = queue.pop_front() {
            for &(i, j) in self.pairs.keys() {
                let other = if i == k {
                    j
                } else if j == k {
                    i
                } else {
                    continue;
                };
                if !seen[other] {
                    seen[other] = true;
                    queue.push_back(other);
                }
            }
        }
        let missing: Vec<String> = (0..n)
            .filter(|&i| !seen[i])
            .map(|i| self.names[i].clone())
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(RatingError::Disconnected(missing))
        }
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Solves `A x = b` for a symmetric positive-definite `A` (Cholesky); `None` if singular.
fn solve_symmetric(a: Vec<Vec<f64>>, b: Vec<f64>) -> Option<Vec<f64>> {
    let l = cholesky(a)?;
    let n = b.len();
    let mut y = b;
    for i in 0..n {
        for k in 0..i {
            y[i] -= l[i][k] * y[k];
        }
        y[i] /= l[i][i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            y[i] -= l[k][i] * y[k];
        }
        y[i] /= l[i][i];
    }
    Some(y)
}

/// Diagonal of `A⁻¹` for a symmetric positive-definite `A`.
fn invert_diagonal(a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = a.len();
    let mut diagonal = Vec::with_capacity(n);
    for k in 0..n {
        let mut e = vec![0.0; n];
        e[k] = 1.0;
        diagonal.push(solve_symmetric(a.clone(), e)?[k]);
    }
    Some(diagonal)
}

fn cholesky(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    for j in 0..n {
        for k in 0..j {
            let ljk = a[j][k];
            for row in a.iter_mut().skip(j) {
                row[j] -= row[k] * ljk;
            }
        }
        if a[j][j] <= 0.0 || !a[j][j].is_finite() {
            return None;
        }
        let d = a[j][j].sqrt();
        for row in a.iter_mut().skip(j) {
            row[j] /= d;
        }
        for col in a[j].iter_mut().skip(j + 1) {
            *col = 0.0;
        }
    }
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statistics::elo_from_score;

    fn rating<'a>(ratings: &'a [Rating], name: &str) -> &'a Rating {
        ratings.iter().find(|r| r.name == name).unwrap()
    }

    #[test]
    fn two_players_reproduce_the_match_elo_and_its_standard_error() {
        let mut pool = RatingPool::new();
        pool.virtual_draws_per_pair = 0.0;
        pool.add_games("a", "b", 100.0, 60.0);
        let r = pool.fit("b").unwrap();
        // 60 % → +70.437; se = 1/sqrt(100·0.24) = 0.204124 nat = 35.460 Elo.
        assert!((rating(&r, "a").elo - 70.437).abs() < 1e-3);
        assert!((rating(&r, "a").stderr - 35.460).abs() < 1e-2);
        assert_eq!(rating(&r, "b").elo, 0.0);
        assert_eq!(rating(&r, "b").stderr, 0.0);
        // Anchoring the other way only shifts.
        let r = pool.fit("a").unwrap();
        assert!((rating(&r, "b").elo + 70.437).abs() < 1e-3);
    }

    #[test]
    fn a_chain_adds_up() {
        let mut pool = RatingPool::new();
        pool.virtual_draws_per_pair = 0.0;
        pool.add_games("a", "b", 40.0, 30.0); // 75 % → 400·log10(3) = 190.849
        pool.add_games("b", "c", 40.0, 30.0);
        let r = pool.fit("c").unwrap();
        assert!((rating(&r, "b").elo - 190.849).abs() < 1e-2);
        assert!((rating(&r, "a").elo - 381.697).abs() < 2e-2);
    }

    #[test]
    fn a_cycle_of_equal_results_gives_equal_ratings() {
        let mut pool = RatingPool::new();
        for (x, y) in [("a", "b"), ("b", "c"), ("c", "a")] {
            pool.add_games(x, y, 50.0, 30.0);
        }
        let r = pool.fit("a").unwrap();
        for p in &r {
            assert!(p.elo.abs() < 1e-6, "{p:?}");
        }
    }

    #[test]
    fn draws_count_as_half_wins() {
        let mut pool = RatingPool::new();
        pool.virtual_draws_per_pair = 0.0;
        for _ in 0..20 {
            pool.add_game("a", "b", 1.0);
        }
        for _ in 0..10 {
            pool.add_game("a", "b", 0.5);
        }
        for _ in 0..10 {
            pool.add_game("b", "a", 1.0);
        }
        let r = pool.fit("b").unwrap();
        // a: 25 points of 40 → 62.5 %.
        assert!((rating(&r, "a").elo - elo_from_score(0.625)).abs() < 1e-6);
        assert_eq!(rating(&r, "a").games, 40.0);
        assert_eq!(rating(&r, "a").points, 25.0);
    }

    #[test]
    fn an_undefeated_player_stays_finite() {
        let mut pool = RatingPool::new();
        pool.add_games("strong", "weak", 10.0, 10.0);
        let r = pool.fit("weak").unwrap();
        // One virtual draw: 10.5 / 11 → 400·log10(21) = 528.9.
        let elo = rating(&r, "strong").elo;
        assert!((elo - 400.0 * 21f64.log10()).abs() < 1e-6, "{elo}");
        assert!(rating(&r, "strong").stderr.is_finite());
    }

    #[test]
    fn disconnected_and_unknown_players_are_errors() {
        let mut pool = RatingPool::new();
        pool.add_games("a", "b", 4.0, 2.0);
        pool.add_games("c", "d", 4.0, 2.0);
        assert_eq!(
            pool.fit("a"),
            Err(RatingError::Disconnected(vec!["c".into(), "d".into()]))
        );
        assert!(matches!(pool.fit("z"), Err(RatingError::UnknownAnchor(_))));
    }

    #[test]
    fn two_player_fits_match_the_match_elo_for_many_results() {
        // Seeded loop over W/D/L counts: with no regularisation the joint fit of two players
        // must equal the closed-form match Elo of their score.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        for _ in 0..200 {
            let (w, d, l) = (
                rng.random_range(1..60),
                rng.random_range(0..60),
                rng.random_range(1..60),
            );
            let mut pool = RatingPool::new();
            pool.virtual_draws_per_pair = 0.0;
            let games = (w + d + l) as f64;
            let points = w as f64 + 0.5 * d as f64;
            pool.add_games("x", "y", games, points);
            let r = pool.fit("y").unwrap();
            let expected = elo_from_score(points / games);
            assert!((rating(&r, "x").elo - expected).abs() < 1e-6, "{w}/{d}/{l}");
        }
    }

    #[test]
    fn fit_is_the_likelihood_maximum() {
        // Independent check of optimality: the expected points of every player equal its actual
        // points (the ML condition for Bradley–Terry) in a richer 4-player pool.
        let mut pool = RatingPool::new();
        pool.virtual_draws_per_pair = 0.0;
        let results = [
            ("a", "b", 30.0, 21.0),
            ("a", "c", 20.0, 17.5),
            ("b", "c", 30.0, 16.0),
            ("c", "d", 25.0, 20.0),
            ("b", "d", 10.0, 7.0),
        ];
        for (x, y, g, p) in results {
            pool.add_games(x, y, g, p);
        }
        let r = pool.fit("d").unwrap();
        for player in ["a", "b", "c", "d"] {
            let mut expected = 0.0;
            for (x, y, g, _) in results {
                let (rx, ry) = (rating(&r, x).elo, rating(&r, y).elo);
                let px = 1.0 / (1.0 + 10f64.powf((ry - rx) / 400.0));
                if x == player {
                    expected += g * px;
                } else if y == player {
                    expected += g * (1.0 - px);
                }
            }
            let actual = rating(&r, player).points;
            assert!(
                (expected - actual).abs() < 1e-6,
                "{player}: {expected} vs {actual}"
            );
        }
    }
}
