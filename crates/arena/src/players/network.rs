//! Players backed by a checkpoint: the raw policy (no search) and tree search.
//!
//! Both evaluate all the games where they are to move in one batch: the policy player with one
//! forward pass per call, the search player through `koshogi_mcts`'s batching driver (all
//! searches of a call share one evaluation thread, two batches in flight).
//!
//! Evaluation play is deterministic given the position: the policy player takes the most
//! probable move (ties broken by the request's seed), the search player runs Gumbel search with
//! `gumbel_scale = 0` (no root noise) unless told otherwise. Variety between games comes from the
//! arena's random openings. Each move starts a fresh tree (no reuse across moves), so a move
//! depends only on the game and the request's seed. Unless `avoid_repetition` is off, both take
//! their best move that does not recreate an earlier position ([`best_fresh_move`]).
//!
//! With a time per move ([`MctsPlayer::with_movetime`]) the search player sizes each move's
//! simulations from the throughput it measured on earlier moves (so that Gumbel's sequential
//! halving plays out its whole schedule) and stops at the deadline whatever that estimate says:
//! equal time per move against `classic@movetime=…` or an engine. The time of a move depends on
//! the machine, so timed play is not reproducible move for move.

use std::path::Path;
use std::time::{Duration, Instant};

use koshogi_mcts::{DriverConfig, EvalError, EvalThread, Search, SearchConfig, SearchDriver};
use koshogi_nn::{
    EvalPosition, Evaluation as NetEvaluation, FeatureInput, InferenceModel, ModelCard,
    NetworkEvaluator, NnError, RuntimeConfig,
};
use koshogi_rules::{Game, Move, RulesOptions};
use rand::Rng;

use super::repetition::best_fresh_move;
use crate::matches::{MoveRequest, Player, PlayerError};
pub use koshogi_nn::checkpoint::{resolve_card, CheckpointPathError};

/// The rule options a checkpoint was trained under (default options if the card's are unreadable).
pub fn card_rules_options(card: &ModelCard) -> RulesOptions {
    serde_json::from_value(card.rules_options.clone()).unwrap_or_default()
}

fn failed(player: &str, message: impl ToString) -> PlayerError {
    PlayerError::Failed {
        player: player.to_string(),
        message: message.to_string(),
    }
}

/// The network's most probable legal move, without search.
pub struct PolicyPlayer {
    name: String,
    model: InferenceModel,
    evaluations: Vec<NetEvaluation>,
    avoid_repetition: bool,
}

impl PolicyPlayer {
    pub fn load(
        card: &Path,
        runtime: &RuntimeConfig,
        name: impl Into<String>,
    ) -> Result<Self, NnError> {
        let (model, _) = InferenceModel::load(card, runtime)?;
        Ok(Self::from_model(model, name))
    }

    pub fn from_model(model: InferenceModel, name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            model,
            evaluations: Vec::new(),
            avoid_repetition: true,
        }
    }

    /// Whether to prefer moves that do not repeat a position (on by default).
    pub fn with_avoid_repetition(mut self, avoid: bool) -> Self {
        self.avoid_repetition = avoid;
        self
    }
}

impl Player<Game> for PolicyPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        let legal: Vec<Vec<Move>> = requests.iter().map(|r| r.game.legal_moves()).collect();
        let positions: Vec<EvalPosition<'_>> = requests
            .iter()
            .zip(&legal)
            .map(|(r, moves)| EvalPosition {
                input: FeatureInput::from_game(r.game),
                moves,
            })
            .collect();
        self.evaluations.clear();
        self.model
            .evaluate(&positions, &mut self.evaluations)
            .map_err(|e| failed(&self.name, e))?;
        requests
            .iter()
            .zip(&legal)
            .zip(&self.evaluations)
            .map(|((request, moves), evaluation)| {
                let best = evaluation
                    .policy
                    .iter()
                    .copied()
                    .fold(f32::NEG_INFINITY, f32::max);
                let top: Vec<usize> = (0..moves.len())
                    .filter(|&i| evaluation.policy[i] == best)
                    .collect();
                if top.is_empty() {
                    return Err(PlayerError::NoLegalMove {
                        player: self.name.clone(),
                        game_index: request.game_index,
                    });
                }
                let best = moves[top[request.rng().random_range(0..top.len())]];
                if !self.avoid_repetition {
                    return Ok(best);
                }
                Ok(best_fresh_move(
                    request.game,
                    best,
                    moves,
                    &evaluation.policy,
                ))
            })
            .collect()
    }
}

