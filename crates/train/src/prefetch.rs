//! Preparing the next batches on another thread while the current step trains.
//!
//! Decoding stored positions, generating their legal moves and encoding features costs a
//! noticeable fraction of a training step on a CPU; done inline it would slow training by that
//! fraction. A [`Prefetcher`] owns the [`Sampler`] on its own thread and keeps up to `capacity`
//! finished batches (already tensors) in a bounded channel. Batches are numbered, and batch `k`
//! is the same whenever it is drawn (see [`crate::sampler`]), so batches prepared but never
//! trained on when the run stops are simply discarded: the saved cursor counts trained batches.
//!
//! When the sampler is starved (too little data, or the reuse cap reached) the thread either
//! reports it once and ends (`follow = false`, a one-off `koshogi train`) or polls the shard
//! directory until new data arrives (`follow = true`, training next to self-play).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use koshogi_nn::{ResolvedRuntime, TrainingBatch};

use crate::replay_window::KnownShard;
use crate::sampler::{Draw, Sampler, SamplerError, Starved};

/// A batch ready for the training step.
#[derive(Debug)]
pub struct PreparedBatch {
    /// 0-based number of the batch in the run (= the step it is meant for).
    pub index: u64,
    pub batch: TrainingBatch,
    pub mirrored: usize,
    pub rejected: usize,
    pub total_rows: u64,
    pub window_rows: u64,
    /// The shard numbering when the batch was drawn (part of the resume cursor).
    pub known_shards: Arc<Vec<KnownShard>>,
    /// Time spent drawing, encoding and building this batch.
    pub prepare_time: Duration,
}

/// What the prefetch thread hands over.
#[derive(Debug)]
pub enum Prefetched {
    Batch(PreparedBatch),
    /// Waiting for self-play (sent again after every poll while it lasts).
    Waiting(Starved),
    /// Not following the directory and no batch can be drawn: the thread has ended.
    Exhausted(Starved),
    /// The sampler failed: the thread has ended.
    Failed(SamplerError),
}

/// How the prefetch thread behaves.
#[derive(Debug, Clone, Copy)]
pub struct PrefetchOptions {
    /// Batches prepared ahead.
    pub capacity: usize,
    /// Device, kind and layout the batch tensors are built in (the training step's).
    pub input: ResolvedRuntime,
    /// Wait for new shards when starved instead of ending.
    pub follow: bool,
    /// How often to look for new shards.
    pub poll: Duration,
}

/// The prefetch thread and its channel. Dropping it stops and joins the thread.
pub struct Prefetcher {
    receiver: Option<Receiver<Prefetched>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Prefetcher {
    /// Starts the thread. The sampler should have been refreshed once already.
    pub fn spawn(sampler: Sampler, options: PrefetchOptions) -> std::io::Result<Self> {
        let (sender, receiver) = crossbeam_channel::bounded(options.capacity.max(1));
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("train-prefetch".into())
            .spawn(move || {
                lower_thread_priority();
                prefetch_loop(sampler, options, sender, &thread_stop)
            })?;
        Ok(Self {
            receiver: Some(receiver),
            stop,
            handle: Some(handle),
        })
    }

    /// The next item; `None` once the thread has ended and everything was received.
    pub fn recv(&self) -> Option<Prefetched> {
        self.receiver.as_ref()?.recv().ok()
    }

    /// Like [`Prefetcher::recv`] but gives up after `timeout` (`Err(Timeout)`), so that the
    /// caller can check its stop flag while waiting.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Prefetched, RecvTimeoutError> {
        match &self.receiver {
            Some(receiver) => receiver.recv_timeout(timeout),
            None => Err(RecvTimeoutError::Disconnected),
        }
    }
}

impl Drop for Prefetcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Dropping the receiver makes a blocked send fail, so the thread wakes up and ends.
        drop(self.receiver.take());
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn prefetch_loop(
    mut sampler: Sampler,
    options: PrefetchOptions,
    sender: Sender<Prefetched>,
    stop: &AtomicBool,
) {
    let mut known = Arc::new(sampler.window().known().to_vec());
    let mut last_refresh = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        if options.follow && last_refresh.elapsed() >= options.poll {
            if let Err(error) = sampler.refresh() {
                let _ = sender.send(Prefetched::Failed(error));
                return;
            }
            last_refresh = Instant::now();
        }
        let started = Instant::now();
        match sampler.next_batch() {
            Ok(Draw::Ready(sampled)) => {
                if known.len() != sampler.window().known().len() {
                    known = Arc::new(sampler.window().known().to_vec());
                }
                let batch = sampled.builder.build_for(&options.input);
                let prepared = PreparedBatch {
                    index: sampled.index,
                    batch,
                    mirrored: sampled.mirrored,
                    rejected: sampled.rejected,
                    total_rows: sampled.total_rows,
                    window_rows: sampled.window_rows,
                    known_shards: Arc::clone(&known),
                    prepare_time: started.elapsed(),
                };
                if sender.send(Prefetched::Batch(prepared)).is_err() {
                    return;
                }
            }
            Ok(Draw::Starved(starved)) => {
                if !options.follow {
                    let _ = sender.send(Prefetched::Exhausted(starved));
                    return;
                }
                if sender.send(Prefetched::Waiting(starved)).is_err() {
                    return;
                }
                sleep_unless_stopped(options.poll, stop);
                if let Err(error) = sampler.refresh() {
                    let _ = sender.send(Prefetched::Failed(error));
                    return;
                }
                last_refresh = Instant::now();
            }
            Err(error) => {
                let _ = sender.send(Prefetched::Failed(error));
                return;
            }
        }
    }
}

/// Niceness of the prefetch thread: the lowest priority, so that libtorch's threads keep their
/// cores. Preparing a batch takes a small fraction of a step's CPU time, but on a machine with
/// as many busy libtorch threads as cores, a prefetch thread competing at equal priority
/// preempts them in the middle of parallel regions and every other thread waits at the next
/// barrier; measured on 2 cores, that turned a 6 % CPU share into a 15 % slowdown.
#[cfg(target_os = "linux")]
const PREFETCH_NICENESS: libc::c_int = 19;

/// Lowers the calling thread's scheduling priority (Linux: niceness is per thread). Failure
/// only costs speed, so it is logged and ignored.
fn lower_thread_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority take no pointers and only affect the calling thread.
        let result = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, PREFETCH_NICENESS)
        };
        if result != 0 {
            tracing::debug!(
                "could not lower the prefetch thread's priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

fn sleep_unless_stopped(duration: Duration, stop: &AtomicBool) {
    let deadline = Instant::now() + duration;
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
    }
}
