//! Search configuration (serde, so it can live in the run's TOML file).
//!
//! Every field has a default (`#[serde(default)]`), so a config file only names what it changes.
//! The defaults are the CPU self-play setting: Gumbel root search with 16 simulations per move.

use serde::{Deserialize, Serialize};

/// The most simulations one search may be given. The Gumbel root's visit schedule holds one
/// entry (4 bytes) per simulation, so a count from a file or a protocol line is refused above
/// this rather than allocated (at 2^32 it would ask for 16 GiB).
pub const MAX_SIMULATIONS: u32 = 10_000_000;

/// A search setting out of its range, named as the run configuration names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("search.{field} {problem}")]
pub struct SearchConfigError {
    pub field: &'static str,
    pub problem: String,
}

/// Which root algorithm chooses moves and produces the policy target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Gumbel root search with sequential halving (Danihelka et al. 2022); learns from few
    /// simulations, so it is the default on CPU.
    #[default]
    Gumbel,
    /// AlphaZero PUCT with Dirichlet noise and visit-count targets.
    Puct,
}

/// Parameters of one search (one tree).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    pub algorithm: Algorithm,
    /// Simulations per move (leaf visits below the root; the root's own evaluation is extra).
    pub simulations: u32,
    /// Leaves one tree may have waiting for evaluation at once. 1 = plain sequential search;
    /// more uses virtual loss so that a few games can still fill a batch.
    pub leaves_per_tree: u32,
    /// Arena budget: at most this many nodes per tree. When reached the search stops early and
    /// answers from what it has.
    pub max_nodes: u32,
    /// Arena budget: at most this many edges (one per legal move of an expanded node).
    /// An expanded Ko shogi node costs 44 + 28 * (legal moves) bytes (about 6.4 KB at the
    /// ~230 moves of an opening position), so the default 2^18 edges (7 MiB) hold about 1,100
    /// expanded nodes: plenty for 8-64 simulations per move with tree reuse.
    pub max_edges: u32,
    /// Keep the subtree of the played move for the next search.
    pub reuse_tree: bool,
    pub gumbel: GumbelConfig,
    pub puct: PuctConfig,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            algorithm: Algorithm::Gumbel,
            simulations: 16,
            leaves_per_tree: 1,
            max_nodes: 1 << 14,
            max_edges: 1 << 18,
            reuse_tree: true,
            gumbel: GumbelConfig::default(),
            puct: PuctConfig::default(),
        }
    }
}

impl SearchConfig {
    /// The checks every reader of a search configuration needs (run files, the gate's settings).
    pub fn validate(&self) -> Result<(), SearchConfigError> {
        let bad = |field, problem: String| Err(SearchConfigError { field, problem });
        if !(1..=MAX_SIMULATIONS).contains(&self.simulations) {
            return bad("simulations", format!("must be in 1..={MAX_SIMULATIONS}"));
        }
        let gumbel = &self.gumbel;
        if gumbel.max_considered_actions == 0 {
            return bad("gumbel.max_considered_actions", "must be at least 1".into());
        }
        if !(gumbel.min_q_range >= 0.0 && gumbel.min_q_range.is_finite()) {
            return bad(
                "gumbel.min_q_range",
                "must be non-negative and finite".into(),
            );
        }
        // In u64: two u32 counts from the file must not overflow (a panic in debug builds).
        if u64::from(gumbel.capture_candidates) + u64::from(gumbel.evasion_candidates)
            > u64::from(gumbel.max_considered_actions)
        {
            return bad(
                "gumbel.capture_candidates",
                "+ evasion_candidates must not exceed max_considered_actions".into(),
            );
        }
        Ok(())
    }
}

