//! A bounded evaluation cache keyed by position hash.
//!
//! Transpositions, tree reuse misses and identical openings across games ask the network about
//! the same position again; a hit answers without a forward pass. The table is direct-mapped
//! (slot = hash mod capacity, newest entry wins), so its size is fixed up front and lookups
//! cost one probe. Entries keep the full hash and the number of legal moves, and a lookup only
//! hits when both match, so a slot collision never hands back another position's priors.
//! Memory: about `capacity * (48 + 4 * legal moves)` bytes when full.
//!
//! [`CachedEvaluator`] puts the cache in front of an evaluation thread (and so of any
//! [`crate::Evaluator`]): it remembers every answer and forgets them all when the evaluator's
//! weights change. Lookups happen during the descent ([`crate::Search::collect`] takes
//! [`CachedEvaluator::cache_mut`]), so a hit is backed up on the spot instead of waiting a
//! batch round trip, and never counts against a tree's leaves in flight.

use crate::eval_thread::{EvalJob, EvalThread};
use crate::evaluator::EvalError;
use crate::game::SearchGame;
use crate::wdl::Wdl;

struct Entry {
    hash: u64,
    priors: Box<[f32]>,
    wdl: Wdl,
}

/// Direct-mapped cache of evaluations (normalised priors in move-generation order + value).
pub struct EvalCache {
    slots: Vec<Option<Entry>>,
    pub hits: u64,
    pub misses: u64,
}

impl EvalCache {
    /// A cache with `capacity` slots (0 disables caching).
    pub fn new(capacity: usize) -> EvalCache {
        EvalCache {
            slots: (0..capacity).map(|_| None).collect(),
            hits: 0,
            misses: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn slot(&self, hash: u64) -> Option<usize> {
        (!self.slots.is_empty()).then(|| (hash % self.slots.len() as u64) as usize)
    }

    /// The cached priors and value for a position with `num_moves` legal moves.
    pub fn get(&mut self, hash: u64, num_moves: usize) -> Option<(&[f32], Wdl)> {
        let found = self
            .slot(hash)
            .and_then(|i| self.slots[i].as_ref())
            .filter(|e| e.hash == hash && e.priors.len() == num_moves)
            .is_some();
        if !found {
            self.misses += 1;
            return None;
        }
        self.hits += 1;
        let entry = self.slots[self.slot(hash)?].as_ref()?;
        Some((&entry.priors, entry.wdl))
    }

    pub fn insert(&mut self, hash: u64, priors: &[f32], wdl: Wdl) {
        if let Some(i) = self.slot(hash) {
            self.slots[i] = Some(Entry {
                hash,
                priors: priors.into(),
                wdl,
            });
        }
    }

    /// Forgets every entry (the weights that made them were replaced); keeps the counters.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
    }

    /// Share of lookups that hit.
    pub fn hit_rate(&self) -> f64 {
        let total = self.hits + self.misses;
        if total == 0 {
            0.0
        } else {
            self.hits as f64 / total as f64
        }
    }
}

/// An evaluation thread behind an [`EvalCache`] (see the module docs).
pub struct CachedEvaluator<G: SearchGame> {
    eval: EvalThread<G>,
    cache: EvalCache,
    /// The evaluator generation the cache's entries come from (see
    /// [`crate::Evaluator::generation`]).
    generation: u64,
}

impl<G: SearchGame> CachedEvaluator<G> {
    /// `eval` behind a cache of `capacity` slots (0 disables caching).
    pub fn new(eval: EvalThread<G>, capacity: usize) -> CachedEvaluator<G> {
        CachedEvaluator {
            eval,
            cache: EvalCache::new(capacity),
            generation: 0,
        }
    }

    pub fn cache(&self) -> &EvalCache {
        &self.cache
    }

    /// The cache, for the searches' lookups.
    pub fn cache_mut(&mut self) -> &mut EvalCache {
        &mut self.cache
    }

    /// Queues a batch (blocks only if two are already queued).
    pub fn submit(&self, job: EvalJob<G>) -> Result<(), EvalError> {
        self.eval.submit(job)
    }

    /// The next answered batch, in submission order; a successful one's answers are cached.
    /// New weights empty the cache first: what the old ones said must not answer new leaves,
    /// and a batch still in flight from the old weights is answered but not cached.
    pub fn receive(&mut self) -> Result<EvalJob<G>, EvalError> {
        let job = self.eval.receive()?;
        if job.outcome.is_ok() {
            if job.generation > self.generation {
                self.cache.clear();
                self.generation = job.generation;
            }
            if job.generation == self.generation {
                for (ticket, evaluation) in job.batch.tickets.iter().zip(&job.evaluations) {
                    self.cache
                        .insert(ticket.hash, &evaluation.priors, evaluation.wdl);
                }
            }
        }
        Ok(job)
    }

    /// The evaluation thread again, without the cache.
    pub fn into_inner(self) -> EvalThread<G> {
        self.eval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_needs_same_hash_and_move_count() {
        let mut cache = EvalCache::new(8);
        cache.insert(3, &[0.5, 0.5], Wdl::DRAW);
        assert_eq!(
            cache.get(3, 2).map(|(p, w)| (p.to_vec(), w)),
            Some((vec![0.5, 0.5], Wdl::DRAW))
        );
        assert!(cache.get(3, 3).is_none());
        assert!(cache.get(11, 2).is_none(), "same slot, other hash");
        cache.insert(11, &[1.0, 0.0], Wdl::WIN);
        assert!(cache.get(3, 2).is_none(), "evicted by the newer entry");
        assert_eq!(cache.hits, 1);
        assert_eq!(cache.misses, 3);
    }

    #[test]
    fn clear_forgets_entries_and_keeps_counters() {
        let mut cache = EvalCache::new(8);
        cache.insert(3, &[1.0], Wdl::WIN);
        assert!(cache.get(3, 1).is_some());
        cache.clear();
        assert!(cache.get(3, 1).is_none());
        assert_eq!((cache.hits, cache.misses), (1, 1));
    }

    #[test]
    fn zero_capacity_disables_it() {
        let mut cache = EvalCache::new(0);
        cache.insert(1, &[1.0], Wdl::WIN);
        assert!(cache.get(1, 1).is_none());
    }
}
