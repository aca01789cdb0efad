//! Game end as the classical searches see it, for the side to move: a destroyed command
//! (§10.1, with `mutual_destruction` when both fall at once) or no legal move (`no_moves`).
//!
//! Why one place: `ab:<depth>` and `classic` score the same ends on their own scales (pawns as
//! `f64`, centipawns as `i32`); the reading of the rule options is written once here and each
//! search only turns a [`Verdict`] into its score.

use koshogi_rules::{MutualDestruction, NoMoves, Position, RulesOptions};

/// A finished game's result for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Win,
    Loss,
    Draw,
}

impl Verdict {
    /// The verdict on a search's scale: `win` (the score of a win, e.g. `WIN − ply`), its
    /// negation for a loss, zero for a draw.
    pub fn score<T: std::ops::Neg<Output = T> + Default>(self, win: T) -> T {
        match self {
            Verdict::Win => win,
            Verdict::Loss => -win,
            Verdict::Draw => T::default(),
        }
    }
}

/// The verdict if a command is destroyed in `position` (§10.1); `None` while both survive.
pub fn command_verdict(position: &Position, options: &RulesOptions) -> Option<Verdict> {
    let me = position.side_to_move();
    match (
        position.survives(me, options),
        position.survives(me.opposite(), options),
    ) {
        (true, true) => None,
        (false, true) => Some(Verdict::Loss),
        (true, false) => Some(Verdict::Win),
        // The mover (the side not to move) destroyed both commands.
        (false, false) => Some(match options.mutual_destruction {
            MutualDestruction::MoverWins => Verdict::Loss,
            MutualDestruction::MoverLoses => Verdict::Win,
            MutualDestruction::Draw => Verdict::Draw,
        }),
    }
}

/// The verdict for a side to move without any legal move.
pub fn no_moves_verdict(options: &RulesOptions) -> Verdict {
    match options.no_moves {
        NoMoves::Loss => Verdict::Loss,
        NoMoves::Draw => Verdict::Draw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_positions::game;
    use koshogi_rules::{Color::*, PieceKind::*};

    #[test]
    fn a_side_without_its_command_has_lost_and_both_gone_follows_the_option() {
        let black_alone = game(true, &[("10s", Black, General), ("10a", White, Pawn)]);
        let options = RulesOptions::default();
        assert_eq!(
            command_verdict(black_alone.position(), &options),
            Some(Verdict::Win)
        );
        let mut white_to_move = black_alone.position().clone();
        white_to_move.set_side_to_move(White);
        assert_eq!(
            command_verdict(&white_to_move, &options),
            Some(Verdict::Loss)
        );
        let both = game(true, &[("10s", Black, Pawn), ("10a", White, Pawn)]);
        for (rule, verdict) in [
            (MutualDestruction::MoverWins, Verdict::Loss),
            (MutualDestruction::MoverLoses, Verdict::Win),
            (MutualDestruction::Draw, Verdict::Draw),
        ] {
            let options = RulesOptions {
                mutual_destruction: rule,
                ..RulesOptions::default()
            };
            assert_eq!(command_verdict(both.position(), &options), Some(verdict));
        }
        let alive = game(true, &[("10s", Black, General), ("10a", White, General)]);
        assert_eq!(command_verdict(alive.position(), &options), None);
        assert_eq!(no_moves_verdict(&options), Verdict::Loss);
    }
}
