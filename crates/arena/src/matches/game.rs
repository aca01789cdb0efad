//! The game interface the arena plays through.
//!
//! Why a trait and not `koshogi_rules::Game` directly: the match machinery (colour alternation,
//! paired openings, parallel games, SPRT stopping, records) is game-independent, and testing it on
//! a tiny game whose odds are known by construction is faster and sharper than on Ko shogi.
//! Ko shogi implements it in `koshogi_game.rs` ([`new_game`](super::new_game)).

use std::fmt::Debug;

use super::ending::Ending;

/// Which seat is to move: `First` moves first (Black in Ko shogi), `Second` answers (White).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Side {
    First,
    Second,
}

impl Side {
    pub fn opposite(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Side::First => 0,
            Side::Second => 1,
        }
    }

    /// The colour a record gives this seat (`First` = Black, as in Ko shogi), whatever the game.
    pub fn color(self) -> koshogi_rules::Color {
        match self {
            Side::First => koshogi_rules::Color::Black,
            Side::Second => koshogi_rules::Color::White,
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GameEnd {
    /// `None` for a draw.
    pub winner: Option<Side>,
    /// Its kind, for the tables' breakdown.
    pub ending: Ending,
    /// Human-readable cause ("general and banner captured", "max plies", …).
    pub reason: String,
}

/// What the arena needs from a game.
pub trait ArenaGame: Clone + Send + Sync {
    type Move: Copy + Eq + Debug + Send + Sync;

    /// Appends the legal moves of the current position to `out` (deterministic order).
    fn legal_moves(&self, out: &mut Vec<Self::Move>);
    /// Plays a legal move.
    fn play(&mut self, mv: Self::Move);
    /// `Some` once the game is over by its own rules (adjudication is the arena's business).
    fn end(&self) -> Option<GameEnd>;
    /// The side to move now.
    fn side_to_move(&self) -> Side;
    /// The current position as text (KSFEN for Ko shogi), for records.
    fn position_text(&self) -> String;
    /// `mv` written for a human record, in the current position (before it is played);
    /// `legal` holds the current legal moves (notations that disambiguate need them).
    fn move_text(&self, mv: Self::Move, legal: &[Self::Move]) -> String;
    /// `side`'s material minus its opponent's, for the match's material samples
    /// ([`MATERIAL_SAMPLE_EVERY`](super::runner::MATERIAL_SAMPLE_EVERY)); `None` for a game
    /// without material.
    fn material_balance(&self, _side: Side) -> Option<f64> {
        None
    }
}
