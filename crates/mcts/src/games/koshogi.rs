//! Ko shogi as a [`SearchGame`]: `koshogi_rules::Game` plays, undoes, generates moves and
//! decides the end of the game (commanding pieces, repetition and perpetual check, no legal
//! move, `max_plies` adjudication); the search values those ends exactly.
//!
//! The evaluator sees a [`KoshogiPosition`]: the board plus the bits of game history the
//! network's input features use (repetition count, plies played, ply limit). The cache key
//! mixes those into the Zobrist hash, so a cached answer is only reused for an input the
//! network would see identically.

use crate::game::{SearchGame, Terminal};
use crate::threats::Threats;
use koshogi_rules::material::search_piece_value;
use koshogi_rules::{Game, Move, Outcome, Position, RulesOptions};

/// What an evaluator needs of a Ko shogi position.
#[derive(Clone, Debug)]
pub struct KoshogiPosition {
    pub position: Position,
    pub options: RulesOptions,
    /// Occurrences of this position in the game so far, this one included.
    pub repetition_count: u32,
    /// Plies played in the game.
    pub ply: u32,
    pub max_plies: Option<u32>,
}

fn mix(x: u64) -> u64 {
    // SplitMix64 finaliser: spreads small counters over all bits before xoring into the key.
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SearchGame for Game {
    type Move = Move;
    type Position = KoshogiPosition;

    fn legal_moves(&self, out: &mut Vec<Move>) {
        // `generate_legal_moves` clears its buffer; the trait appends.
        let mut moves = Vec::new();
        self.generate_legal_moves(&mut moves);
        out.extend(moves);
    }

    fn capture_value(&self, mv: &Move) -> f32 {
        if !mv.is_capture() {
            return 0.0;
        }
        let position = self.position();
        let value: f32 = mv
            .removed_points()
            .into_iter()
            .filter_map(|sq| position.piece_at(sq))
            .map(|piece| search_piece_value(piece.kind))
            .sum();
        value.max(f32::MIN_POSITIVE)
    }

    fn evasion_values(&self, moves: &[Move], out: &mut Vec<f32>) {
        let threats = Threats::against_mover(self.position(), self.options());
        out.clear();
        out.extend(moves.iter().map(|mv| threats.answered_by(mv)));
    }

    fn is_pass(&self, mv: &Move) -> bool {
        mv.is_pass()
    }

    fn play(&mut self, mv: Move) {
        Game::play(self, mv);
    }

    fn undo(&mut self) {
        Game::undo(self);
    }

    fn terminal(&self) -> Option<Terminal> {
        self.outcome().map(|outcome| match outcome {
            Outcome::Win { winner, .. } if winner == self.position().side_to_move() => {
                Terminal::Win
            }
            Outcome::Win { .. } => Terminal::Loss,
            Outcome::Draw(_) => Terminal::Draw,
        })
    }

    fn position_hash(&self) -> u64 {
        let mut key =
            self.position().hash() ^ mix(u64::from(self.repetition_count()).wrapping_mul(0x1_0000));
        if self.max_plies().is_some() {
            key ^= mix(0x2_0000_0000 | u64::from(self.plies_played()));
        }
        key
    }

    fn position(&self) -> KoshogiPosition {
        KoshogiPosition {
            position: self.position().clone(),
            options: *self.options(),
            repetition_count: self.repetition_count(),
            ply: self.plies_played(),
            max_plies: self.max_plies(),
        }
    }
}
