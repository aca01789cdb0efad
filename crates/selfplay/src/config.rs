//! Self-play settings (the `[selfplay]` section of a run configuration).
//!
//! Defaults are for a 2-core CPU: one worker advancing 32 games so that the network always gets
//! a batch, a quarter of the moves searched fully and recorded (playout-cap randomisation), and a
//! ply cap that keeps ~1,400-ply random-ish games from dominating the early run.

use koshogi_mcts::SearchConfig;
use serde::{Deserialize, Serialize};

use crate::fixed_opponent::FixedOpponent;

/// The most positions one shard may hold: readers refuse shards larger than
/// `koshogi_replay::MAX_SHARD_BYTES` uncompressed (256 MiB), and a position with its policy
/// target takes ~420 bytes (a few KB with a thousand policy entries), so this leaves a wide
/// margin (the default is 4,096).
pub const MAX_POSITIONS_PER_SHARD: usize = 16_384;

/// Bounds the resignation calibration's memory (a window of audited sides, 8 bytes each).
pub const MAX_CALIBRATION_WINDOW: u32 = 100_000;

/// How self-play games are played and what is recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfplayConfig {
    /// Worker threads; each owns a search driver and an evaluation thread (its own model copy).
    /// One is right for 2 CPU cores; raise it on a GPU machine whose one driver can't keep up.
    pub workers: usize,
    /// Games each worker advances at once; their leaves share one batched network call.
    pub games_per_worker: usize,
    /// Games are adjudicated after this many plies (not a rule of Ko shogi), see `cap_result`.
    pub max_plies: u32,
    /// What a game stopped at `max_plies` scores. Early self-play rarely finishes a game (random
    /// games last ~1,400 plies), so with `draw` almost every value target is 0; `material` gives
    /// the value head a dense signal from the start.
    pub cap_result: CapResult,
    /// With `cap_result = "material"`: the side with at least this many more pieces wins; a
    /// smaller difference is a draw.
    pub cap_material_margin: u32,
    /// Probability that a move gets the full search (`search.simulations`) and is recorded as a
    /// policy target; the others get `cheap_simulations` and are recorded for value targets only.
    pub full_search_probability: f32,
    /// Simulations of the cheap searches of playout-cap randomisation.
    pub cheap_simulations: u32,
    /// For this many plies from the start the played move is sampled from the search policy
    /// (raised to `1/opening_temperature`) instead of taking the search's choice: opening variety.
    pub opening_plies: u32,
    pub opening_temperature: f32,
    /// Largest number of moves kept in a stored policy target (the smallest weights are dropped
    /// and the rest keep their own probabilities), which keeps shards small.
    pub max_policy_entries: usize,
    /// Policy-target weights below this are dropped (their mass stays with the unlisted moves).
    pub min_policy_weight: f32,
    /// Bootstrap: weight of the material value mixed into the network's value during search
    /// (`(1 - w) * network + w * material`, see `koshogi_mcts::material::blend_material_value`).
    /// 0 turns it off. Only the search sees it; the value targets stay the game results.
    pub material_value_weight: f32,
    /// The weight falls linearly to 0 at this checkpoint step (0 = it never falls).
    pub material_value_until_step: u64,
    /// Fraction of games in which one side (Black or White at random) is `fixed_opponent`
    /// instead of the network. Only the network's positions are recorded. Self-play between two
    /// young networks rarely attacks: the first trained networks lost every game to greedy's
    /// invading pieces, having never met one. 0 turns it off. (Older runs call it
    /// `greedy_opponent_fraction`.)
    #[serde(alias = "greedy_opponent_fraction")]
    pub fixed_opponent_fraction: f32,
    /// The opponent of those games: a classical player (`greedy`, `ab:<depth>`,
    /// `classic@…`) or `pool[:last=K]`, one of the run's last K checkpoints per game with the
    /// cheap search (see [`FixedOpponent`]).
    pub fixed_opponent: FixedOpponent,
    /// Stronger opponents for later checkpoints: from `from_step` on, `opponent` replaces
    /// `fixed_opponent` (a curriculum). An opponent that wins every game teaches a young
    /// network nothing (ab:1 from step 0 scored 0.9 %), while one it beats teaches little more;
    /// the schedule follows the checkpoint step so that every worker, on any machine and after
    /// any restart, agrees on the opponent without shared state. Empty = `fixed_opponent` always.
    pub fixed_opponent_schedule: Vec<OpponentStage>,
    /// Games played by checkpoints from this step on search without the hand-written root
    /// help: no forced capture candidates, no forced threat answer, no capture-first replies
    /// (`[search.gumbel] capture_candidates`, `evasion_candidates`, `capture_first_reply`).
    /// They buy the first hour; whether they cap what the network can learn is what switching
    /// them off measures. 0 = never switched off.
    pub forced_candidates_until_step: u64,
    pub resign: ResignConfig,
    /// Positions per replay shard (a game is never split; a shard is written once this many
    /// positions have accumulated).
    pub positions_per_shard: usize,
    /// Save every finished game as a text record under `<run>/games/`.
    pub save_game_records: bool,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            workers: 1,
            games_per_worker: 32,
            max_plies: 600,
            cap_result: CapResult::Draw,
            cap_material_margin: 2,
            full_search_probability: 0.25,
            cheap_simulations: 4,
            opening_plies: 20,
            opening_temperature: 1.0,
            max_policy_entries: 24,
            min_policy_weight: 1e-3,
            material_value_weight: 0.0,
            material_value_until_step: 0,
            fixed_opponent_fraction: 0.0,
            fixed_opponent: FixedOpponent::Greedy,
            fixed_opponent_schedule: Vec::new(),
            forced_candidates_until_step: 0,
            resign: ResignConfig::default(),
            positions_per_shard: 4096,
            save_game_records: true,
        }
    }
}