/// Tree search with the network: one fresh search per move, all games of a call searched
/// together through one batching driver.
pub struct MctsPlayer {
    name: String,
    driver: SearchDriver<Game>,
    config: SearchConfig,
    avoid_repetition: bool,
    timing: Option<MoveTiming>,
}

/// Searching by time: the time per move and the simulations per second measured so far.
#[derive(Clone, Copy, Debug)]
struct MoveTiming {
    movetime: Duration,
    /// Whether each move's re-sized configuration keeps the forced root candidates and the
    /// capture-first replies ([`MctsPlayer::evaluation_config_with`]).
    forced_candidates: bool,
    /// Simulations per second over all searches of a call (a running mean); `None` before
    /// the first move, which searches the configured count.
    throughput: Option<f64>,
}

/// A timed move is planned to end this early, so that the deadline (which stops the search
/// whatever it planned) is the exception.
const TIMED_PLAN_FRACTION: f64 = 0.9;
/// Fewest simulations a timed move plans: each of two root candidates visited twice.
const MIN_TIMED_SIMULATIONS: u32 = 4;

impl MctsPlayer {
    /// Loads the checkpoint on a new evaluation thread. `config.simulations` sets the budget.
    pub fn load(
        card: &Path,
        runtime: &RuntimeConfig,
        config: SearchConfig,
        name: impl Into<String>,
    ) -> Result<Self, EvalError> {
        Self::load_with_utility(card, runtime, config, name, None)
    }

    /// [`MctsPlayer::load`], with the search reading the network's value with `utility` as
    /// its material weight instead of the card's `material_utility` (0: the network alone).
    pub fn load_with_utility(
        card: &Path,
        runtime: &RuntimeConfig,
        config: SearchConfig,
        name: impl Into<String>,
        utility: Option<f32>,
    ) -> Result<Self, EvalError> {
        let card = card.to_path_buf();
        let runtime = *runtime;
        // libtorch's intra-op thread count is per thread (OpenMP): carry the caller's setting
        // over to the evaluation thread, or `--threads` would not reach the search.
        let threads = tch::get_num_threads();
        let eval = EvalThread::spawn(move || {
            koshogi_nn::set_intra_op_threads(threads);
            InferenceModel::load(&card, &runtime)
                .map(|(mut model, _)| {
                    if let Some(weight) = utility {
                        model.set_material_utility(weight);
                    }
                    NetworkEvaluator::new(model)
                })
                .map_err(|e| EvalError::Failed(e.to_string()))
        })?;
        Ok(Self::with_thread(eval, config, name))
    }