/// Gumbel root search (names follow the paper; defaults follow its reference code `mctx`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GumbelConfig {
    /// m: root moves sampled without replacement by Gumbel-top-k.
    pub max_considered_actions: u32,
    /// Scale of the Gumbel noise; 0 gives a deterministic search (evaluation play).
    pub gumbel_scale: f32,
    /// c_visit in sigma(q) = (c_visit + max_b N(b)) * c_scale * q.
    pub c_visit: f32,
    /// c_scale in sigma(q).
    pub c_scale: f32,
    /// Min-max rescale the completed Q values to [0, 1] before sigma (as `mctx` does by default).
    pub rescale_q: bool,
    /// Smallest Q range the rescale divides by (Q lies in [-1, 1]). `mctx` divides by the
    /// observed range however small, so with one visit per move, noise of a few hundredths
    /// between equally good moves becomes a full-scale preference (~5 nats) and the improved
    /// policy sharpens toward the prior's favourites every generation. A floor keeps small
    /// differences small.
    pub min_q_range: f32,
    /// The most valuable root captures (by the piece values of what they remove, ties by
    /// Gumbel-perturbed prior) are always among the considered moves, up to this many,
    /// replacing the lowest-ranked non-captures. With ~250 legal moves and a few simulations,
    /// Gumbel-top-k alone rarely tries a capture the prior does not already like (a young
    /// network never recaptured an invading piece), so the search could never teach the
    /// policy that one wins material. It is move ordering, as engines order captures by
    /// victim value: it changes which moves are searched, never their values.
    pub capture_candidates: u32,
    /// The best answers to the opponent's biggest threat (moves that take the threatened
    /// piece away or remove its attacker, ranked by the value saved, ties by Gumbel-perturbed
    /// prior) are always among the considered moves too, up to this many, after the capture
    /// candidates. Engines search check evasions for the same reason: with 4 of ~250 moves
    /// compared, the move that saves an attacked general was almost never among them, and
    /// young networks lost their command to the greedy player within 100 plies
    /// (`crate::threats`). Move ordering only, like `capture_candidates`.
    pub evasion_candidates: u32,
    /// Below the root, a node's first visit goes to its most valuable capture (if it has
    /// one), the way an engine answers a move with captures first. With two visits per root
    /// move the second one is the opponent's reply, and a young network's prior picks that
    /// reply almost at random: a move that leaves the general en prise looked as good as any
    /// other. Only the order of visits changes, never a value.
    pub capture_first_reply: bool,
    /// Whether the root may choose a pass (a move that leaves the board as it was). With
    /// `false` the root's passes get no prior, so they are never considered and never get
    /// policy-target mass, unless every legal move is a pass. A young network's search
    /// rated a pass safest (it changes nothing the value head could misjudge), the targets
    /// taught it, and the trained network passed half its moves while its pieces were taken.
    /// Passes stay legal below the root: the opponent's pass is still searched.
    pub root_passes: bool,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig {
            max_considered_actions: 16,
            gumbel_scale: 1.0,
            c_visit: 50.0,
            c_scale: 0.1,
            rescale_q: true,
            min_q_range: 1e-8,
            capture_candidates: 0,
            evasion_candidates: 0,
            capture_first_reply: false,
            root_passes: true,
        }
    }
}

impl GumbelConfig {
    /// Deterministic play with `simulations` per move (arena, gate, ladder): no root noise,
    /// and few enough considered moves that each gets at least two visits, so that every move
    /// tried is also answered: with m = n = 16 each move got one visit and the search was one
    /// ply deep, blind to any recapture. Half of the considered moves are kept for captures,
    /// one for the answer to the biggest threat, and replies try the biggest capture first.
    /// `c_scale = 1` (the Gumbel paper's value for board games; `mctx` defaults to 0.1): with
    /// the floor on the Q range, 0.1 left a chariot's worth of Q a 1-4 nat nudge that the
    /// network's prior overrode. Measured with a random network, 16 simulations, against
    /// greedy (40 games each): 8.8 % at 0.1, 71.2 % at 1.0.
    pub fn evaluation(simulations: u32) -> GumbelConfig {
        // The largest m <= 16 whose first halving phase gives each move two visits:
        // n / (ceil(log2 m) * m) >= 2 (see `sequential_halving`); at least 2.
        let first_phase_visits = |m: u32| simulations / ((32 - (m - 1).leading_zeros()) * m);
        let considered = (2..=16u32)
            .rev()
            .find(|&m| first_phase_visits(m) >= 2)
            .unwrap_or(2);
        GumbelConfig {
            max_considered_actions: considered,
            gumbel_scale: 0.0,
            min_q_range: 0.5,
            capture_candidates: considered / 2,
            evasion_candidates: 1,
            c_scale: 1.0,
            capture_first_reply: true,
            root_passes: false,
            ..GumbelConfig::default()
        }
    }
}