/// One stage of `selfplay.fixed_opponent_schedule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpponentStage {
    /// The first checkpoint step that meets this opponent.
    pub from_step: u64,
    pub opponent: FixedOpponent,
}

/// How a game that reaches `max_plies` is scored (engine-side adjudication, §10.8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapResult {
    /// A draw, whatever the position.
    #[default]
    Draw,
    /// The side ahead by at least `cap_material_margin` pieces wins, otherwise a draw.
    Material,
}

/// Resignation: saves the tail of lost games, checked in a fraction of games where it is off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResignConfig {
    pub enabled: bool,
    /// A side resigns when its root value (in [-1, 1]) stays below `-threshold` ...
    pub threshold: f32,
    /// ... for this many of its own consecutive moves.
    pub consecutive_moves: u32,
    /// Fraction of games played to the end regardless, to measure false resignations.
    pub disabled_fraction: f32,
    /// No resignation before this ply (values of an untrained network are noise early on).
    pub min_ply: u32,
    /// When set, `threshold` is only where resignation starts and the lowest it may go: the
    /// pool resigns at the lowest threshold at which at most this fraction of the audit games'
    /// would-be resignations were false (`crate::resign_calibration`). Unset: a fixed threshold.
    pub max_false_rate: Option<f32>,
    /// How many audited sides (the latest) the calibration weighs.
    pub calibration_window: u32,
}

impl Default for ResignConfig {
    fn default() -> Self {
        ResignConfig {
            enabled: true,
            threshold: 0.9,
            consecutive_moves: 6,
            disabled_fraction: 0.1,
            min_ply: 40,
            max_false_rate: None,
            calibration_window: 200,
        }
    }
}

impl SelfplayConfig {
    /// The margin for `Game::with_material_adjudication` (`None` with `cap_result = "draw"`).
    pub fn material_adjudication(&self) -> Option<u32> {
        match self.cap_result {
            CapResult::Draw => None,
            CapResult::Material => Some(self.cap_material_margin),
        }
    }

    /// The material weight for a network at checkpoint `step` (None = random initialisation).
    pub fn material_value_weight_at(&self, step: Option<u64>) -> f32 {
        let step = step.unwrap_or(0);
        match self.material_value_until_step {
            0 => self.material_value_weight,
            until if step >= until => 0.0,
            until => self.material_value_weight * (1.0 - step as f32 / until as f32),
        }
    }

    /// The fixed opponent of a game played by the checkpoint at `step` (0 = random start).
    pub fn fixed_opponent_at(&self, step: u64) -> FixedOpponent {
        self.fixed_opponent_schedule
            .iter()
            .take_while(|stage| stage.from_step <= step)
            .last()
            .map_or(self.fixed_opponent, |stage| stage.opponent)
    }

    /// The search settings of a game played by the checkpoint at `step`: `search`, without the
    /// forced root candidates and capture-first replies from `forced_candidates_until_step` on.
    pub fn search_at(&self, search: &SearchConfig, step: u64) -> SearchConfig {
        let mut search = search.clone();
        let until = self.forced_candidates_until_step;
        if until > 0 && step >= until {
            search.gumbel.capture_candidates = 0;
            search.gumbel.evasion_candidates = 0;
            search.gumbel.capture_first_reply = false;
        }
        search
    }

