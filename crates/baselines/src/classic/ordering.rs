//! Move ordering: which of a position's ~250 moves the search tries first.
//!
//! Why it matters most: alpha-beta's cost falls from `b^d` towards `b^(d/2)` only when the best
//! move comes first, and Ko shogi's branching factor (~250) makes every misordered node
//! expensive. The order, best first:
//! 1. the transposition table's move (the best move found for this position before);
//! 2. captures by most valuable victims, then least valuable mover (MVV/LVA);
//! 3. evasions: quiet moves of a piece the opponent could capture now ([`super::threats`]), the
//!    most valuable piece first;
//! 4. the two killer moves of this ply (quiet moves that caused a cut-off in a sibling);
//! 5. the remaining quiet moves by their history score (how often, and how deep, the same
//!    origin → destination move caused cut-offs anywhere in the tree).
//!
//! Evasions and killers are the quiet moves the search never reduces or prunes
//! ([`is_quiet_key`] is false for them).

use koshogi_rules::{Color, Move, Position, Square, MAX_LEGS, MAX_SHOTS};

use super::threats::Threats;
use super::values::PieceValues;

/// Order keys; higher first. Bands keep the groups apart.
const TABLE_MOVE: i64 = 1 << 40;
const CAPTURE: i64 = 1 << 32;
/// Above the killers: an evasion saves a piece now, a killer only cut off a sibling.
const EVASION: i64 = 1 << 30;
const KILLER: i64 = 1 << 28;

/// Killer moves by ply and the history table by side, origin and destination, with the piece
/// values captures and evasions are ranked by.
pub struct MoveOrdering {
    values: PieceValues,
    killers: Vec<[Option<Move>; 2]>,
    /// `[side][origin * 361 + destination]`.
    history: Vec<Vec<i32>>,
}

/// History scores are halved when one reaches this, so they stay comparable and bounded.
const HISTORY_LIMIT: i32 = 1 << 24;

impl Default for MoveOrdering {
    fn default() -> Self {
        Self::new(PieceValues::default())
    }
}

impl MoveOrdering {
    /// Bytes of the history table.
    pub const HISTORY_BYTES: usize = 2 * Square::COUNT * Square::COUNT * std::mem::size_of::<i32>();

    pub fn new(values: PieceValues) -> Self {
        Self {
            values,
            killers: Vec::new(),
            history: vec![vec![0; Square::COUNT * Square::COUNT]; 2],
        }
    }

    /// Forgets the killers and ages the history (between moves of one game: what caused
    /// cut-offs a move ago mostly still does).
    pub fn new_search(&mut self) {
        self.killers.clear();
        for table in &mut self.history {
            table.iter_mut().for_each(|score| *score /= 8);
        }
    }

    fn history_index(mv: &Move) -> usize {
        mv.origin().index() * Square::COUNT + mv.destination().index()
    }

    /// The killers of `ply`.
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers.get(ply).copied().unwrap_or([None, None])
    }

    /// Records that the quiet move `mv` of `side` caused a cut-off at `ply` with `depth` plies
    /// left: it becomes the ply's first killer and its history grows by `depth²`.
    pub fn record_cutoff(&mut self, side: Color, mv: Move, ply: usize, depth: i32) {
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None, None]);
        }
        let killers = &mut self.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let table = &mut self.history[side.index()];
        let score = &mut table[Self::history_index(&mv)];
        *score += depth * depth;
        if *score >= HISTORY_LIMIT {
            table.iter_mut().for_each(|score| *score /= 2);
        }
    }

    /// Fills `out` with `moves` and their order keys, sorted best first. `threats` are the
    /// side to move's attacked pieces ([`Threats::NONE`] where the search did not look).
    pub fn order(
        &self,
        position: &Position,
        moves: &[Move],
        table_move: Option<Move>,
        ply: usize,
        threats: &Threats,
        out: &mut Vec<(i64, Move)>,
    ) {
        let killers = self.killers(ply);
        let history = &self.history[position.side_to_move().index()];
        out.clear();
        out.extend(moves.iter().map(|&mv| {
            let key = if Some(mv) == table_move {
                TABLE_MOVE
            } else if mv.is_capture() {
                CAPTURE + capture_key(&self.values, position, &mv)
            } else if threats.is_attacked(mv.origin()) && mv.destination() != mv.origin() {
                EVASION
                    + position
                        .piece_at(mv.origin())
                        .map_or(0, |piece| i64::from(self.values.of(piece.kind)))
            } else if killers[0] == Some(mv) {
                KILLER + 1
            } else if killers[1] == Some(mv) {
                KILLER
            } else {
                i64::from(history[Self::history_index(&mv)])
            };
            (key, mv)
        }));
        out.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
    }
}

/// Whether an order key belongs to a plain quiet move: not the table move, a capture, an
/// evasion or a killer (the moves late-move reductions and pruning may skip).
pub fn is_quiet_key(key: i64) -> bool {
    key < KILLER
}

