//! Threats: which of the side to move's pieces the opponent could capture if it were its turn.
//!
//! Why the search wants them: most quiet moves of a Ko shogi position change nothing at a
//! few plies' depth, but the few that take an attacked piece out of reach (of a chariot, a
//! lion's double step, a shooter's line of fire) decide whether it is lost. Knowing the attacked
//! points, move ordering puts those evasions before the other quiet moves, and the search
//! never reduces or prunes them ([`super::search`]'s late-move reductions and late-move
//! pruning). Without it, a shooter that captures without moving could take one piece a move
//! while the engine's ~250 quiet moves hid the one answer among the reduced ones.
//!
//! The quiescence search wants them too, for its stand-pat: a side to move with two pieces
//! under attack can save one by moving it, not both, so standing pat is worth the second loss
//! less ([`second_threatened_loss`]). Without that, a fork or a shooter's double threat made on
//! the last ply of the search looks free, and the engine walks into it (or misses making it).
//!
//! Cost: one captures-only generation for the opponent per interior node (the side to move is
//! flipped and restored, as the null move does), a small share beside the full generation the
//! node makes anyway.

use koshogi_rules::{Move, Position, RulesOptions, Square};

use super::ordering::victims_centipawns;
use super::values::PieceValues;

/// The side to move's points the opponent could capture now, with the value at stake.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    /// One bit per point ([`Square::index`]).
    attacked: [u64; WORDS],
    /// Centipawns of the most valuable attacked piece (0 when none is attacked).
    pub worst: i32,
}

const WORDS: usize = Square::COUNT.div_ceil(64);

impl Threats {
    /// No point attacked.
    pub const NONE: Threats = Threats {
        attacked: [0; WORDS],
        worst: 0,
    };

    /// Whether the opponent could capture the piece on `square`.
    pub fn is_attacked(&self, square: Square) -> bool {
        let index = square.index();
        self.attacked[index / 64] & (1 << (index % 64)) != 0
    }

    /// Whether no piece is attacked.
    pub fn is_empty(&self) -> bool {
        self.attacked.iter().all(|&word| word == 0)
    }

    fn mark(&mut self, square: Square) {
        let index = square.index();
        self.attacked[index / 64] |= 1 << (index % 64);
    }
}

/// The threats against the side to move of `position`. `buffer` is scratch space for the
/// opponent's captures; `moves_generated` counts them (the search reports its generation work).
pub fn opponent_threats(
    values: &PieceValues,
    position: &mut Position,
    options: &RulesOptions,
    buffer: &mut Vec<Move>,
    moves_generated: &mut u64,
) -> Threats {
    let me = position.side_to_move();
    let mut threats = Threats::NONE;
    for_each_opponent_capture(
        position,
        options,
        buffer,
        moves_generated,
        |position, capture| {
            for point in capture.removals() {
                if let Some(piece) = position.piece_at(point).filter(|piece| piece.color == me) {
                    threats.mark(point);
                    threats.worst = threats.worst.max(values.of(piece.kind));
                }
            }
        },
    );
    threats
}

/// What the opponent's second-best threat on another point would at least win, in centipawns
/// (0 with fewer than two): the loss the side to move of `position` cannot also avoid with one
/// move. A capture from afar (a shot, or igui: the capturer stays where it is) wins its
/// victims; one that lands among the side's pieces wins what its victims are worth beyond the
/// capturer, which may be taken back. Whether a victim is defended is not looked at, so this
/// errs low: an undefended piece under a more valuable attacker counts nothing. Arguments as
/// for [`opponent_threats`].
pub fn second_threatened_loss(
    values: &PieceValues,
    position: &mut Position,
    options: &RulesOptions,
    buffer: &mut Vec<Move>,
    moves_generated: &mut u64,
) -> i32 {
    let me = position.side_to_move();
    let mut losses = TwoLargestLosses::default();
    for_each_opponent_capture(
        position,
        options,
        buffer,
        moves_generated,
        |position, capture| {
            let first_victim = capture.removals().find(|&point| {
                position
                    .piece_at(point)
                    .is_some_and(|piece| piece.color == me)
            });
            if let Some(point) = first_victim {
                losses.add(point, likely_gain(values, position, capture));
            }
        },
    );
    losses.second()
}

/// Calls `visit` with every capture the opponent of the side to move could make now, the
/// position's turn handed to the opponent meanwhile (flipped and restored, as the null move
/// does).
fn for_each_opponent_capture(
    position: &mut Position,
    options: &RulesOptions,
    buffer: &mut Vec<Move>,
    moves_generated: &mut u64,
    mut visit: impl FnMut(&Position, &Move),
) {
    let me = position.side_to_move();
    position.set_side_to_move(me.opposite());
    buffer.clear();
    position.generate_captures(options, buffer);
    *moves_generated += buffer.len() as u64;
    for capture in buffer.iter() {
        visit(position, capture);
    }
    position.set_side_to_move(me);
}

/// What `capture` (of the side to move) at least wins (see [`second_threatened_loss`]).
fn likely_gain(values: &PieceValues, position: &Position, capture: &Move) -> i32 {
    let victims = victims_centipawns(values, position, capture);
    let from_afar = capture.destination() == capture.origin()
        || !(0..capture.legs().len()).any(|leg| capture.leg_captures(leg));
    if from_afar {
        return victims;
    }
    let capturer = position
        .piece_at(capture.origin())
        .map_or(0, |piece| values.of(piece.kind));
    victims - capturer
}