    /// Search over any evaluator thread (tests use cheap evaluators).
    pub fn with_thread(
        eval: EvalThread<Game>,
        config: SearchConfig,
        name: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            driver: SearchDriver::new(eval, DriverConfig::default()),
            config,
            avoid_repetition: true,
            timing: None,
        }
    }

    /// Search each move for `movetime` (see the module's header); `None` = the configured
    /// simulations. The configured count sizes the first timed move; the later ones are
    /// configured by [`MctsPlayer::evaluation_config_with`] with `forced_candidates`.
    pub fn with_movetime(mut self, movetime: Option<Duration>, forced_candidates: bool) -> Self {
        self.timing = movetime.map(|movetime| MoveTiming {
            movetime,
            forced_candidates,
            throughput: None,
        });
        self
    }

    /// Whether to prefer moves that do not repeat a position (on by default).
    pub fn with_avoid_repetition(mut self, avoid: bool) -> Self {
        self.avoid_repetition = avoid;
        self
    }

    /// What the batching driver has done so far (batches, positions evaluated, waiting time).
    pub fn driver_stats(&self) -> koshogi_mcts::DriverStats {
        self.driver.stats()
    }

    /// Evaluation defaults: Gumbel search without root noise
    /// ([`koshogi_mcts::GumbelConfig::evaluation`]).
    pub fn evaluation_config(simulations: u32) -> SearchConfig {
        SearchConfig {
            simulations,
            reuse_tree: false,
            gumbel: koshogi_mcts::GumbelConfig::evaluation(simulations),
            ..SearchConfig::default()
        }
    }

    /// [`MctsPlayer::evaluation_config`] with the root's forced capture and threat-answer
    /// candidates and the capture-first replies on or off (`forced=off`: the search's order
    /// is the network's prior alone).
    pub fn evaluation_config_with(simulations: u32, forced_candidates: bool) -> SearchConfig {
        let mut config = Self::evaluation_config(simulations);
        if !forced_candidates {
            config.gumbel.capture_candidates = 0;
            config.gumbel.evasion_candidates = 0;
            config.gumbel.capture_first_reply = false;
        }
        config
    }

    /// The configuration of one timed call of `searches` searches: the simulations the measured
    /// throughput allows in the time (Gumbel's candidates re-sized for them), room in the tree
    /// for them, and a few leaves per tree in flight so that a handful of games still fills
    /// the network's batches.
    fn timed_config(&self, timing: &MoveTiming, searches: usize) -> SearchConfig {
        let simulations = match timing.throughput {
            None => self.config.simulations,
            Some(per_second) => {
                let planned = per_second * timing.movetime.as_secs_f64() * TIMED_PLAN_FRACTION
                    / searches.max(1) as f64;
                (planned as u32).clamp(MIN_TIMED_SIMULATIONS, koshogi_mcts::MAX_SIMULATIONS)
            }
        };
        let mut config = Self::evaluation_config_with(simulations, timing.forced_candidates);
        config.max_nodes = TIMED_MAX_NODES;
        config.max_edges = TIMED_MAX_EDGES;
        config.leaves_per_tree = (TIMED_LEAVES_PER_CALL / searches.max(1) as u32).clamp(1, 8);
        config
    }
}

/// Tree bounds of a timed search: 2^20 edges of 28 bytes (28 MiB, about 4,500 expanded nodes
/// of ~230 moves) and 2^16 nodes per tree; a search that fills them answers early.
const TIMED_MAX_EDGES: u32 = 1 << 20;
const TIMED_MAX_NODES: u32 = 1 << 16;
/// Leaves in flight per timed call, shared by its searches (one game: 8 per tree).
const TIMED_LEAVES_PER_CALL: u32 = 16;

impl Player<Game> for MctsPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        let started = Instant::now();
        let timing = self.timing;
        let config = match &timing {
            Some(timing) => self.timed_config(timing, requests.len()),
            None => self.config.clone(),
        };
        let mut searches: Vec<Search<Game>> = requests
            .iter()
            .map(|r| Search::new(r.game.clone(), config.clone(), r.seed))
            .collect();
        for search in &mut searches {
            search.start().map_err(|e| failed(&self.name, e))?;
        }
        match &timing {
            Some(timing) => {
                let deadline = started + timing.movetime;
                self.driver
                    .run_until(&mut searches, |_, _| {}, |_| Instant::now() < deadline)
                    .map_err(|e| failed(&self.name, e))?;
            }
            None => self
                .driver
                .run(&mut searches)
                .map_err(|e| failed(&self.name, e))?,
        }
        let results = searches
            .iter_mut()
            .map(|s| s.result().map_err(|e| failed(&self.name, e)))
            .collect::<Result<Vec<_>, _>>()?;
        if let (Some(timing), Some(seconds)) = (&mut self.timing, measured(started.elapsed())) {
            let simulations: u64 = results.iter().map(|r| u64::from(r.simulations)).sum();
            let sample = simulations as f64 / seconds;
            tracing::debug!(
                player = %self.name,
                searches = results.len(),
                simulations,
                seconds,
                "timed move"
            );
            timing.throughput = Some(match timing.throughput {
                Some(mean) => 0.5 * (mean + sample),
                None => sample,
            });
        }
        results
            .into_iter()
            .zip(requests)
            .map(|(result, request)| {
                if !self.avoid_repetition {
                    return Ok(result.chosen_move);
                }
                // The search's choice first, then the rest by its improved policy.
                Ok(best_fresh_move(
                    request.game,
                    result.chosen_move,
                    &result.moves,
                    &result.policy,
                ))
            })
            .collect()
    }
}

/// A call's time in seconds, if long enough to measure a throughput by.
fn measured(elapsed: Duration) -> Option<f64> {
    (elapsed >= Duration::from_millis(1)).then_some(elapsed.as_secs_f64())
}
