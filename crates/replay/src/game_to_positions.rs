//! Turning one self-play game into [`PositionRecord`]s: positions are recorded as they are
//! searched, and the targets that depend on how the game ends (result, moves left, final
//! material — all from each mover's point of view) are filled in when it ends.

use koshogi_rules::{Outcome, Position};

use crate::board::encode_position;
use crate::end_reason::EndReason;
use crate::training_positions::{PolicyEntry, PositionRecord};
use crate::BOARD_BYTES;
use koshogi_rules::material::piece_count_balance;

/// What the search produced for one position.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRecord {
    /// Number of legal moves, in the rules engine's move-generation order.
    pub legal_move_count: u32,
    /// Index of the move played.
    pub played_move: u32,
    /// Whether the position got the full search (then `policy` is its target).
    pub full_search: bool,
    /// Sparse policy target over move indices (empty for a cheap search).
    pub policy: Vec<PolicyEntry>,
    /// Root value for the mover, in [-1, 1].
    pub search_value: f32,
}

#[derive(Debug, Clone)]
struct Pending {
    board: [u8; BOARD_BYTES],
    mover: koshogi_rules::Color,
    ply: u32,
    search: SearchRecord,
}

/// Collects the positions of one game.
#[derive(Debug, Clone)]
pub struct GameRecorder {
    game_id: u64,
    positions: Vec<Pending>,
}

impl GameRecorder {
    pub fn new(game_id: u64) -> GameRecorder {
        GameRecorder {
            game_id,
            positions: Vec::new(),
        }
    }

    pub fn game_id(&self) -> u64 {
        self.game_id
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Records `position` (before its move is played) with its search result.
    pub fn record(&mut self, position: &Position, search: SearchRecord) {
        self.positions.push(Pending {
            board: encode_position(position),
            mover: position.side_to_move(),
            ply: position.ply(),
            search,
        });
    }

    /// The finished records, given the game's final position and outcome.
    pub fn finish(self, final_position: &Position, outcome: &Outcome) -> Vec<PositionRecord> {
        let final_ply = final_position.ply();
        self.positions
            .into_iter()
            .map(|p| PositionRecord {
                board: p.board,
                game_id: self.game_id,
                ply: p.ply,
                legal_move_count: p.search.legal_move_count,
                played_move: p.search.played_move,
                full_search: p.search.full_search,
                policy: p.search.policy,
                search_value: p.search.search_value,
                game_result: outcome.score_for(p.mover) as i8,
                moves_left: final_ply.saturating_sub(p.ply),
                final_material: piece_count_balance(final_position, p.mover),
                end_reason: EndReason::of(outcome),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::{Color, DrawReason, Game, RulesOptions, WinReason};
    use rand::{Rng, SeedableRng};

    fn play_random(recorder: &mut GameRecorder, plies: usize, seed: u64) -> Game {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut game = Game::new(RulesOptions::default());
        for _ in 0..plies {
            let moves = game.legal_moves();
            let played = rng.random_range(0..moves.len());
            recorder.record(
                game.position(),
                SearchRecord {
                    legal_move_count: moves.len() as u32,
                    played_move: played as u32,
                    full_search: true,
                    policy: vec![PolicyEntry {
                        move_index: played as u32,
                        weight: 1.0,
                    }],
                    search_value: 0.0,
                },
            );
            game.play(moves[played]);
        }
        game
    }

    #[test]
    fn results_and_aux_targets_are_from_each_movers_view() {
        let mut recorder = GameRecorder::new(42);
        let game = play_random(&mut recorder, 9, 5);
        let outcome = Outcome::Win {
            winner: Color::White,
            reason: WinReason::CommandDestroyed,
        };
        let records = recorder.finish(game.position(), &outcome);
        assert_eq!(records.len(), 9);
        let final_black_material = piece_count_balance(game.position(), Color::Black);
        for (i, r) in records.iter().enumerate() {
            let black_to_move = i % 2 == 0; // Black moves first
            assert_eq!(r.board[crate::board::POINTS], u8::from(!black_to_move));
            assert_eq!(r.game_result, if black_to_move { -1 } else { 1 });
            assert_eq!(r.moves_left, 9 - i as u32);
            assert_eq!(r.ply, i as u32);
            assert_eq!(r.game_id, 42);
            let expected = if black_to_move {
                final_black_material
            } else {
                -final_black_material
            };
            assert_eq!(r.final_material, expected);
            assert_eq!(r.end_reason, EndReason::CommandDestroyed);
        }
    }

    #[test]
    fn draws_score_zero_for_both_sides() {
        let mut recorder = GameRecorder::new(1);
        let game = play_random(&mut recorder, 4, 6);
        let records = recorder.finish(game.position(), &Outcome::Draw(DrawReason::MaxPlies));
        assert!(records.iter().all(|r| r.game_result == 0));
        assert!(records.iter().all(|r| r.end_reason == EndReason::DrawAtCap));
    }
}
