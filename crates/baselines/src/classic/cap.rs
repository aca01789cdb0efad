//! The match's ply cap as the engine sees it (`cap=on`): a line that reaches the cap ends there
//! with the cap's result, and in the last [`CAP_WINDOW_PLIES`] plies before it the evaluation
//! pays for the piece lead that the adjudication counts.
//!
//! Why: the arena and self-play stop a game at `max_plies` and, with material adjudication,
//! give it to the side that is `margin` *pieces* ahead (`Game::with_material_adjudication`);
//! the engine otherwise maximises material *value*, and a chariot up with one piece fewer is a
//! loss at the cap. The network players see the ply and the cap as input planes; this option
//! gives the engine the same knowledge of the game it is playing. The adjudication itself is
//! the rules crate's ([`capped_material_winner`]), not restated here.
//!
//! The piece term rises linearly from nothing [`CAP_WINDOW_PLIES`] before the cap to
//! [`CAP_PIECE_CENTIPAWNS`] a piece at it, on a lead clamped to [`CAP_LEAD_LIMIT`] pieces (past
//! a few pieces the result no longer changes). The same position is scored differently at
//! different distances from the cap, so inside the window the transposition table's key is
//! salted with that distance ([`CapRule::table_salt`]). A null move counts as a ply here,
//! though it moves the game no nearer to the cap: the searched line is at most a ply or two
//! short of the truth on such lines.

use koshogi_rules::{capped_material_winner, Color, Game};

use crate::game_end::Verdict;

/// Plies before the cap from which the evaluation counts pieces.
pub const CAP_WINDOW_PLIES: u32 = 40;
/// Centipawns a piece of lead is worth at the cap (three pawns: a trade of one minor piece for
/// two pays once the count decides).
pub const CAP_PIECE_CENTIPAWNS: i32 = 300;
/// Largest piece lead the term pays for.
pub const CAP_LEAD_LIMIT: i32 = 6;

/// The cap of the game being searched, from its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapRule {
    /// Plies from the root to the cap.
    plies_left_at_root: u32,
    /// The piece lead that wins at the cap; `None` draws every capped game.
    margin: Option<u32>,
}

impl CapRule {
    /// The cap of `game` seen from its current position, if it has one.
    pub fn of_game(game: &Game) -> Option<CapRule> {
        let max_plies = game.max_plies()?;
        Some(CapRule {
            plies_left_at_root: max_plies.saturating_sub(game.plies_played()),
            margin: game.cap_material_margin(),
        })
    }

    /// Plies left to the cap at a node `ply` plies below the root (0 at or past it).
    pub fn plies_left(&self, ply: usize) -> u32 {
        let ply = u32::try_from(ply).unwrap_or(u32::MAX);
        self.plies_left_at_root.saturating_sub(ply)
    }

    /// The result at the cap for `side` (the side to move there), from Black's piece lead in
    /// that position and in the one before the last move.
    pub fn verdict(&self, side: Color, lead_now: i16, lead_before: i16) -> Verdict {
        let winner = self
            .margin
            .and_then(|margin| capped_material_winner(lead_now, lead_before, margin));
        match winner {
            None => Verdict::Draw,
            Some(winner) if winner == side => Verdict::Win,
            Some(_) => Verdict::Loss,
        }
    }

    /// Centipawns for `side`'s piece lead at a node `ply` plies below the root: nothing before
    /// the window or when capped games are drawn anyway.
    pub fn piece_term(&self, ply: usize, side: Color, black_lead: i16) -> i32 {
        let left = self.plies_left(ply);
        if self.margin.is_none() || left >= CAP_WINDOW_PLIES {
            return 0;
        }
        let lead = match side {
            Color::Black => i32::from(black_lead),
            Color::White => -i32::from(black_lead),
        }
        .clamp(-CAP_LEAD_LIMIT, CAP_LEAD_LIMIT);
        let closeness = (CAP_WINDOW_PLIES - left) as i32;
        lead * CAP_PIECE_CENTIPAWNS * closeness / CAP_WINDOW_PLIES as i32
    }

    /// What to mix into a transposition-table key at a node `ply` plies below the root: inside
    /// the window a value per distance to the cap (a position's score depends on it there),
    /// outside it nothing, so that the table is shared as without the option.
    pub fn table_salt(&self, ply: usize) -> u64 {
        let left = self.plies_left(ply);
        if left >= CAP_WINDOW_PLIES {
            return 0;
        }
        (u64::from(left) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::RulesOptions;

    fn rule(played_to: u32, max_plies: u32, margin: Option<u32>) -> CapRule {
        let mut game = Game::new(RulesOptions::default())
            .with_max_plies(Some(max_plies))
            .with_material_adjudication(margin);
        for _ in 0..played_to {
            let mv = game.legal_moves()[0];
            game.play(mv);
        }
        CapRule::of_game(&game).unwrap()
    }

    #[test]
    fn the_cap_is_counted_from_the_game_played_so_far() {
        let cap = rule(4, 10, Some(2));
        assert_eq!(cap.plies_left(0), 6);
        assert_eq!(cap.plies_left(6), 0);
        assert_eq!(cap.plies_left(9), 0);
        assert!(CapRule::of_game(&Game::new(RulesOptions::default())).is_none());
    }

    #[test]
    fn the_verdict_at_the_cap_is_the_adjudication_for_the_side_to_move() {
        let cap = rule(0, 10, Some(2));
        assert_eq!(cap.verdict(Color::Black, 3, 2), Verdict::Win);
        assert_eq!(cap.verdict(Color::White, 3, 2), Verdict::Loss);
        assert_eq!(cap.verdict(Color::White, 3, 1), Verdict::Draw);
        assert_eq!(rule(0, 10, None).verdict(Color::Black, 9, 9), Verdict::Draw);
    }

    #[test]
    fn the_piece_term_grows_toward_the_cap_and_only_inside_the_window() {
        let cap = rule(0, 100, Some(2));
        let before_window = (100 - CAP_WINDOW_PLIES) as usize;
        assert_eq!(cap.piece_term(before_window, Color::Black, 3), 0);
        assert_eq!(cap.table_salt(before_window), 0);
        let half = before_window + CAP_WINDOW_PLIES as usize / 2;
        assert_eq!(
            cap.piece_term(half, Color::Black, 2),
            CAP_PIECE_CENTIPAWNS,
            "two pieces, halfway through the window"
        );
        assert_eq!(cap.piece_term(half, Color::White, 2), -CAP_PIECE_CENTIPAWNS);
        assert_eq!(
            cap.piece_term(100, Color::Black, 20),
            CAP_LEAD_LIMIT * CAP_PIECE_CENTIPAWNS
        );
        assert_ne!(cap.table_salt(half), cap.table_salt(half + 1));
        assert_eq!(rule(0, 100, None).piece_term(100, Color::Black, 5), 0);
    }
}
