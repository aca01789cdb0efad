//! The batching search driver: many searches, one evaluator, two batches in flight.
//!
//! The searches are split into two halves. While the evaluation thread works on one half's
//! batch, this thread backs up the other half's answers and walks its trees to the next
//! leaves (ping-pong), so the network never waits for tree work as long as preparing a batch
//! takes less time than evaluating one. All pending leaves of a half go out as one batch.
//! Leaves found in the evaluation cache or at the end of the game never reach the evaluator.

use crate::batch::Batch;
use crate::cache::{CachedEvaluator, EvalCache};
use crate::eval_thread::{EvalJob, EvalThread};
use crate::evaluator::EvalError;
use crate::game::SearchGame;
use crate::search::{Phase, Search};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The most evaluation-cache slots a configuration may ask for. The slots are allocated up
/// front and a full cache holds about `48 + 4 × legal moves` bytes per slot, so 2^20 slots are
/// ~1 GiB at ~250 moves (the default is 2^15).
pub const MAX_CACHE_ENTRIES: usize = 1 << 20;

/// Driver settings (serde, `#[serde(default)]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DriverConfig {
    /// Slots of the evaluation cache (0 disables it).
    pub cache_entries: usize,
    /// Two batches in flight (needs at least two searches); false = one batch at a time.
    pub pipelined: bool,
}

impl Default for DriverConfig {
    fn default() -> Self {
        DriverConfig {
            cache_entries: 1 << 15,
            pipelined: true,
        }
    }
}

/// What the driver did, for benchmarks and logs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DriverStats {
    pub batches: u64,
    /// Positions sent to the evaluator.
    pub evaluated: u64,
    pub largest_batch: usize,
    /// Time this thread sat waiting for the evaluator (tree work could not hide it).
    pub waiting: Duration,
    /// Time the evaluator spent evaluating.
    pub evaluator_busy: Duration,
    /// Wall time inside `run*`.
    pub wall: Duration,
}

/// Drives many [`Search`]es against one [`EvalThread`].
pub struct SearchDriver<G: SearchGame> {
    eval: CachedEvaluator<G>,
    config: DriverConfig,
    stats: DriverStats,
    spare_jobs: Vec<EvalJob<G>>,
}

impl<G: SearchGame> SearchDriver<G> {
    pub fn new(eval: EvalThread<G>, config: DriverConfig) -> SearchDriver<G> {
        SearchDriver {
            eval: CachedEvaluator::new(eval, config.cache_entries),
            config,
            stats: DriverStats::default(),
            spare_jobs: Vec::new(),
        }
    }

    pub fn stats(&self) -> DriverStats {
        self.stats
    }

    pub fn cache(&self) -> &EvalCache {
        self.eval.cache()
    }

    /// Gives the evaluation thread back (the engine keeps one across searches).
    pub fn into_eval_thread(self) -> EvalThread<G> {
        self.eval.into_inner()
    }

    /// Runs every started search to the end of its budget.
    pub fn run(&mut self, searches: &mut [Search<G>]) -> Result<(), EvalError> {
        self.run_with(searches, |_, _| {})
    }

    /// Runs the searches; `on_finished(index, search)` is called as soon as one finishes and
    /// may take its result, play the move (`advance`) and `start` it again, which keeps the
    /// pipeline full across moves. Returns when no search is running. After an error the
    /// searches may hold leaves that will never be answered; drop them.
    pub fn run_with<F>(
        &mut self,
        searches: &mut [Search<G>],
        on_finished: F,
    ) -> Result<(), EvalError>
    where
        F: FnMut(usize, &mut Search<G>),
    {
        self.run_until(searches, on_finished, |_| true)
    }

