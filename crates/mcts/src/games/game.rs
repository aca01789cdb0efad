//! The small game interface the search is written against.
//!
//! The search only needs to generate moves, play and take back moves, recognise the end of the
//! game and hand a snapshot of the position to an evaluator. Keeping that behind a trait lets
//! the algorithms be unit-tested on tiny games (see [`crate::toy`]) whose correct answers can be
//! worked out by hand, while the real target is Ko shogi (`koshogi_rules::Game`).

use crate::wdl::Wdl;

/// How a finished game ended, seen from the side to move in the final position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terminal {
    /// The side to move has won (rare: e.g. the opponent destroyed its own command).
    Win,
    /// Drawn: repetition, or adjudicated at the ply cap.
    Draw,
    /// The side to move has lost (its last commanding piece was captured, no legal move, ...).
    Loss,
}

impl Terminal {
    /// The exact value of the final position, from the side to move's point of view.
    pub fn wdl(self) -> Wdl {
        match self {
            Terminal::Win => Wdl::WIN,
            Terminal::Draw => Wdl::DRAW,
            Terminal::Loss => Wdl::LOSS,
        }
    }
}

/// A game the tree search can play: a position with a history that moves are played on and
/// taken back from, so one game object per tree is enough (no cloning per simulation).
pub trait SearchGame {
    /// A move; small and `Copy`, since every tree edge stores one.
    type Move: Copy + Eq + std::fmt::Debug + Send + 'static;
    /// What an evaluator needs to see of a position (sent to the evaluation thread).
    type Position: Clone + Send + 'static;

    /// Appends the legal moves of the current position to `out`, in a deterministic order
    /// (the order the evaluator's priors and the search's policy targets refer to).
    fn legal_moves(&self, out: &mut Vec<Self::Move>);
    /// Plays a legal move.
    fn play(&mut self, mv: Self::Move);
    /// Takes back the last move played with [`SearchGame::play`].
    fn undo(&mut self);
    /// `Some` if the game has ended in the current position (including adjudication).
    fn terminal(&self) -> Option<Terminal>;
    /// A hash of the current position (board and side to move), used as the evaluation cache key.
    fn position_hash(&self) -> u64;
    /// A snapshot of the current position for the evaluator.
    fn position(&self) -> Self::Position;
    /// What `mv` captures in the current position, in the game's material units (0 = not a
    /// capture; any capture is worth more than 0). The Gumbel root always considers the most
    /// valuable captures (`GumbelConfig::capture_candidates`); games without captures keep the
    /// default.
    fn capture_value(&self, _mv: &Self::Move) -> f32 {
        0.0
    }
    /// Per move of `moves` (the legal moves of the current position, in order), the value of
    /// the most valuable piece of the mover's that the opponent threatens to capture and the
    /// move saves (0 = none), written to `out`. The Gumbel root keeps the best answers among
    /// its candidates (`GumbelConfig::evasion_candidates`); games without captures keep the
    /// default.
    fn evasion_values(&self, moves: &[Self::Move], out: &mut Vec<f32>) {
        out.clear();
        out.resize(moves.len(), 0.0);
    }
    /// True if `mv` leaves the board as it was (only the turn changes); see
    /// `GumbelConfig::root_passes`. Games without passes keep the default.
    fn is_pass(&self, _mv: &Self::Move) -> bool {
        false
    }
}
