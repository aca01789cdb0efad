//! The classical engine's static evaluation, in centipawns for the side to move: material at
//! the engine's piece values ([`super::values`]) plus three kinds of positional knowledge that
//! material alone cannot see.
//!
//! Why these terms: Ko shogi is decided by the commanders (§10.1), promotions change a piece's
//! worth by a factor of two or three (§8), and the armies start 12 ranks apart, so a search of a
//! few plies sees no contact at all in the opening and a material-only evaluation then picks
//! among ~250 equal moves at random. The terms below give it a plan:
//! * **advance** (piece-square by rank): each piece gains a little for every rank it has
//!   advanced from its own back rank, more for the foot soldiers (pawns, shields, vanguards,
//!   horses), which are the army's front and promote early;
//! * **promotion zone**: a piece that can still promote earns a bonus while it stands in the
//!   enemy zone (§1.6, ranks a–f for Black), where each further move may promote it;
//! * **royal safety**: each commander (general, governor) counts its friendly neighbours within
//!   one step (a shelter, capped) and pays for every enemy piece within three points of it,
//!   weighted by that piece's value; a commander that leaves its own half pays per rank.
//!
//! The weights are small against material (a rank of advance is 1–3 % of a pawn) so that they
//! choose among moves of equal material and never buy a piece's loss. They were 8 and 3 cp a
//! rank until matches of the full evaluation against material alone (docs/arena.md, "The
//! classical engine") showed the material-only side keeping more of its pieces: the advance
//! term led the engine into fights beyond its horizon. [`EvalTerms::Material`] keeps the
//! material-only variant selectable for such tests.
//!
//! Cost: one pass over the occupancy bits with a table load per piece ([`PieceRankTable`]), then
//! the 7 × 7 points around each commander.

use std::sync::OnceLock;

use koshogi_rules::{Color, Piece, PieceKind, PieceRankTable, Position, Square};

use super::values::PieceValues;

/// Which terms the evaluation uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EvalTerms {
    /// Material, advance, promotion zone and royal safety.
    #[default]
    Full,
    /// Material only (centipawns of the baselines' scale), for matches that measure the rest.
    Material,
}

/// Centipawns per rank advanced, by kind: foot soldiers more, the pieces the game is decided by
/// (commanders, the middle troop, banner and drum, which the pawns need) nothing.
fn advance_weight(kind: PieceKind) -> i32 {
    use PieceKind::*;
    match kind {
        General | Governor | MiddleTroop | Banner | Drum => 0,
        Pawn | Shield | Vanguard | HorseSoldier | Chariot => ADVANCE_FOOT,
        _ => ADVANCE_OTHER,
    }
}

/// Per rank advanced: a foot soldier, any other piece. Large enough that a quiet position has a
/// plan (the armies start twelve ranks apart, beyond any search's horizon), small against a
/// pawn's 100 so that no advance is bought with material.
const ADVANCE_FOOT: i32 = 3;
const ADVANCE_OTHER: i32 = 1;
/// Bonus for a piece that can still promote while it stands in the enemy's promotion zone.
const ZONE_BONUS: i32 = 25;
/// Per friendly piece next to a commander, up to [`SHELTER_CAP`] of them.
const SHELTER_BONUS: i32 = 6;
const SHELTER_CAP: i32 = 6;
/// An enemy piece within [`DANGER_RADIUS`] points of a commander costs its value divided by this.
const DANGER_DIVISOR: i32 = 12;
const DANGER_RADIUS: i32 = 3;
/// Per rank a commander stands beyond its own half (ranks advanced past 9).
const EXPOSED_COMMANDER: i32 = 15;

fn is_commander(kind: PieceKind) -> bool {
    matches!(kind, PieceKind::General | PieceKind::Governor)
}

/// Ranks `square` is from `color`'s own back rank: 0 on it, 18 on the far one.
fn ranks_advanced(rank: u8, color: Color) -> i32 {
    match color {
        Color::Black => 19 - i32::from(rank),
        Color::White => i32::from(rank) - 1,
    }
}

/// Ranks advanced from which a piece stands in the zone where it promotes (§1.6: the six far
/// ranks).
const PROMOTION_ZONE_RANKS: i32 = 13;

fn chebyshev(a: Square, b: Square) -> i32 {
    let files = (i32::from(a.file()) - i32::from(b.file())).abs();
    let ranks = (i32::from(a.rank()) - i32::from(b.rank())).abs();
    files.max(ranks)
}

/// The evaluation of `position` for its side to move, in centipawns, pieces counted at
/// `values`.
pub fn evaluate(position: &Position, terms: EvalTerms, values: &PieceValues) -> i32 {
    let me = position.side_to_move();
    let score_for_black = match terms {
        EvalTerms::Material => material_for_black(position, values),
        EvalTerms::Full => {
            material_for_black(position, values) + positional_for_black(position, values)
        }
    };
    match me {
        Color::Black => score_for_black,
        Color::White => -score_for_black,
    }
}

/// Black's material minus White's in centipawns, from the per-type counts the position keeps.
pub fn material_for_black(position: &Position, values: &PieceValues) -> i32 {
    PieceKind::ALL
        .iter()
        .map(|&kind| {
            let difference = position.count(Color::Black, kind) as i32
                - position.count(Color::White, kind) as i32;
            difference * values.of(kind)
        })
        .sum()
}

/// Advance, promotion zone and a commander's exposure: the terms that depend on a piece and its
/// rank alone, one value per piece state and rank (Black's positive, White's negative), summed
/// by the rules in one pass over the board ([`Position::sum_piece_ranks`]): the evaluation runs
/// at every quiescence node.
static RANK_TERMS: OnceLock<PieceRankTable> = OnceLock::new();

