//! The classical players of [`koshogi_baselines`] as match players: greedy material
//! ([`GreedyPlayer`]) and alpha-beta over material ([`AlphaBetaPlayer`]); `random` is the
//! game-independent [`RandomPlayer`](crate::RandomPlayer).
//!
//! Why only a wrapper here: the move choice and the names belong to koshogi-baselines, which
//! self-play's fixed opponents use too without the arena; what the arena adds is the
//! [`Player`] interface — one move per request, searched in parallel, each with the request's
//! seed.

use rayon::prelude::*;

use koshogi_baselines::alphabeta::{alphabeta_move, SearchLimits};
use koshogi_baselines::greedy::greedy_move;
use koshogi_rules::{Game, Move};

use crate::matches::{MoveRequest, Player, PlayerError};

/// The `greedy` player: [`greedy_move`] for each request.
#[derive(Clone, Debug, Default)]
pub struct GreedyPlayer;

impl GreedyPlayer {
    pub fn new() -> Self {
        Self
    }
}

impl Player<Game> for GreedyPlayer {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        requests
            .par_iter()
            .map(|request| {
                greedy_move(request.game, &mut request.rng()).ok_or_else(|| {
                    PlayerError::NoLegalMove {
                        player: "greedy".into(),
                        game_index: request.game_index,
                    }
                })
            })
            .collect()
    }
}

/// The `ab:<depth>` player: [`alphabeta_move`] for each request.
#[derive(Clone, Debug)]
pub struct AlphaBetaPlayer {
    limits: SearchLimits,
}

impl AlphaBetaPlayer {
    pub fn new(depth: u32) -> Self {
        Self::with_limits(SearchLimits::depth(depth))
    }

    pub fn with_limits(limits: SearchLimits) -> Self {
        Self { limits }
    }
}

impl Player<Game> for AlphaBetaPlayer {
    fn name(&self) -> String {
        format!("ab:{}", self.limits.depth)
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        let limits = self.limits;
        requests
            .par_iter()
            .map(|request| {
                alphabeta_move(request.game, &limits, &mut request.rng()).ok_or_else(|| {
                    PlayerError::NoLegalMove {
                        player: format!("ab:{}", limits.depth),
                        game_index: request.game_index,
                    }
                })
            })
            .collect()
    }
}