    /// The most checkpoints any `pool` opponent of the settings picks from (0 = no pool).
    pub fn pool_size(&self) -> u32 {
        std::iter::once(self.fixed_opponent)
            .chain(
                self.fixed_opponent_schedule
                    .iter()
                    .map(|stage| stage.opponent),
            )
            .filter_map(|opponent| match opponent {
                FixedOpponent::Pool { last } => Some(last),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Rejects settings that cannot work, with a message naming the field.
    pub fn validate(&self) -> Result<(), crate::SelfplayError> {
        let bad = |field: &str, why: &str| {
            Err(crate::SelfplayError::Config(format!(
                "selfplay.{field}: {why}"
            )))
        };
        if self.workers == 0 {
            return bad("workers", "must be at least 1");
        }
        if self.games_per_worker == 0 {
            return bad("games_per_worker", "must be at least 1");
        }
        if self.max_plies == 0 {
            return bad("max_plies", "must be at least 1");
        }
        if self.cap_result == CapResult::Material && self.cap_material_margin == 0 {
            return bad(
                "cap_material_margin",
                "must be at least 1 (equal material cannot have a winner)",
            );
        }
        if !(0.0..=1.0).contains(&self.full_search_probability) {
            return bad("full_search_probability", "must lie in [0, 1]");
        }
        if !(1..=koshogi_mcts::MAX_SIMULATIONS).contains(&self.cheap_simulations) {
            return bad(
                "cheap_simulations",
                &format!("must be in 1..={}", koshogi_mcts::MAX_SIMULATIONS),
            );
        }
        if self.opening_temperature.is_nan() || self.opening_temperature <= 0.0 {
            return bad("opening_temperature", "must be positive");
        }
        if self.max_policy_entries == 0 {
            return bad("max_policy_entries", "must be at least 1");
        }
        if !(0.0..=1.0).contains(&self.fixed_opponent_fraction) {
            return bad("fixed_opponent_fraction", "must lie in [0, 1]");
        }
        let steps = self
            .fixed_opponent_schedule
            .iter()
            .map(|stage| stage.from_step);
        if steps.clone().zip(steps.skip(1)).any(|(a, b)| a >= b) {
            return bad(
                "fixed_opponent_schedule",
                "from_step must increase from one stage to the next",
            );
        }
        if !(0.0..=1.0).contains(&self.material_value_weight) {
            return bad("material_value_weight", "must lie in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.resign.disabled_fraction) {
            return bad("resign.disabled_fraction", "must lie in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.resign.threshold) {
            return bad("resign.threshold", "must lie in [0, 1]");
        }
        if self
            .resign
            .max_false_rate
            .is_some_and(|rate| !(0.0..=1.0).contains(&rate))
        {
            return bad("resign.max_false_rate", "must lie in [0, 1]");
        }
        if !(1..=MAX_CALIBRATION_WINDOW).contains(&self.resign.calibration_window) {
            return bad(
                "resign.calibration_window",
                &format!("must be in 1..={MAX_CALIBRATION_WINDOW}"),
            );
        }
        if self.resign.max_false_rate.is_some() && self.resign.disabled_fraction == 0.0 {
            return bad(
                "resign.max_false_rate",
                "needs audit games to calibrate on (resign.disabled_fraction > 0)",
            );
        }
        if !(1..=MAX_POSITIONS_PER_SHARD).contains(&self.positions_per_shard) {
            return bad(
                "positions_per_shard",
                &format!("must be in 1..={MAX_POSITIONS_PER_SHARD}"),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forced_root_help_is_switched_off_from_the_configured_step() {
        let mut search = SearchConfig::default();
        search.gumbel.capture_candidates = 2;
        search.gumbel.evasion_candidates = 1;
        search.gumbel.capture_first_reply = true;
        let forced = |config: &SearchConfig| {
            (
                config.gumbel.capture_candidates,
                config.gumbel.evasion_candidates,
                config.gumbel.capture_first_reply,
            )
        };
        let never = SelfplayConfig::default();
        assert_eq!(forced(&never.search_at(&search, u64::MAX)), (2, 1, true));
        let config = SelfplayConfig {
            forced_candidates_until_step: 4000,
            ..SelfplayConfig::default()
        };
        assert_eq!(forced(&config.search_at(&search, 3999)), (2, 1, true));
        assert_eq!(forced(&config.search_at(&search, 4000)), (0, 0, false));
        assert_eq!(forced(&config.search_at(&search, 90_000)), (0, 0, false));
        // Nothing else changes.
        let late = config.search_at(&search, 4000);
        assert_eq!(late.simulations, search.simulations);
        assert_eq!(
            late.gumbel.max_considered_actions,
            search.gumbel.max_considered_actions
        );
    }

    #[test]
    fn the_opponent_schedule_follows_the_checkpoint_step() {
        let stage = |from_step, opponent: &str| OpponentStage {
            from_step,
            opponent: opponent.parse().unwrap(),
        };
        let config = SelfplayConfig {
            fixed_opponent: FixedOpponent::Greedy,
            fixed_opponent_schedule: vec![stage(100, "ab:1"), stage(300, "ab:2")],
            ..SelfplayConfig::default()
        };
        config.validate().unwrap();
        let at = |step| config.fixed_opponent_at(step).to_string();
        assert_eq!(at(0), "greedy");
        assert_eq!(at(99), "greedy");
        assert_eq!(at(100), "ab:1");
        assert_eq!(at(299), "ab:1");
        assert_eq!(at(300), "ab:2");
        assert_eq!(at(u64::MAX), "ab:2");
        assert_eq!(
            SelfplayConfig::default().fixed_opponent_at(5000),
            FixedOpponent::Greedy
        );

        let unordered = SelfplayConfig {
            fixed_opponent_schedule: vec![stage(300, "ab:2"), stage(300, "ab:1")],
            ..config
        };
        let err = unordered.validate().unwrap_err().to_string();
        assert!(err.contains("fixed_opponent_schedule"), "{err}");
    }

    #[test]
    fn the_material_weight_falls_linearly_to_zero_at_its_last_step() {
        let config = SelfplayConfig {
            material_value_weight: 0.5,
            material_value_until_step: 1000,
            ..SelfplayConfig::default()
        };
        assert_eq!(config.material_value_weight_at(None), 0.5);
        assert_eq!(config.material_value_weight_at(Some(0)), 0.5);
        assert!((config.material_value_weight_at(Some(600)) - 0.2).abs() < 1e-6);
        assert_eq!(config.material_value_weight_at(Some(1000)), 0.0);
        assert_eq!(config.material_value_weight_at(Some(5000)), 0.0);
        let constant = SelfplayConfig {
            material_value_until_step: 0,
            ..config.clone()
        };
        assert_eq!(constant.material_value_weight_at(Some(1_000_000)), 0.5);
        let bad = SelfplayConfig {
            material_value_weight: 1.5,
            ..config
        };
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("material_value_weight"));
    }

    #[test]
    fn shard_sizes_and_cheap_searches_stay_within_what_readers_accept() {
        type Edit = fn(&mut SelfplayConfig);
        let cases: [(Edit, &str); 3] = [
            (
                |c| c.positions_per_shard = MAX_POSITIONS_PER_SHARD + 1,
                "positions_per_shard",
            ),
            (|c| c.cheap_simulations = u32::MAX, "cheap_simulations"),
            (|c| c.cheap_simulations = 0, "cheap_simulations"),
        ];
        for (edit, field) in cases {
            let mut config = SelfplayConfig::default();
            edit(&mut config);
            let error = config.validate().unwrap_err().to_string();
            assert!(error.contains(field), "{error}");
        }
        // The largest shard self-play may write, at its largest policy targets, is readable.
        let widest = SelfplayConfig {
            positions_per_shard: MAX_POSITIONS_PER_SHARD,
            ..SelfplayConfig::default()
        };
        widest.validate().unwrap();
        let bytes_per_position = koshogi_replay::BOARD_BYTES + 40 + 4 * widest.max_policy_entries;
        assert!(
            (MAX_POSITIONS_PER_SHARD * bytes_per_position) as u64 * 4
                < koshogi_replay::MAX_SHARD_BYTES
        );
    }

    #[test]
    fn a_calibrated_resignation_needs_a_rate_a_window_and_audit_games() {
        type Edit = fn(&mut ResignConfig);
        let cases: [(Edit, &str); 4] = [
            (|r| r.max_false_rate = Some(1.5), "must lie in [0, 1]"),
            (|r| r.max_false_rate = Some(f32::NAN), "must lie in [0, 1]"),
            (|r| r.calibration_window = 0, "calibration_window"),
            (
                |r| {
                    r.max_false_rate = Some(0.05);
                    r.disabled_fraction = 0.0;
                },
                "needs audit games",
            ),
        ];
        for (edit, message) in cases {
            let mut config = SelfplayConfig::default();
            edit(&mut config.resign);
            let error = config.validate().unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
        let mut calibrated = SelfplayConfig::default();
        calibrated.resign.max_false_rate = Some(0.05);
        calibrated.validate().unwrap();
        let parsed: ResignConfig = toml::from_str("max_false_rate = 0.05").unwrap();
        assert_eq!(parsed.max_false_rate, Some(0.05));
        assert_eq!(parsed.calibration_window, 200);
    }
}