/// AlphaZero PUCT.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PuctConfig {
    /// c_init of the growing exploration constant c(N) = c_init + ln((N + c_base + 1) / c_base).
    pub c_init: f32,
    pub c_base: f32,
    /// Total Dirichlet concentration at the root, spread over the legal moves
    /// (alpha per move = total / number of moves, as KataGo does), so noise has the same
    /// strength with 20 or 800 legal moves.
    pub dirichlet_total_alpha: f32,
    /// Weight of the noise in the root priors (0 disables it).
    pub dirichlet_fraction: f32,
    /// First-play urgency: an unvisited child is valued at the parent's Q minus
    /// `fpu_reduction * sqrt(prior mass of visited children)` (Leela's form).
    pub fpu_reduction: f32,
    /// The same at the root (often 0 when noise is on, so noise-boosted moves get tried).
    pub fpu_reduction_root: f32,
    /// Move choice: sample proportionally to N^(1/T); 0 = most visited.
    pub temperature: f32,
}

impl Default for PuctConfig {
    fn default() -> Self {
        PuctConfig {
            c_init: 1.25,
            c_base: 19652.0,
            dirichlet_total_alpha: 10.0,
            dirichlet_fraction: 0.25,
            fpu_reduction: 0.2,
            fpu_reduction_root: 0.0,
            temperature: 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_toml_keeps_the_other_defaults() {
        let config: SearchConfig =
            toml::from_str("algorithm = \"puct\"\nsimulations = 64\n[puct]\ntemperature = 0.0\n")
                .unwrap();
        assert_eq!(config.algorithm, Algorithm::Puct);
        assert_eq!(config.simulations, 64);
        assert_eq!(config.puct.temperature, 0.0);
        assert_eq!(config.puct.c_init, PuctConfig::default().c_init);
        assert_eq!(config.gumbel, GumbelConfig::default());
    }

    #[test]
    fn evaluation_play_visits_every_considered_move_at_least_twice() {
        for simulations in [4, 8, 16, 24, 32, 64, 200] {
            let gumbel = GumbelConfig::evaluation(simulations);
            let m = gumbel.max_considered_actions;
            let schedule = crate::sequential_halving::considered_visit_sequence(m, simulations);
            // The first phase's visits: each of the m moves appears `per_action` times.
            let first_phase_visits = schedule.iter().filter(|&&v| v == 1).count() as u32;
            assert_eq!(first_phase_visits, m, "n={simulations} m={m}: {schedule:?}");
            assert_eq!(gumbel.gumbel_scale, 0.0);
        }
        assert_eq!(GumbelConfig::evaluation(16).max_considered_actions, 4);
        assert_eq!(GumbelConfig::evaluation(64).max_considered_actions, 8);
        assert_eq!(GumbelConfig::evaluation(2).max_considered_actions, 2);
    }

    #[test]
    fn validation_bounds_the_simulations_and_the_root_candidates() {
        assert_eq!(SearchConfig::default().validate(), Ok(()));
        let with = |edit: fn(&mut SearchConfig)| {
            let mut config = SearchConfig::default();
            edit(&mut config);
            config.validate().map_err(|e| e.to_string())
        };
        assert!(with(|c| c.simulations = MAX_SIMULATIONS).is_ok());
        for (edit, field) in [
            (
                (|c: &mut SearchConfig| c.simulations = 0) as fn(&mut SearchConfig),
                "search.simulations",
            ),
            (
                |c| c.simulations = MAX_SIMULATIONS + 1,
                "search.simulations",
            ),
            (|c| c.simulations = u32::MAX, "search.simulations"),
            (
                |c| c.gumbel.max_considered_actions = 0,
                "search.gumbel.max_considered_actions",
            ),
            (
                |c| c.gumbel.min_q_range = f32::NAN,
                "search.gumbel.min_q_range",
            ),
            (
                |c| {
                    c.gumbel.capture_candidates = u32::MAX;
                    c.gumbel.evasion_candidates = u32::MAX;
                },
                "search.gumbel.capture_candidates",
            ),
        ] {
            let error = with(edit).unwrap_err();
            assert!(error.starts_with(field), "{error}");
        }
    }

    #[test]
    fn unknown_keys_are_rejected() {
        assert!(toml::from_str::<SearchConfig>("simulatons = 3\n").is_err());
    }

    #[test]
    fn json_round_trip() {
        let config = SearchConfig {
            simulations: 7,
            ..SearchConfig::default()
        };
        let text = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<SearchConfig>(&text).unwrap(), config);
    }
}
