//! Players: anything that picks moves for a batch of games.
//!
//! Why batches: network players are only efficient when many positions go through the network
//! at once, so the match runner asks each player for moves in *all* the games where it is to move
//! in one call. Cheap players simply loop (or use threads).
//!
//! Every request carries its own seed derived from the match seed, the game and the ply, so a
//! player's choices do not depend on how games are batched or scheduled: matches are reproducible.

use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::game::ArenaGame;

/// One "your move" request.
pub struct MoveRequest<'a, G: ArenaGame> {
    /// The game, not over and with at least one legal move.
    pub game: &'a G,
    /// Index of the game in the match (stable across the whole match).
    pub game_index: usize,
    /// Seed for any randomness used to choose this move.
    pub seed: u64,
}

impl<G: ArenaGame> MoveRequest<'_, G> {
    /// A fresh RNG for this request.
    pub fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.seed)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error("player `{player}` found no legal move in game {game_index}")]
    NoLegalMove { player: String, game_index: usize },
    #[error("player `{player}` failed: {message}")]
    Failed { player: String, message: String },
}

/// A player's answer to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice<M> {
    Play(M),
    /// The player gives this game up (an external engine died, ran out of time or answered
    /// garbage): the game ends as a loss for it, and the match goes on.
    Forfeit(String),
}

/// Something that chooses moves.
pub trait Player<G: ArenaGame> {
    /// Display name (used in records, CSV files and ratings).
    fn name(&self) -> String;
    /// One legal move per request, in request order.
    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, G>],
    ) -> Result<Vec<G::Move>, PlayerError>;

    /// One [`Choice`] per request, in request order: what the match runner asks. A player that
    /// can fail in one game without failing the match (a subprocess engine) overrides it; the
    /// default plays [`Player::choose_moves`]' moves, so an error of an in-process player still
    /// stops the match (it is a bug, not a result).
    fn choose_or_forfeit(
        &mut self,
        requests: &[MoveRequest<'_, G>],
    ) -> Result<Vec<Choice<G::Move>>, PlayerError> {
        Ok(self
            .choose_moves(requests)?
            .into_iter()
            .map(Choice::Play)
            .collect())
    }
}

/// Uniformly random legal moves: the floor every learner must beat.
#[derive(Clone, Debug, Default)]
pub struct RandomPlayer {
    name: Option<String>,
}

impl RandomPlayer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Same player under another name (two random movers in one ladder).
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
        }
    }
}

impl<G: ArenaGame> Player<G> for RandomPlayer {
    fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "random".into())
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, G>],
    ) -> Result<Vec<G::Move>, PlayerError> {
        let mut moves = Vec::new();
        requests
            .iter()
            .map(|request| {
                moves.clear();
                request.game.legal_moves(&mut moves);
                moves
                    .choose(&mut request.rng())
                    .copied()
                    .ok_or_else(|| PlayerError::NoLegalMove {
                        player: Player::<G>::name(self),
                        game_index: request.game_index,
                    })
            })
            .collect()
    }
}

/// Mixes a seed with further values (SplitMix64 finaliser), so derived seeds are independent.
pub fn derive_seed(seed: u64, values: &[u64]) -> u64 {
    let mut x = seed;
    for &v in values {
        x ^= v
            .wrapping_add(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(x << 6)
            .wrapping_add(x >> 2);
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x = z ^ (z >> 31);
    }
    x
}

/// Another player under a different name (ladders name players after checkpoints).
pub struct Renamed<G: ArenaGame> {
    pub name: String,
    pub inner: Box<dyn Player<G>>,
}

impl<G: ArenaGame> Player<G> for Renamed<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, G>],
    ) -> Result<Vec<G::Move>, PlayerError> {
        self.inner.choose_moves(requests)
    }

    fn choose_or_forfeit(
        &mut self,
        requests: &[MoveRequest<'_, G>],
    ) -> Result<Vec<Choice<G::Move>>, PlayerError> {
        self.inner.choose_or_forfeit(requests)
    }
}
