//! Steering evaluation players away from repeated positions.
//!
//! Evaluation play is deterministic, and two deterministic players that both like shuffling a
//! piece back and forth end every game in fourfold repetition (§10.4): a match then measures
//! nothing. Engines avoid this with a contempt for draws; the simplest form is used here: a
//! player takes its best-ranked move that does not recreate a position already seen in the
//! game, and repeats only when every move would.

use koshogi_rules::{Game, Move};

/// The first of `ranked` (best first) whose resulting position has not occurred before in
/// `game`; `None` when every one of them repeats (or `ranked` is empty).
pub fn first_fresh_move(game: &Game, ranked: impl IntoIterator<Item = Move>) -> Option<Move> {
    let mut scratch = game.clone();
    for mv in ranked {
        scratch.play(mv);
        let fresh = scratch.repetition_count() <= 1;
        scratch.undo();
        if fresh {
            return Some(mv);
        }
    }
    None
}

/// `best` unless it recreates a seen position; then the highest-scored of `moves` that does
/// not (`scores` holds one score per move); `best` again when every move repeats. The ranking
/// is only computed when `best` repeats, which is rare.
pub fn best_fresh_move(game: &Game, best: Move, moves: &[Move], scores: &[f32]) -> Move {
    first_fresh_move(game, [best])
        .or_else(|| first_fresh_move(game, ranked_by_score(moves, scores)))
        .unwrap_or(best)
}

/// `moves` ordered by `scores`, highest first (stable: equal scores keep their order).
pub fn ranked_by_score(moves: &[Move], scores: &[f32]) -> Vec<Move> {
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    order.into_iter().map(|i| moves[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::{Color, Piece, PieceKind, Position, RulesOptions, Square};

    /// Each side has a general and a pawn, far apart: only shuffles are possible.
    fn quiet_game() -> Game {
        let mut position = Position::empty(Color::Black);
        for (square, color, kind) in [
            ("10s", Color::Black, PieceKind::General),
            ("10a", Color::White, PieceKind::General),
        ] {
            position.set_piece(
                square.parse::<Square>().unwrap(),
                Some(Piece::new(color, kind)),
            );
        }
        Game::from_position(position, RulesOptions::default())
    }

    fn find(game: &Game, text: &str) -> Move {
        *game
            .legal_moves()
            .iter()
            .find(|m| m.to_string() == text)
            .unwrap_or_else(|| panic!("{text} is not legal"))
    }

    /// Both generals step aside and back: the start position is on the board again.
    fn start_position_again() -> Game {
        let mut game = quiet_game();
        for text in ["10s-9s", "10a-9a", "9s-10s", "9a-10a"] {
            let mv = find(&game, text);
            game.play(mv);
        }
        game
    }

    #[test]
    fn a_move_back_to_a_seen_position_is_skipped_for_the_next_best() {
        let game = start_position_again();
        // Stepping aside again recreates the position after the first move: skipped.
        let seen = find(&game, "10s-9s");
        let fresh = find(&game, "10s-11s");
        assert_eq!(first_fresh_move(&game, [seen, fresh]), Some(fresh));
        // A fresh move ranked first is taken as it is.
        assert_eq!(first_fresh_move(&game, [fresh, seen]), Some(fresh));
        // Only repeating moves: none is fresh.
        assert_eq!(first_fresh_move(&game, [seen]), None);
        // The game itself is untouched.
        assert_eq!(game.plies_played(), 4);
    }

    #[test]
    fn the_best_move_is_kept_unless_it_repeats_then_the_best_scored_fresh_one() {
        let game = start_position_again();
        let seen = find(&game, "10s-9s");
        let fresh = find(&game, "10s-11s");
        let other = find(&game, "10s-10r");
        let moves = [seen, other, fresh];
        let scores = [0.9, 0.1, 0.5];
        assert_eq!(best_fresh_move(&game, fresh, &moves, &scores), fresh);
        assert_eq!(best_fresh_move(&game, seen, &moves, &scores), fresh);
        assert_eq!(best_fresh_move(&game, seen, &[seen], &[1.0]), seen);
    }

    #[test]
    fn ranking_puts_the_highest_score_first_and_keeps_ties_in_order() {
        let game = quiet_game();
        let moves: Vec<Move> = game.legal_moves().into_iter().take(4).collect();
        let ranked = ranked_by_score(&moves, &[0.1, 0.5, 0.1, 0.3]);
        assert_eq!(ranked, vec![moves[1], moves[3], moves[0], moves[2]]);
    }
}
