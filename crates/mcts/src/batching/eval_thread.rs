//! The evaluation thread: the one owner of the evaluator (and so of the model).
//!
//! A tch `Tensor` is `Send` but not `Sync`, so the model cannot be shared between threads; it
//! lives on this thread, which is built by a factory closure *on* the thread (so nothing
//! non-`Send` ever crosses) and answers batches sent through a channel of depth two: while it
//! evaluates one batch, the search thread prepares the next. libtorch's intra-op thread count
//! is per calling thread, so a network factory should call `tch::set_num_threads` itself.

use crate::batch::Batch;
use crate::evaluator::{validate, EvalError, Evaluation, Evaluator};
use crate::game::SearchGame;
use crossbeam_channel::{bounded, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A batch travelling to the evaluation thread and back with its answers.
pub struct EvalJob<G: SearchGame> {
    /// Which batch slot of the driver this is (for ping-pong bookkeeping).
    pub group: usize,
    pub batch: Batch<G>,
    pub evaluations: Vec<Evaluation>,
    pub outcome: Result<(), EvalError>,
    /// Time the evaluator spent on this batch.
    pub busy: Duration,
    /// The evaluator's [`Evaluator::generation`] when it answered this batch.
    pub generation: u64,
}

impl<G: SearchGame> EvalJob<G> {
    pub fn new(group: usize) -> EvalJob<G> {
        EvalJob {
            group,
            batch: Batch::default(),
            evaluations: Vec::new(),
            outcome: Ok(()),
            busy: Duration::ZERO,
            generation: 0,
        }
    }
}

/// Handle to a running evaluation thread.
pub struct EvalThread<G: SearchGame> {
    jobs: Option<Sender<EvalJob<G>>>,
    answers: Receiver<EvalJob<G>>,
    handle: Option<JoinHandle<()>>,
}

impl<G: SearchGame + 'static> EvalThread<G> {
    /// Starts the thread and builds the evaluator on it with `make`; returns once it is ready
    /// (or with the factory's error).
    pub fn spawn<E, F>(make: F) -> Result<EvalThread<G>, EvalError>
    where
        E: Evaluator<G> + 'static,
        F: FnOnce() -> Result<E, EvalError> + Send + 'static,
    {
        let (job_tx, job_rx) = bounded::<EvalJob<G>>(2);
        let (answer_tx, answer_rx) = bounded::<EvalJob<G>>(2);
        let (ready_tx, ready_rx) = bounded::<Result<(), EvalError>>(1);
        let handle = std::thread::Builder::new()
            .name("koshogi-eval".into())
            .spawn(move || {
                let mut evaluator = match make() {
                    Ok(e) => {
                        let _ = ready_tx.send(Ok(()));
                        e
                    }
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                        return;
                    }
                };
                for mut job in job_rx {
                    let start = Instant::now();
                    job.evaluations.clear();
                    job.outcome = evaluator
                        .evaluate(&job.batch.requests, &mut job.evaluations)
                        .and_then(|()| validate(&job.batch.requests, &job.evaluations));
                    job.busy = start.elapsed();
                    job.generation = evaluator.generation();
                    if answer_tx.send(job).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| EvalError::ThreadGone(e.to_string()))?;
        let ready = ready_rx
            .recv()
            .map_err(|e| EvalError::ThreadGone(e.to_string()))?;
        let thread = EvalThread {
            jobs: Some(job_tx),
            answers: answer_rx,
            handle: Some(handle),
        };
        ready.map(|()| thread)
    }
}

impl<G: SearchGame> EvalThread<G> {
    /// Queues a batch (blocks only if two are already queued).
    pub fn submit(&self, job: EvalJob<G>) -> Result<(), EvalError> {
        self.jobs
            .as_ref()
            .expect("sender lives until drop")
            .send(job)
            .map_err(|_| EvalError::ThreadGone("evaluation thread stopped".into()))
    }

    /// The next answered batch, in submission order.
    pub fn receive(&self) -> Result<EvalJob<G>, EvalError> {
        self.answers
            .recv()
            .map_err(|_| EvalError::ThreadGone("evaluation thread stopped (panicked?)".into()))
    }
}

impl<G: SearchGame> Drop for EvalThread<G> {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}