/// Centipawns (at `values`) of the enemy pieces `mv` removes.
///
/// The removed set of [`Move::removed_points`] without its allocation (this runs for every
/// capture the search orders or prunes): capturing legs and shots, each point counted once.
pub fn victims_centipawns(values: &PieceValues, position: &Position, mv: &Move) -> i32 {
    let mover = position.side_to_move();
    let mut points = [Square::default(); MAX_LEGS + MAX_SHOTS];
    let mut count = 0;
    for point in mv.removals() {
        if !points[..count].contains(&point) {
            points[count] = point;
            count += 1;
        }
    }
    points[..count]
        .iter()
        .filter_map(|&point| position.piece_at(point))
        .filter(|piece| piece.color != mover)
        .map(|piece| values.of(piece.kind))
        .sum()
}

/// MVV/LVA within the capture band: victims first, the cheaper mover breaking ties.
fn capture_key(values: &PieceValues, position: &Position, mv: &Move) -> i64 {
    let attacker = position
        .piece_at(mv.origin())
        .map_or(0, |piece| values.of(piece.kind));
    i64::from(victims_centipawns(values, position, mv)) * 64 - i64::from(attacker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_positions::game;
    use koshogi_rules::PieceKind::*;
    use Color::{Black, White};

    /// Whether an order key belongs to a capture or the table move.
    fn is_tactical_key(key: i64) -> bool {
        key >= CAPTURE
    }

    #[test]
    fn table_move_then_captures_by_victim_then_killers_then_history() {
        let game = game(
            true,
            &[
                ("19s", Black, General),
                ("1a", White, General),
                ("10j", Black, Chariot),
                ("10i", White, Pawn),
                ("5j", Black, Chariot),
                ("5i", White, Engineer),
            ],
        );
        let position = game.position();
        let moves = game.legal_moves();
        let find = |text: &str| *moves.iter().find(|m| m.to_string() == text).unwrap();
        let quiet_a = find("19s-18r");
        let quiet_c = find("19s-18s");
        let table_move = find("19s-19r");
        let mut ordering = MoveOrdering::default();
        ordering.record_cutoff(Black, quiet_a, 3, 2);
        ordering.record_cutoff(Black, quiet_c, 7, 5);
        let mut out = Vec::new();
        ordering.order(
            position,
            &moves,
            Some(table_move),
            3,
            &Threats::NONE,
            &mut out,
        );
        let names: Vec<String> = out.iter().map(|(_, m)| m.to_string()).collect();
        assert_eq!(names[0], "19s-19r");
        assert!(names[1].starts_with("5jx5i"), "{names:?}");
        assert!(names[2].starts_with("10jx10i"), "{names:?}");
        let first_quiet = out
            .iter()
            .position(|(key, _)| !is_tactical_key(*key))
            .unwrap();
        assert_eq!(out[first_quiet].1, quiet_a, "the killer of ply 3");
        assert!(!is_quiet_key(out[first_quiet].0), "a killer is not reduced");
        assert!(is_quiet_key(out[first_quiet + 1].0));
        assert_eq!(out[first_quiet + 1].1, quiet_c, "the best history");
        // Another ply has no killers: history alone (quiet_c's 25 before quiet_a's 4).
        ordering.order(position, &moves, None, 4, &Threats::NONE, &mut out);
        let first_quiet = out
            .iter()
            .position(|(key, _)| !is_tactical_key(*key))
            .unwrap();
        assert_eq!(out[first_quiet].1, quiet_c);
        assert_eq!(out[first_quiet + 1].1, quiet_a);
        ordering.new_search();
        assert_eq!(ordering.killers(3), [None, None]);
    }

    #[test]
    fn evasions_of_the_most_valuable_attacked_piece_come_before_killers() {
        // White's chariot on 10e attacks Black's pawn on 10i; Black's aide on 3i is out of
        // reach, and one of its moves is this ply's killer.
        let game = crate::test_positions::pawn_under_a_chariot("3i");
        let mut position = game.position().clone();
        let moves = game.legal_moves();
        let threats = super::super::threats::opponent_threats(
            &PieceValues::baseline(),
            &mut position,
            game.options(),
            &mut Vec::new(),
            &mut 0,
        );
        let aide_move = *moves
            .iter()
            .find(|m| m.origin() == "3i".parse().unwrap() && !m.is_capture())
            .unwrap();
        let mut ordering = MoveOrdering::default();
        ordering.record_cutoff(Black, aide_move, 2, 4);
        let mut out = Vec::new();
        ordering.order(&position, &moves, None, 2, &threats, &mut out);
        let pawn: Square = "10i".parse().unwrap();
        let first_quiet = out
            .iter()
            .position(|(key, m)| !is_tactical_key(*key) && !m.is_capture())
            .unwrap();
        assert_eq!(out[first_quiet].1.origin(), pawn, "{:?}", out[first_quiet]);
        assert!(
            !is_quiet_key(out[first_quiet].0),
            "an evasion is not reduced"
        );
        let killer_at = out.iter().position(|(_, m)| *m == aide_move).unwrap();
        let last_evasion = out
            .iter()
            .rposition(|(_, m)| m.origin() == pawn && !m.is_capture())
            .unwrap();
        assert!(
            last_evasion < killer_at,
            "every pawn move before the killer"
        );
        // Without the threats the pawn's moves are ordinary quiet moves.
        ordering.order(&position, &moves, None, 2, &Threats::NONE, &mut out);
        assert_eq!(out[first_quiet].1, aide_move);
    }
}