    /// [`SearchDriver::run_with`] that can also stop early: `keep_going(searches)` is asked
    /// after every answered batch, and once it says no, no new batch is sent; the batches in
    /// flight are still answered, then this returns. The engine stops its search this way on
    /// a deadline or `stop`.
    pub fn run_until<F, K>(
        &mut self,
        searches: &mut [Search<G>],
        mut on_finished: F,
        mut keep_going: K,
    ) -> Result<(), EvalError>
    where
        F: FnMut(usize, &mut Search<G>),
        K: FnMut(&mut [Search<G>]) -> bool,
    {
        let start = Instant::now();
        let groups = if self.config.pipelined && searches.len() >= 2 {
            2
        } else {
            1
        };
        let bounds: Vec<(usize, usize)> = (0..groups)
            .map(|g| {
                (
                    g * searches.len() / groups,
                    (g + 1) * searches.len() / groups,
                )
            })
            .collect();
        let mut in_flight = [false; 2];
        let mut stopping = false;
        let result = 'drive: loop {
            for g in 0..groups {
                if in_flight[g] || stopping {
                    continue;
                }
                let mut job = self.spare_jobs.pop().unwrap_or_else(|| EvalJob::new(g));
                job.group = g;
                self.fill(&mut job.batch, searches, bounds[g], &mut on_finished);
                if job.batch.is_empty() {
                    self.spare_jobs.push(job);
                    continue;
                }
                self.stats.batches += 1;
                self.stats.evaluated += job.batch.len() as u64;
                self.stats.largest_batch = self.stats.largest_batch.max(job.batch.len());
                if let Err(e) = self.eval.submit(job) {
                    break 'drive Err(e);
                }
                in_flight[g] = true;
            }
            if !in_flight.iter().any(|&f| f) {
                break Ok(());
            }
            let waited = Instant::now();
            let job = match self.eval.receive() {
                Ok(job) => job,
                Err(e) => break Err(e),
            };
            self.stats.waiting += waited.elapsed();
            self.stats.evaluator_busy += job.busy;
            in_flight[job.group] = false;
            if let Err(e) = self.answer(job, searches, &mut on_finished) {
                break Err(e);
            }
            stopping = stopping || !keep_going(searches);
        };
        self.stats.wall += start.elapsed();
        result
    }

    /// Collects the next leaves of the searches in `range` into `batch`.
    fn fill<F>(
        &mut self,
        batch: &mut Batch<G>,
        searches: &mut [Search<G>],
        range: (usize, usize),
        on_finished: &mut F,
    ) where
        F: FnMut(usize, &mut Search<G>),
    {
        for (i, search) in searches.iter_mut().enumerate().take(range.1).skip(range.0) {
            // A finished search may be restarted by the callback; keep collecting from it then.
            for _ in 0..1000 {
                if search.phase() != Phase::Running {
                    break;
                }
                search.collect(i as u32, self.eval.cache_mut(), batch);
                if search.phase() == Phase::Finished {
                    on_finished(i, search);
                } else {
                    break;
                }
            }
        }
    }

    /// Hands a batch's answers back to their searches.
    fn answer<F>(
        &mut self,
        mut job: EvalJob<G>,
        searches: &mut [Search<G>],
        on_finished: &mut F,
    ) -> Result<(), EvalError>
    where
        F: FnMut(usize, &mut Search<G>),
    {
        std::mem::replace(&mut job.outcome, Ok(()))?;
        for ((ticket, request), evaluation) in job
            .batch
            .tickets
            .iter()
            .zip(&job.batch.requests)
            .zip(&job.evaluations)
        {
            searches[ticket.search as usize].apply(ticket.slot, &request.moves, evaluation);
        }
        let mut finished: Vec<usize> = job
            .batch
            .tickets
            .iter()
            .map(|t| t.search as usize)
            .collect();
        finished.sort_unstable();
        finished.dedup();
        for i in finished {
            if searches[i].phase() == Phase::Finished && searches[i].in_flight() == 0 {
                on_finished(i, &mut searches[i]);
            }
        }
        job.batch.recycle();
        job.evaluations.clear();
        self.spare_jobs.push(job);
        Ok(())
    }
}
