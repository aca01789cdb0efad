//! The transposition table: what earlier searches learnt about a position, keyed by the rules'
//! Zobrist hash ([`koshogi_rules::Position::hash`]).
//!
//! Why: Ko shogi's pieces reach the same position by many move orders, and iterative deepening
//! searches every position again one ply deeper; the table returns the bound found last time
//! (so a search can stop at once) and the best move (searched first, which is what makes
//! alpha-beta's cut-offs come early).
//!
//! A fixed array of entries, always-replace except that a deeper entry of the current search
//! survives a shallower one of the same search; the size is set in bytes, so memory is bounded
//! ([`ENTRY_BYTES`] each). A stored move is only a suggestion: the search plays it only if it
//! is among the position's generated legal moves, so a hash collision costs ordering, never
//! legality.

use koshogi_rules::Move;

/// What a stored score means about the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score.
    Exact,
    /// At least the stored score (the search failed high).
    Lower,
    /// At most the stored score (every move failed low).
    Upper,
}

/// One remembered position.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: u64,
    pub best_move: Option<Move>,
    /// Score from the stored position's side to move, win scores made ply-independent
    /// ([`super::search`] converts them).
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    /// Which search stored it ([`TranspositionTable::new_search`]).
    generation: u8,
}

/// Bytes one entry occupies.
pub const ENTRY_BYTES: usize = std::mem::size_of::<Option<Entry>>();
/// The default size: 16 MiB.
pub const DEFAULT_TABLE_BYTES: usize = 16 << 20;

/// A fixed-size table of [`Entry`].
pub struct TranspositionTable {
    entries: Vec<Option<Entry>>,
    mask: usize,
    generation: u8,
}

impl TranspositionTable {
    /// A table of at most `bytes` bytes (rounded down to a power of two entries, at least one).
    pub fn with_bytes(bytes: usize) -> Self {
        let wanted = (bytes / ENTRY_BYTES).max(1);
        let count = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        Self {
            entries: vec![None; count],
            mask: count - 1,
            generation: 0,
        }
    }

    /// Bytes the entries occupy.
    pub fn bytes(&self) -> usize {
        self.entries.len() * ENTRY_BYTES
    }

    /// Marks the start of a new search: older entries may now be replaced by shallower ones.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|entry| *entry = None);
    }

    /// The entry stored for `key`, if the slot still holds it.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.entries[key as usize & self.mask].filter(|entry| entry.key == key)
    }

    /// Stores a result, unless the slot holds a deeper result of this same search for another
    /// position. A result without a move keeps the move already stored for the same position.
    pub fn store(
        &mut self,
        key: u64,
        best_move: Option<Move>,
        score: i32,
        depth: i16,
        bound: Bound,
    ) {
        let slot = &mut self.entries[key as usize & self.mask];
        if let Some(old) = slot {
            if old.key != key && old.generation == self.generation && old.depth > depth {
                return;
            }
        }
        let best_move = best_move.or_else(|| slot.filter(|old| old.key == key)?.best_move);
        *slot = Some(Entry {
            key,
            best_move,
            score,
            depth,
            bound,
            generation: self.generation,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::{Position, RulesOptions};

    #[test]
    fn the_size_is_bounded_by_the_bytes_asked_for() {
        for bytes in [0, 1, ENTRY_BYTES * 3, 1 << 20, DEFAULT_TABLE_BYTES] {
            let table = TranspositionTable::with_bytes(bytes);
            assert!(table.entries.len().is_power_of_two());
            assert!(table.bytes() <= bytes.max(ENTRY_BYTES));
            assert!(table.bytes() * 2 > bytes || bytes < ENTRY_BYTES);
        }
    }

    #[test]
    fn stores_and_finds_by_key_and_keeps_deeper_entries_of_the_same_search() {
        let moves = Position::startpos().legal_moves(&RulesOptions::default());
        let mut table = TranspositionTable::with_bytes(ENTRY_BYTES * 4);
        table.store(5, Some(moves[0]), 30, 4, Bound::Exact);
        let entry = table.probe(5).unwrap();
        assert_eq!(
            (entry.best_move, entry.score, entry.depth, entry.bound),
            (Some(moves[0]), 30, 4, Bound::Exact)
        );
        assert!(table.probe(9).is_none(), "same slot, other key");
        // A shallower result for another position in the same slot does not replace it...
        table.store(9, Some(moves[1]), 10, 2, Bound::Lower);
        assert_eq!(table.probe(5).unwrap().depth, 4);
        assert!(table.probe(9).is_none());
        // ...but does in the next search.
        table.new_search();
        table.store(9, Some(moves[1]), 10, 2, Bound::Lower);
        assert!(table.probe(5).is_none());
        assert_eq!(table.probe(9).unwrap().best_move, Some(moves[1]));
        // A result without a move keeps the stored move of the same position.
        table.store(9, None, -7, 3, Bound::Upper);
        let entry = table.probe(9).unwrap();
        assert_eq!((entry.best_move, entry.score), (Some(moves[1]), -7));
        table.clear();
        assert!(table.probe(9).is_none());
    }
}
