//! Static exchange evaluation (SEE): what a capture wins once the pieces that can recapture on
//! its destination have traded there, cheapest first, each side free to stop.
//!
//! Why: the quiescence search tries every capture, and in Ko shogi most positions in the middle
//! game have dozens; a chariot taking a defended pawn only loses material, and searching it (and
//! every reply) is most of the cost of a quiescence search. SEE finds such captures without a
//! search, and the quiescence search skips those that lose material.
//!
//! Ko shogi has no attack tables to count defenders from, so the exchange is played out with the
//! rules themselves: after each capture the other side's captures of the piece on the exchange
//! point are generated ([`Position::generate_captures_removing`], which walks only the pieces
//! that could reach it) and the one that risks least recaptures: a shot or igui (the shooter stays where it is, which
//! ends the exchange) before the cheapest piece that lands there. The swap list is then
//! resolved backwards (each side takes or stops, whichever is better for it). Every capture's
//! whole removed set counts (a lion-like piece may take two), promotions count as the piece
//! they make, and an exchange is cut after [`MAX_EXCHANGE_PLIES`] captures.
//!
//! Captures whose mover does not end on a new point (igui, shots) risk nothing on the exchange
//! point and are worth their victims.

use koshogi_rules::{Move, Position, RulesOptions};

use super::ordering::victims_centipawns;
use super::values::PieceValues;

/// Longest exchange played out.
pub const MAX_EXCHANGE_PLIES: usize = 8;

/// The material `mv` (a capture of the side to move) wins in centipawns at `values`, after the
/// exchange on its destination. `generated` counts the legal moves generated on the way (the
/// search's budget); `buffer` is scratch space.
pub fn static_exchange(
    values: &PieceValues,
    position: &mut Position,
    options: &RulesOptions,
    mv: &Move,
    buffer: &mut Vec<Move>,
    generated: &mut u64,
) -> i32 {
    let first_gain = victims_centipawns(values, position, mv);
    let target = mv.destination();
    if target == mv.origin() {
        return first_gain;
    }
    let mut gains = [0i32; MAX_EXCHANGE_PLIES + 1];
    gains[0] = first_gain;
    let mut undos = Vec::with_capacity(MAX_EXCHANGE_PLIES);
    undos.push(position.play(mv, options));
    let mut steps = 0;
    while steps < MAX_EXCHANGE_PLIES {
        buffer.clear();
        position.generate_captures_removing(target, options, buffer);
        *generated += buffer.len() as u64;
        let recapture = buffer
            .iter()
            .min_by_key(|reply| recapture_risk(values, position, reply, target))
            .copied();
        let Some(recapture) = recapture else {
            break;
        };
        steps += 1;
        gains[steps] = victims_centipawns(values, position, &recapture) - gains[steps - 1];
        undos.push(position.play(&recapture, options));
    }
    while let Some(undo) = undos.pop() {
        position.undo(undo);
    }
    // Each side may decline to recapture: resolve from the last capture backwards.
    for step in (1..=steps).rev() {
        gains[step - 1] = -((-gains[step - 1]).max(gains[step]));
    }
    gains[0]
}

/// What a recapture on `target` puts at risk there: the mover's value if it ends on `target`,
/// nothing if it removes the piece from afar (a shot, igui) or moves on.
fn recapture_risk(
    values: &PieceValues,
    position: &Position,
    reply: &Move,
    target: koshogi_rules::Square,
) -> i32 {
    if reply.destination() != target {
        return 0;
    }
    position
        .piece_at(reply.origin())
        .map_or(0, |piece| values.of(piece.kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::values::piece_centipawns;
    use crate::test_positions::game;
    use koshogi_rules::{Color, PieceKind::*};
    use Color::{Black, White};

    fn exchange(pieces: &[(&str, Color, koshogi_rules::PieceKind)], text: &str) -> i32 {
        let game = game(true, pieces);
        let mv = *game
            .legal_moves()
            .iter()
            .find(|m| m.to_string() == text)
            .unwrap_or_else(|| panic!("{text} not legal"));
        let mut position = game.position().clone();
        let before = position.clone();
        let value = static_exchange(
            &PieceValues::baseline(),
            &mut position,
            game.options(),
            &mv,
            &mut Vec::new(),
            &mut 0,
        );
        assert_eq!(position, before, "the position is restored");
        value
    }

    #[test]
    fn an_undefended_pawn_wins_a_pawn() {
        let pieces = [
            ("19s", Black, General),
            ("1a", White, General),
            ("10j", Black, Chariot),
            ("10i", White, Pawn),
        ];
        assert_eq!(exchange(&pieces, "10jx10i"), piece_centipawns(Pawn));
    }

    #[test]
    fn a_defended_pawn_taken_by_a_chariot_loses_the_difference() {
        // The white aide de camp on 10h retakes on 10i; nothing of Black's retakes again.
        let pieces = [
            ("19s", Black, General),
            ("1a", White, General),
            ("10j", Black, Chariot),
            ("10i", White, Pawn),
            ("10h", White, AideDeCamp),
        ];
        let value = exchange(&pieces, "10jx10i");
        assert_eq!(value, piece_centipawns(Pawn) - piece_centipawns(Chariot));
        assert!(value < 0);
    }

    #[test]
    fn a_recapture_by_a_shot_counts() {
        // Nothing of White's can land on 10i, but the cannon steps to 12g and shoots the
        // chariot there (a cannon shot, two points along the diagonal): the pawn costs a chariot.
        // Only recaptures by displacement were looked for before, which made this +1.
        let pieces = [
            ("19s", Black, General),
            ("1a", White, General),
            ("10j", Black, Chariot),
            ("10i", White, Pawn),
            ("13f", White, Cannon),
        ];
        assert_eq!(
            exchange(&pieces, "10jx10i"),
            piece_centipawns(Pawn) - piece_centipawns(Chariot)
        );
    }

    #[test]
    fn a_second_attacker_makes_the_exchange_pay() {
        // Black's pawn (which may step forward: its drum is on the board) takes; the chariot
        // behind it retakes the aide de camp.
        let pieces = [
            ("19s", Black, General),
            ("1a", White, General),
            ("15s", Black, Drum),
            ("10j", Black, Pawn),
            ("10k", Black, Chariot),
            ("10i", White, Pawn),
            ("10h", White, AideDeCamp),
        ];
        // Pawn takes pawn (+1), the aide de camp retakes (−1), the chariot takes it (+4): the
        // retake loses White an aide de camp for a pawn, so White declines and Black keeps +1.
        assert_eq!(exchange(&pieces, "10jx10i"), piece_centipawns(Pawn));
    }
}
