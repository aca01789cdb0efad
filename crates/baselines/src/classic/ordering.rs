//! Move ordering: which of a position's ~250 moves the search tries first.
//!
//! Why it matters most: alpha-beta's cost falls from `b^d` towards `b^(d/2)` only when the best
//! move comes first, and Ko shogi's branching factor (~250) makes every misordered node
//! expensive. The order, best first:
//! 1. the transposition table's move (the best move found for this position before);
//! 2. captures by most valuable victims, then least valuable mover (MVV/LVA);
//! 3. the two killer moves of this ply (quiet moves that caused a cut-off in a sibling);
//! 4. the remaining quiet moves by their history score (how often, and how deep, the same
//!    origin → destination move caused cut-offs anywhere in the tree).

use koshogi_rules::{Color, Move, Position, Square, MAX_LEGS, MAX_SHOTS};

use super::eval::piece_centipawns;

/// Order keys; higher first. Bands keep the groups apart.
const TABLE_MOVE: i64 = 1 << 40;
const CAPTURE: i64 = 1 << 32;
const KILLER: i64 = 1 << 28;

/// Killer moves by ply and the history table by side, origin and destination.
pub struct MoveOrdering {
    killers: Vec<[Option<Move>; 2]>,
    /// `[side][origin * 361 + destination]`.
    history: Vec<Vec<i32>>,
}

/// History scores are halved when one reaches this, so they stay comparable and bounded.
const HISTORY_LIMIT: i32 = 1 << 24;

impl Default for MoveOrdering {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveOrdering {
    /// Bytes of the history table.
    pub const HISTORY_BYTES: usize = 2 * Square::COUNT * Square::COUNT * std::mem::size_of::<i32>();

    pub fn new() -> Self {
        Self {
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

    /// Fills `out` with `moves` and their order keys, sorted best first.
    pub fn order(
        &self,
        position: &Position,
        moves: &[Move],
        table_move: Option<Move>,
        ply: usize,
        out: &mut Vec<(i64, Move)>,
    ) {
        let killers = self.killers(ply);
        let history = &self.history[position.side_to_move().index()];
        out.clear();
        out.extend(moves.iter().map(|&mv| {
            let key = if Some(mv) == table_move {
                TABLE_MOVE
            } else if mv.is_capture() {
                CAPTURE + capture_key(position, &mv)
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

/// Whether an order key belongs to a capture or the table move (searched without reduction).
pub fn is_tactical_key(key: i64) -> bool {
    key >= CAPTURE
}

/// Whether an order key belongs to a killer move.
pub fn is_killer_key(key: i64) -> bool {
    (KILLER..CAPTURE).contains(&key)
}

/// Centipawns of the enemy pieces `mv` removes.
///
/// The removed set of [`Move::removed_points`] without its allocation (this runs for every
/// capture the search orders or prunes): capturing legs and shots, each point counted once.
pub fn victims_centipawns(position: &Position, mv: &Move) -> i32 {
    let mover = position.side_to_move();
    let mut points = [Square::default(); MAX_LEGS + MAX_SHOTS];
    let mut count = 0;
    let capturing_legs = mv
        .legs()
        .iter()
        .enumerate()
        .filter(|&(i, _)| mv.leg_captures(i))
        .map(|(_, &point)| point);
    for point in capturing_legs.chain(mv.shots().iter().copied()) {
        if !points[..count].contains(&point) {
            points[count] = point;
            count += 1;
        }
    }
    points[..count]
        .iter()
        .filter_map(|&point| position.piece_at(point))
        .filter(|piece| piece.color != mover)
        .map(|piece| piece_centipawns(piece.kind))
        .sum()
}

/// MVV/LVA within the capture band: victims first, the cheaper mover breaking ties.
fn capture_key(position: &Position, mv: &Move) -> i64 {
    let attacker = position
        .piece_at(mv.origin())
        .map_or(0, |piece| piece_centipawns(piece.kind));
    i64::from(victims_centipawns(position, mv)) * 64 - i64::from(attacker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_positions::game;
    use koshogi_rules::PieceKind::*;
    use Color::{Black, White};

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
        let mut ordering = MoveOrdering::new();
        ordering.record_cutoff(Black, quiet_a, 3, 2);
        ordering.record_cutoff(Black, quiet_c, 7, 5);
        let mut out = Vec::new();
        ordering.order(position, &moves, Some(table_move), 3, &mut out);
        let names: Vec<String> = out.iter().map(|(_, m)| m.to_string()).collect();
        assert_eq!(names[0], "19s-19r");
        assert!(names[1].starts_with("5jx5i"), "{names:?}");
        assert!(names[2].starts_with("10jx10i"), "{names:?}");
        let first_quiet = out
            .iter()
            .position(|(key, _)| !is_tactical_key(*key))
            .unwrap();
        assert_eq!(out[first_quiet].1, quiet_a, "the killer of ply 3");
        assert!(is_killer_key(out[first_quiet].0));
        assert_eq!(out[first_quiet + 1].1, quiet_c, "the best history");
        // Another ply has no killers: history alone (quiet_c's 25 before quiet_a's 4).
        ordering.order(position, &moves, None, 4, &mut out);
        let first_quiet = out
            .iter()
            .position(|(key, _)| !is_tactical_key(*key))
            .unwrap();
        assert_eq!(out[first_quiet].1, quiet_c);
        assert_eq!(out[first_quiet + 1].1, quiet_a);
        ordering.new_search();
        assert_eq!(ordering.killers(3), [None, None]);
    }
}
