//! The classical players of [`koshogi_baselines`] as match players: greedy material
//! ([`GreedyPlayer`]), alpha-beta over material ([`AlphaBetaPlayer`]) and the classical engine
//! ([`ClassicPlayer`]); `random` is the game-independent [`RandomPlayer`](crate::RandomPlayer).
//!
//! Why only a wrapper here: the move choice and the names belong to koshogi-baselines, which
//! self-play's fixed opponents use too without the arena; what the arena adds is the
//! [`Player`] interface — one move per request, searched in parallel, each with the request's
//! seed.

use std::collections::BTreeMap;

use rayon::prelude::*;

use koshogi_baselines::alphabeta::{alphabeta_move, SearchLimits};
use koshogi_baselines::classic::{ClassicEngine, ClassicSpec};
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

/// The `classic[@…]` player: one [`ClassicEngine`] per game in flight, so that each game keeps
/// its transposition table and history from move to move, as an engine in a tournament does.
pub struct ClassicPlayer {
    spec: ClassicSpec,
    /// Engines by game index, with the call that last used each.
    engines: BTreeMap<usize, (ClassicEngine, u64)>,
    calls: u64,
}

/// An engine not asked for a move in this many calls belongs to a finished game and is dropped
/// (a game in flight is asked every call or every other call).
const IDLE_CALLS: u64 = 4;

impl ClassicPlayer {
    pub fn new(spec: ClassicSpec) -> Self {
        Self {
            spec,
            engines: BTreeMap::new(),
            calls: 0,
        }
    }
}

impl Player<Game> for ClassicPlayer {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        self.calls += 1;
        let calls = self.calls;
        let mut engines: Vec<ClassicEngine> = requests
            .iter()
            .map(|request| match self.engines.remove(&request.game_index) {
                Some((engine, _)) => engine,
                None => ClassicEngine::new(self.spec.config()),
            })
            .collect();
        let limits = self.spec.limits();
        let name = self.spec.to_string();
        let moves: Vec<Option<Move>> = engines
            .par_iter_mut()
            .zip(requests.par_iter())
            .map(|(engine, request)| {
                engine
                    .search(request.game, &limits, &mut request.rng(), &mut |_| {})
                    .map(|result| result.best_move)
            })
            .collect();
        for (engine, request) in engines.into_iter().zip(requests) {
            self.engines.insert(request.game_index, (engine, calls));
        }
        self.engines
            .retain(|_, (_, last_call)| calls - *last_call < IDLE_CALLS);
        moves
            .into_iter()
            .zip(requests)
            .map(|(mv, request)| {
                mv.ok_or_else(|| PlayerError::NoLegalMove {
                    player: name.clone(),
                    game_index: request.game_index,
                })
            })
            .collect()
    }
}
