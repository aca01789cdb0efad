//! The worker pool: `workers` threads, each with its own evaluation thread and search driver.
//!
//! Each worker builds its evaluator through the caller's factory *on its evaluation thread*
//! (a tch model is not `Sync`), so on 2 CPU cores the default of one worker means one model,
//! one batch stream and no oversubscription.

use std::sync::Arc;

use koshogi_mcts::{EvalError, EvalRequest, EvalThread, Evaluation, Evaluator};
use koshogi_replay::ShardDir;
use koshogi_rules::Game;

use crate::resign_calibration::ResignCalibration;
use crate::stats::SelfplayStats;
use crate::worker::{run_worker, WorkerContext};
use crate::SelfplayError;

/// Counts the batches an evaluator answers, so the batch fill is visible while games run.
struct CountingEvaluator<E> {
    inner: E,
    stats: Arc<SelfplayStats>,
}

impl<E: Evaluator<Game>> Evaluator<Game> for CountingEvaluator<E> {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<Game>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        self.inner.evaluate(requests, out)?;
        self.stats.update(|t| {
            t.batches += 1;
            t.evaluated += requests.len() as u64;
        });
        Ok(())
    }

    fn generation(&self) -> u64 {
        self.inner.generation()
    }
}

/// Runs `ctx.config.workers` workers to completion. `make_evaluator(worker)` builds worker
/// `worker`'s evaluator; it runs on that worker's evaluation thread.
pub fn run_pool<E, F>(ctx: &WorkerContext, make_evaluator: F) -> Result<(), SelfplayError>
where
    E: Evaluator<Game> + 'static,
    F: Fn(usize) -> Result<E, EvalError> + Clone + Send + 'static,
{
    ctx.config.validate()?;
    // One per process: separate handles on one directory could hand two workers one sequence.
    let shards = ShardDir::for_run(&ctx.run_dir)?;
    let resign = Arc::new(ResignCalibration::new(&ctx.config.resign));
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..ctx.config.workers)
            .map(|worker| {
                let make = make_evaluator.clone();
                let shards = shards.clone();
                let resign = resign.clone();
                std::thread::Builder::new()
                    .name(format!("selfplay-{worker}"))
                    .spawn_scoped(scope, move || {
                        let stats = ctx.stats.clone();
                        let eval = EvalThread::spawn(move || {
                            make(worker).map(|inner| CountingEvaluator { inner, stats })
                        })?;
                        run_worker(worker, ctx, eval, shards, resign)
                    })
                    .map_err(|e| SelfplayError::Config(format!("cannot start worker thread: {e}")))
            })
            .collect::<Result<_, _>>()?;
        let mut first_error = None;
        for (worker, handle) in handles.into_iter().enumerate() {
            let result = handle
                .join()
                .unwrap_or(Err(SelfplayError::WorkerPanicked(worker)));
            if let Err(e) = result {
                tracing::error!("self-play worker {worker}: {e}");
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    })
}
