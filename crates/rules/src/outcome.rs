//! How a game ended (§10).

use crate::Color;

/// Why a side won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser no longer survives (§10.1): commanding pieces captured (or burned).
    CommandDestroyed,
    /// The loser had no legal move on its turn (§10.7, AMB-26).
    NoLegalMoves,
    /// The loser gave perpetual check against a sole target (§10.5).
    PerpetualCheck,
    /// AMB-27 `mutual_destruction = mover_loses`: both commands destroyed, the mover loses.
    MutualDestruction,
    /// The loser resigned (§10.8). Never produced by the rules engine: players and adjudicators
    /// (self-play, the arena, an engine client) record it.
    Resignation,
    /// The game reached an engine-side ply cap and the winner had enough more pieces left
    /// (`Game::with_material_adjudication`: self-play's `cap_result = "material"`, the arena's
    /// `--cap-material`). Not a rule of Ko shogi (§10.8); produced only when asked for.
    MaterialAdjudication,
}

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// Fourth occurrence of a position (§10.4).
    Repetition,
    /// No legal move with `no_moves = draw`.
    NoLegalMoves,
    /// Both commands destroyed with `mutual_destruction = draw`.
    MutualDestruction,
    /// Engine adjudication after `max_plies` (not a rule of the game).
    MaxPlies,
}

/// Result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win { winner: Color, reason: WinReason },
    Draw(DrawReason),
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw(_) => None,
        }
    }

    /// +1 win, 0 draw, −1 loss from `color`'s point of view.
    pub fn score_for(&self, color: Color) -> i32 {
        match self.winner() {
            Some(w) if w == color => 1,
            Some(_) => -1,
            None => 0,
        }
    }
}
