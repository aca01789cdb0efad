//! The greedy-material baseline: one ply of look-ahead, taking the largest immediate material
//! gain.
//!
//! Why: a random mover is too weak to show whether a young network has learnt anything beyond
//! "capture things"; a one-ply material grabber is the next rung of the ladder, and cheap.
//!
//! Each legal move is played on a scratch copy of the position (make/undo) and scored by the
//! change of the mover's material balance ([`baseline_balance`])), so everything
//! the rules do during a move counts: displacement captures, igui, shots, the poison flame's
//! burning (of either colour), promotions, the clerk cascade and demotions. A move after which
//! the opponent no longer survives (§10.1) scores +∞, one that destroys the mover's own command
//! −∞ (both at once: per the `mutual_destruction` option). Repetition is not looked at. Ties —
//! most quiet moves gain nothing — are broken uniformly at random with the caller's generator
//! (in the arena, seeded by the move request).

use rand::Rng;

use koshogi_rules::material::baseline_balance;
use koshogi_rules::{Game, Move, MutualDestruction};

/// Immediate material gain of every legal move, in generation order.
pub fn move_gains(game: &Game) -> Vec<(Move, f64)> {
    let options = game.options();
    let mut position = game.position().clone();
    let me = position.side_to_move();
    let them = me.opposite();
    let before = baseline_balance(&position, me);
    let mut moves = Vec::with_capacity(256);
    position.generate_moves(options, &mut moves);
    let mut gains = Vec::with_capacity(moves.len());
    for mv in moves {
        let undo = position.play(&mv, options);
        let gain = match (
            position.survives(me, options),
            position.survives(them, options),
        ) {
            (true, true) => baseline_balance(&position, me) - before,
            (true, false) => f64::INFINITY,
            (false, true) => f64::NEG_INFINITY,
            (false, false) => match options.mutual_destruction {
                MutualDestruction::MoverWins => f64::INFINITY,
                MutualDestruction::MoverLoses => f64::NEG_INFINITY,
                MutualDestruction::Draw => 0.0,
            },
        };
        position.undo(undo);
        gains.push((mv, gain));
    }
    gains
}

/// The greedy choice: a uniformly random move among those of largest gain.
pub fn greedy_move(game: &Game, rng: &mut impl Rng) -> Option<Move> {
    let gains = move_gains(game);
    let best = gains
        .iter()
        .map(|&(_, g)| g)
        .fold(f64::NEG_INFINITY, f64::max);
    let top: Vec<Move> = gains
        .iter()
        .filter(|&&(_, g)| g == best)
        .map(|&(m, _)| m)
        .collect();
    if top.is_empty() {
        return None;
    }
    Some(top[rng.random_range(0..top.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_positions::{chariot_unit_takes_the_last_general, game};
    use koshogi_rules::material::baseline_piece_value;
    use koshogi_rules::{Color, PieceKind};
    use rand::SeedableRng;

    fn gain_of(gains: &[(Move, f64)], text: &str) -> f64 {
        gains
            .iter()
            .find(|(m, _)| m.to_string() == text)
            .unwrap_or_else(|| {
                panic!(
                    "{text} not among {:?}",
                    gains.iter().map(|(m, _)| m.to_string()).collect::<Vec<_>>()
                )
            })
            .1
    }

    #[test]
    fn capturing_the_general_beats_capturing_material() {
        use Color::*;
        use PieceKind::*;
        // Black's chariot unit on 5s can run up file 5 to the white general on 5c, or step left
        // onto a white dragon ascending on 6s. White keeps middle troop + banner, so taking the
        // general does not end the game: its gain is G (50) plus the capture-triggered
        // promotion CU → DU (§8.4 rule 1: 12 − 8) = 54; the dragon is 16 (CU is no step mover,
        // so rule 2 does not promote it).
        let g = game(
            true,
            &[
                ("10s", Black, General),
                ("5s", Black, ChariotUnit),
                ("5c", White, General),
                ("6s", White, DragonAscending),
                ("15a", White, MiddleTroop),
                ("17a", White, Banner),
            ],
        );
        let gains = move_gains(&g);
        assert_eq!(gain_of(&gains, "5sx5c+"), 54.0);
        assert_eq!(
            gain_of(&gains, "5sx6s"),
            baseline_piece_value(DragonAscending)
        );
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        assert_eq!(greedy_move(&g, &mut rng).unwrap().to_string(), "5sx5c+");

        // Without middle troop and banner the general is White's last commanding piece: winning.
        let g = chariot_unit_takes_the_last_general();
        assert_eq!(gain_of(&move_gains(&g), "5sx5c+"), f64::INFINITY);
    }

    #[test]
    fn burning_counts_both_colours() {
        use Color::*;
        use PieceKind::*;
        // The poison flame steps 10j → 10i and burns all eight neighbours of 10i: a white drum
        // (+6) and its own dragon ascending (−16): gain −10.
        let g = game(
            true,
            &[
                ("1s", Black, General),
                ("19a", White, General),
                ("10j", Black, PoisonFlame),
                ("9h", Black, DragonAscending),
                ("11h", White, Drum),
            ],
        );
        let gains = move_gains(&g);
        assert_eq!(gain_of(&gains, "10j-10i"), 6.0 - 16.0);
    }

    #[test]
    fn shots_count_as_captures() {
        use Color::*;
        use PieceKind::*;
        // The longbow on 10m steps diagonally and may then shoot (range 3) the white
        // quartermaster on 9j: from 9l (straight, distance 2) or 11l (diagonal, distance 2).
        let g = game(
            true,
            &[
                ("1s", Black, General),
                ("19a", White, General),
                ("10m", Black, Longbow),
                ("9j", White, Quartermaster),
            ],
        );
        let gains = move_gains(&g);
        let shooting: Vec<&(Move, f64)> = gains
            .iter()
            .filter(|(m, _)| !m.shots().is_empty())
            .collect();
        assert_eq!(shooting.len(), 2, "{gains:?}");
        for (mv, gain) in shooting {
            assert_eq!(*gain, baseline_piece_value(Quartermaster), "{mv}");
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        assert!(!greedy_move(&g, &mut rng).unwrap().shots().is_empty());
    }
}
