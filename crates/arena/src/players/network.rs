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

use std::path::Path;

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
}

impl MctsPlayer {
    /// Loads the checkpoint on a new evaluation thread. `config.simulations` sets the budget.
    pub fn load(
        card: &Path,
        runtime: &RuntimeConfig,
        config: SearchConfig,
        name: impl Into<String>,
    ) -> Result<Self, EvalError> {
        let card = card.to_path_buf();
        let runtime = *runtime;
        // libtorch's intra-op thread count is per thread (OpenMP): carry the caller's setting
        // over to the evaluation thread, or `--threads` would not reach the search.
        let threads = tch::get_num_threads();
        let eval = EvalThread::spawn(move || {
            koshogi_nn::set_intra_op_threads(threads);
            InferenceModel::load(&card, &runtime)
                .map(|(model, _)| NetworkEvaluator::new(model))
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
        }
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
}

impl Player<Game> for MctsPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        let mut searches: Vec<Search<Game>> = requests
            .iter()
            .map(|r| Search::new(r.game.clone(), self.config.clone(), r.seed))
            .collect();
        for search in &mut searches {
            search.start().map_err(|e| failed(&self.name, e))?;
        }
        self.driver
            .run(&mut searches)
            .map_err(|e| failed(&self.name, e))?;
        searches
            .iter_mut()
            .zip(requests)
            .map(|(s, request)| {
                let result = s.result().map_err(|e| failed(&self.name, e))?;
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