fn rank_terms(piece: Piece, rank: u8) -> i32 {
    let advanced = ranks_advanced(rank, piece.color);
    let mut value = advance_weight(piece.kind) * advanced;
    if piece.can_ever_promote() && advanced >= PROMOTION_ZONE_RANKS {
        value += ZONE_BONUS;
    }
    if is_commander(piece.kind) {
        value -= EXPOSED_COMMANDER * (advanced - 9).max(0);
    }
    match piece.color {
        Color::Black => value,
        Color::White => -value,
    }
}

/// Advance, promotion zone and royal safety, Black's minus White's: one pass over the board,
/// then the points within [`DANGER_RADIUS`] of each commander.
fn positional_for_black(position: &Position, values: &PieceValues) -> i32 {
    let table = RANK_TERMS.get_or_init(|| PieceRankTable::from_fn(rank_terms));
    let mut score = [0i32; 2];
    for color in Color::ALL {
        for kind in [PieceKind::General, PieceKind::Governor] {
            for square in position.squares_of(color, kind) {
                score[color.index()] += commander_safety(position, square, color, values);
            }
        }
    }
    position.sum_piece_ranks(table) + score[Color::Black.index()] - score[Color::White.index()]
}

/// Royal safety of the commander of `color` on `square`: friendly neighbours (a shelter, capped)
/// and enemy pieces within [`DANGER_RADIUS`] (weighted by value).
fn commander_safety(
    position: &Position,
    square: Square,
    color: Color,
    values: &PieceValues,
) -> i32 {
    let (file, rank) = (i32::from(square.file()), i32::from(square.rank()));
    let mut shelter = 0;
    let mut danger = 0;
    for near_rank in (rank - DANGER_RADIUS).max(1)..=(rank + DANGER_RADIUS).min(19) {
        for near_file in (file - DANGER_RADIUS).max(1)..=(file + DANGER_RADIUS).min(19) {
            let Some(near) = Square::new(near_file as u8, near_rank as u8) else {
                continue;
            };
            let Some(other) = position.piece_at(near) else {
                continue;
            };
            if near == square {
                continue;
            }
            if other.color == color {
                shelter += i32::from(chebyshev(square, near) == 1);
            } else {
                danger += values.of(other.kind) / DANGER_DIVISOR;
            }
        }
    }
    SHELTER_BONUS * shelter.min(SHELTER_CAP) - danger
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::values::piece_centipawns;
    use crate::test_positions::game;
    use Color::{Black, White};
    use PieceKind::*;

    /// The evaluation with the pieces on the baselines' scale (what these tests' figures use).
    fn at_baseline(position: &Position, terms: EvalTerms) -> i32 {
        evaluate(position, terms, &PieceValues::baseline())
    }

    #[test]
    fn the_start_position_is_even_for_both_terms_and_both_sides() {
        let mut position = Position::startpos();
        for terms in [EvalTerms::Full, EvalTerms::Material] {
            assert_eq!(at_baseline(&position, terms), 0);
            position.set_side_to_move(White);
            assert_eq!(at_baseline(&position, terms), 0);
            position.set_side_to_move(Black);
        }
    }

    #[test]
    fn material_is_the_baseline_balance_in_centipawns() {
        let game = game(
            true,
            &[
                ("19s", Black, General),
                ("1a", White, General),
                ("10j", Black, Chariot),
                ("5e", White, Pawn),
            ],
        );
        // Chariot 4 against pawn 1.
        assert_eq!(at_baseline(game.position(), EvalTerms::Material), 300);
        let mut flipped = game.position().clone();
        flipped.set_side_to_move(White);
        assert_eq!(at_baseline(&flipped, EvalTerms::Material), -300);
    }

    #[test]
    fn an_advanced_pawn_and_a_pawn_in_the_zone_are_worth_more() {
        let at = |square: &str| {
            game(
                true,
                &[
                    ("10s", Black, General),
                    ("10a", White, General),
                    ("9r", Black, Pawn),
                    (square, Black, Pawn),
                ],
            )
        };
        let home = at_baseline(at("3p").position(), EvalTerms::Full);
        let middle = at_baseline(at("3j").position(), EvalTerms::Full);
        let zone = at_baseline(at("3f").position(), EvalTerms::Full);
        assert_eq!(
            middle - home,
            6 * ADVANCE_FOOT,
            "six ranks of a pawn's advance"
        );
        assert_eq!(
            zone - middle,
            4 * ADVANCE_FOOT + ZONE_BONUS,
            "four more ranks and the zone"
        );
    }

    #[test]
    fn enemies_near_the_general_cost_and_friends_beside_it_help() {
        let alone = game(true, &[("10s", Black, General), ("10a", White, General)]);
        let guarded = game(
            true,
            &[
                ("10s", Black, General),
                ("10a", White, General),
                ("9s", Black, Engineer),
            ],
        );
        let threatened = game(
            true,
            &[
                ("10s", Black, General),
                ("10a", White, General),
                ("10p", White, Chariot),
            ],
        );
        let base = at_baseline(alone.position(), EvalTerms::Full);
        let engineer = piece_centipawns(Engineer); // on its back rank: no advance
        assert_eq!(
            at_baseline(guarded.position(), EvalTerms::Full) - base,
            engineer + SHELTER_BONUS
        );
        // The white chariot 3 points from Black's general: its material, its advance (15 ranks,
        // in the zone) and the danger it brings.
        let chariot = piece_centipawns(Chariot);
        let expected = -(chariot + ADVANCE_FOOT * 15 + ZONE_BONUS + chariot / DANGER_DIVISOR);
        assert_eq!(
            at_baseline(threatened.position(), EvalTerms::Full) - base,
            expected
        );
    }
}
