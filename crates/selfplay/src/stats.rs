//! Self-play statistics shared by the workers and whoever reports them (progress bar, logs,
//! TensorBoard).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::fixed_opponent::FixedOpponent;

/// Running totals since the pool started.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfplayTotals {
    pub games: u64,
    pub black_wins: u64,
    pub white_wins: u64,
    pub draws: u64,
    /// Games that ended at the `max_plies` cap (counted among the draws too).
    pub adjudicated: u64,
    pub resignations: u64,
    /// Audit games (resignation disabled) in which a side would have resigned ...
    pub resign_audits: u64,
    /// ... and in which that side then did not lose.
    pub false_resignations: u64,
    /// The resignation threshold in force at the latest finished game (moves with
    /// `selfplay.resign.max_false_rate`; 0 before the first game).
    pub resign_threshold: f32,
    pub plies: u64,
    /// Positions written to shards (all moves), and those of them with a policy target.
    pub positions: u64,
    pub policy_positions: u64,
    pub shards_written: u64,
    /// Network batches and the positions they held (from the search drivers).
    pub batches: u64,
    pub evaluated: u64,
    /// Largest batches the drivers could form (sum over workers of their half-pools) ...
    pub batch_capacity: u64,
    /// ... and how many drivers that sum is over (one per worker): each worker's evaluator
    /// forms its own batches, so a batch is measured against one driver's capacity.
    pub batch_drivers: u64,
    /// Games against the current fixed opponent (`selfplay.fixed_opponent_fraction`), and the
    /// network's points in them (1 a win, ½ a draw); both restart when the schedule moves on.
    pub opponent_games: u64,
    pub opponent_points: f64,
    /// Which opponent that is (set by the latest such game).
    pub opponent: Option<FixedOpponent>,
}

impl SelfplayTotals {
    pub fn mean_game_length(&self) -> f64 {
        ratio(self.plies, self.games)
    }

    /// Fraction of audited would-be resignations that were wrong.
    pub fn false_resignation_rate(&self) -> f64 {
        ratio(self.false_resignations, self.resign_audits)
    }

    /// The network's score against the fixed opponent in self-play (0 without such games).
    pub fn opponent_score(&self) -> f64 {
        if self.opponent_games == 0 {
            0.0
        } else {
            self.opponent_points / self.opponent_games as f64
        }
    }

    /// Mean batch size as a fraction of the largest batch one driver could form (the mean over
    /// the workers' drivers): full batches read 100 % however many workers there are.
    pub fn mean_batch_fill(&self) -> f64 {
        if self.batch_capacity == 0 || self.batch_drivers == 0 {
            return 0.0;
        }
        let capacity_per_driver = self.batch_capacity as f64 / self.batch_drivers as f64;
        ratio(self.evaluated, self.batches) / capacity_per_driver
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Thread-safe statistics; workers add finished games, readers take snapshots.
#[derive(Debug)]
pub struct SelfplayStats {
    started: Instant,
    totals: Mutex<SelfplayTotals>,
}

impl Default for SelfplayStats {
    fn default() -> Self {
        SelfplayStats {
            started: Instant::now(),
            totals: Mutex::new(SelfplayTotals::default()),
        }
    }
}

impl SelfplayStats {
    pub fn update(&self, f: impl FnOnce(&mut SelfplayTotals)) {
        let mut totals = self.totals.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut totals);
    }

    pub fn snapshot(&self) -> SelfplayTotals {
        self.totals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Name/value pairs for logs and TensorBoard (rates are over the whole run).
    pub fn scalars(&self) -> Vec<(&'static str, f64)> {
        let t = self.snapshot();
        let secs = self.elapsed().as_secs_f64().max(1e-9);
        let games = t.games.max(1) as f64;
        vec![
            ("selfplay/games", t.games as f64),
            ("selfplay/games_per_s", t.games as f64 / secs),
            ("selfplay/positions_per_s", t.positions as f64 / secs),
            ("selfplay/mean_game_length", t.mean_game_length()),
            ("selfplay/black_win_rate", t.black_wins as f64 / games),
            ("selfplay/white_win_rate", t.white_wins as f64 / games),
            ("selfplay/draw_rate", t.draws as f64 / games),
            ("selfplay/adjudicated_rate", t.adjudicated as f64 / games),
            ("selfplay/resign_rate", t.resignations as f64 / games),
            ("selfplay/false_resign_rate", t.false_resignation_rate()),
            ("selfplay/resign_threshold", f64::from(t.resign_threshold)),
            ("selfplay/mean_batch_fill", t.mean_batch_fill()),
            ("selfplay/nn_evals_per_s", t.evaluated as f64 / secs),
            ("selfplay/opponent_score", t.opponent_score()),
        ]
    }

    /// One line for logs and the progress bar.
    pub fn summary(&self) -> String {
        let t = self.snapshot();
        let secs = self.elapsed().as_secs_f64().max(1e-9);
        format!(
            "{} games ({:.3}/s), {} positions ({:.1}/s), mean length {:.0}, B/W/D {}/{}/{} ({} at cap), \
             resigned {} (at {:.3}), false resign {}/{}, batch fill {:.0}%, {:.0} evals/s{}",
            t.games,
            t.games as f64 / secs,
            t.positions,
            t.positions as f64 / secs,
            t.mean_game_length(),
            t.black_wins,
            t.white_wins,
            t.draws,
            t.adjudicated,
            t.resignations,
            t.resign_threshold,
            t.false_resignations,
            t.resign_audits,
            100.0 * t.mean_batch_fill(),
            t.evaluated as f64 / secs,
            if let Some(opponent) = t.opponent {
                format!(
                    ", vs {} {:.1}% of {}",
                    opponent,
                    100.0 * t.opponent_score(),
                    t.opponent_games
                )
            } else {
                String::new()
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_rates_follow_the_totals() {
        let t = SelfplayTotals {
            games: 4,
            plies: 400,
            resign_audits: 4,
            false_resignations: 1,
            batches: 10,
            evaluated: 80,
            batch_capacity: 16,
            batch_drivers: 1,
            ..Default::default()
        };
        assert_eq!(t.mean_game_length(), 100.0);
        assert_eq!(t.false_resignation_rate(), 0.25);
        assert_eq!(t.mean_batch_fill(), 0.5);
        assert_eq!(SelfplayTotals::default().mean_batch_fill(), 0.0);
    }

    #[test]
    fn full_batches_of_two_workers_fill_their_drivers() {
        // Two workers of 16 games each: each driver forms its own batches of up to 16.
        let full = SelfplayTotals {
            batches: 10,
            evaluated: 160,
            batch_capacity: 32,
            batch_drivers: 2,
            ..Default::default()
        };
        assert_eq!(full.mean_batch_fill(), 1.0);
        let half = SelfplayTotals {
            evaluated: 80,
            ..full
        };
        assert_eq!(half.mean_batch_fill(), 0.5);
    }
}