/// The two largest losses threatened on different points (a point attacked twice is one
/// threat, at its larger gain).
#[derive(Default)]
struct TwoLargestLosses {
    first: Option<(Square, i32)>,
    second: Option<(Square, i32)>,
}

impl TwoLargestLosses {
    fn add(&mut self, point: Square, gain: i32) {
        if gain <= 0 {
            return;
        }
        let same_point = [&mut self.first, &mut self.second]
            .into_iter()
            .flatten()
            .find(|(p, _)| *p == point);
        if let Some((_, known)) = same_point {
            *known = (*known).max(gain);
        } else if self.first.is_none_or(|(_, largest)| gain > largest) {
            self.second = self.first;
            self.first = Some((point, gain));
        } else if self.second.is_none_or(|(_, next)| gain > next) {
            self.second = Some((point, gain));
        }
        if let (Some(first), Some(second)) = (self.first, self.second) {
            if second.1 > first.1 {
                (self.first, self.second) = (Some(second), Some(first));
            }
        }
    }

    fn second(&self) -> i32 {
        self.second.map_or(0, |(_, gain)| gain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::values::piece_centipawns;
    use crate::test_positions::{chariot_and_two_elephants, pawn_under_a_chariot};
    use koshogi_rules::Color::Black;
    use koshogi_rules::PieceKind::*;

    fn square(text: &str) -> Square {
        text.parse().unwrap()
    }

    #[test]
    fn marks_the_pieces_the_opponent_can_take_and_restores_the_turn() {
        // White's chariot on 10e reaches Black's pawn on 10i (straight down the file); Black's
        // aide on 3p is out of every white piece's reach.
        let game = pawn_under_a_chariot("3p");
        let mut position = game.position().clone();
        let hash = position.hash();
        let mut generated = 0;
        let threats = opponent_threats(
            &PieceValues::baseline(),
            &mut position,
            game.options(),
            &mut Vec::new(),
            &mut generated,
        );
        assert_eq!(position.hash(), hash, "the side to move is restored");
        assert_eq!(position.side_to_move(), Black);
        assert!(threats.is_attacked(square("10i")));
        assert!(!threats.is_attacked(square("3p")));
        assert!(!threats.is_attacked(square("10e")), "its own piece");
        assert_eq!(threats.worst, piece_centipawns(Pawn));
        assert!(generated > 0);
    }

    #[test]
    fn at_the_start_only_the_chariot_units_on_the_edge_files_face_each_other() {
        // The chariot units on 1f and 19f range down the empty edge files to Black's on 1n and
        // 19n (§3.3); every other piece is out of reach.
        let game = koshogi_rules::Game::new(RulesOptions::default());
        let mut position = game.position().clone();
        let threats = opponent_threats(
            &PieceValues::baseline(),
            &mut position,
            game.options(),
            &mut Vec::new(),
            &mut 0,
        );
        let attacked: Vec<String> = Square::all()
            .filter(|&point| threats.is_attacked(point))
            .map(|point| point.to_string())
            .collect();
        assert_eq!(attacked, ["1n", "19n"]);
        assert_eq!(threats.worst, piece_centipawns(ChariotUnit));
    }

    /// The threats against the side to move of `game` and the second threatened loss, at the
    /// baselines' values, checking that both leave the position as they found it.
    fn threats_and_second_loss(game: &koshogi_rules::Game) -> (Threats, i32) {
        let mut position = game.position().clone();
        let (values, options) = (PieceValues::baseline(), game.options());
        let threats = opponent_threats(&values, &mut position, options, &mut Vec::new(), &mut 0);
        let second =
            second_threatened_loss(&values, &mut position, options, &mut Vec::new(), &mut 0);
        assert_eq!(
            position.hash(),
            game.position().hash(),
            "the turn is restored"
        );
        assert_eq!(position.side_to_move(), game.position().side_to_move());
        (threats, second)
    }

    #[test]
    fn a_fork_costs_the_second_piece_and_a_single_threat_costs_nothing() {
        // White to move, its elephants on 7j and 13j both three points from Black's chariot,
        // which can be taken back: an elephant is at least worth its excess over a chariot.
        let (threats, second) = threats_and_second_loss(&chariot_and_two_elephants("10j", false));
        assert!(threats.is_attacked(square("7j")) && threats.is_attacked(square("13j")));
        assert_eq!(
            second,
            piece_centipawns(Elephant) - piece_centipawns(Chariot)
        );
        // On 7n the chariot reaches 7j up its file, and not 13j.
        let (threats, second) = threats_and_second_loss(&chariot_and_two_elephants("7n", false));
        assert!(threats.is_attacked(square("7j")) && !threats.is_attacked(square("13j")));
        assert_eq!(second, 0);
    }

    #[test]
    fn the_two_largest_losses_are_on_different_points() {
        let mut losses = TwoLargestLosses::default();
        losses.add(square("1a"), 100);
        losses.add(square("1a"), 300);
        assert_eq!(losses.second(), 0, "one point attacked twice is one threat");
        losses.add(square("2a"), 200);
        assert_eq!(losses.second(), 200);
        losses.add(square("2a"), 500);
        assert_eq!(
            losses.second(),
            300,
            "the larger gain on 2a makes 1a the second"
        );
        losses.add(square("3a"), 400);
        assert_eq!(losses.second(), 400);
        losses.add(square("4a"), 0);
        losses.add(square("5a"), 50);
        assert_eq!(losses.second(), 400);
    }
}
