//! Preparing the next batches on another thread while the current step trains.
//!
//! Decoding stored positions, generating their legal moves and encoding features costs a
//! noticeable fraction of a training step on a CPU; done inline it would slow training by that
//! fraction. A [`Prefetcher`] owns the [`Sampler`] on its own thread and keeps up to `capacity`
//! finished batches (already tensors) in a bounded channel. Batches are numbered, and batch `k`
//! is the same whenever it is drawn (see [`crate::sampler`]), so batches prepared but never
//! trained on when the run stops are simply discarded: the saved cursor counts trained batches.
//!
//! The thread runs at the training thread's priority. It used to run at the lowest (nice 19)
//! so as never to preempt libtorch's threads, but next to self-play (`koshogi run`) or any other
//! busy process it then got almost no CPU: a batch of 256 needs ~0.25 s of CPU, and measured
//! on 2 cores under load, a bfloat16 step waited 78–96 ms for each batch at nice 19, 10–17 ms
//! at nice 10 and 4–8 ms at nice 0.
//!
//! When the sampler is starved (too little data, or the reuse cap reached) the thread either
//! reports it once and ends (`follow = false`, a one-off `koshogi train`) or polls the shard
//! source until new data arrives (`follow = true`, training next to self-play).

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
    /// CPU time the thread spent on it (zero where the platform cannot tell).
    pub prepare_cpu_time: Duration,
}

/// What the prefetch thread hands over.
#[derive(Debug)]
pub enum Prefetched {
    Batch(PreparedBatch),
    /// Waiting for self-play (sent again after every poll while it lasts).
    Waiting(Starved),
    /// Not following the shard source and no batch can be drawn: the thread has ended.
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
    paused: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Prefetcher {
    /// Starts the thread. The sampler should have been refreshed once already.
    pub fn spawn(sampler: Sampler, options: PrefetchOptions) -> std::io::Result<Self> {
        let (sender, receiver) = crossbeam_channel::bounded(options.capacity.max(1));
        let stop = Arc::new(AtomicBool::new(false));
        let paused = Arc::new(AtomicBool::new(false));
        let flags = (Arc::clone(&stop), Arc::clone(&paused));
        let handle = std::thread::Builder::new()
            .name("train-prefetch".into())
            .spawn(move || prefetch_loop(sampler, options, sender, &flags.0, &flags.1))?;
        Ok(Self {
            receiver: Some(receiver),
            stop,
            paused,
            handle: Some(handle),
        })
    }

    /// Stops (`true`) or restarts preparing batches; a batch being prepared is finished. For
    /// measurements: `koshogi bench train` pauses the thread while it times other trainers, so
    /// that the pipeline does not get that time to fill its queue.
    pub fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
        if !paused {
            if let Some(handle) = &self.handle {
                handle.thread().unpark();
            }
        }
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
        self.set_paused(false);
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
    paused: &AtomicBool,
) {
    let mut known = Arc::new(sampler.window().known().to_vec());
    let mut last_refresh = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        if paused.load(Ordering::SeqCst) {
            std::thread::park_timeout(Duration::from_millis(50));
            continue;
        }
        if options.follow && last_refresh.elapsed() >= options.poll {
            if let Err(error) = sampler.refresh() {
                let _ = sender.send(Prefetched::Failed(error));
                return;
            }
            last_refresh = Instant::now();
        }
        let started = Instant::now();
        let cpu_started = thread_cpu_time();
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
                    prepare_cpu_time: thread_cpu_time()
                        .zip(cpu_started)
                        .map(|(now, then)| now.saturating_sub(then))
                        .unwrap_or_default(),
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

/// CPU time the calling thread has used so far (the POSIX per-thread clock, through rustix's
/// safe `clock_gettime`; std has none), `None` where the platform does not say. The prefetch
/// thread's CPU time per batch, unlike its wall time, does not grow when other threads take its
/// core: it is the core share the pipeline needs.
fn thread_cpu_time() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::try_from(now).ok()
    }
    #[cfg(not(target_os = "linux"))]
    None
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_cpu_time_grows_with_work_on_this_thread() {
        let Some(before) = thread_cpu_time() else {
            return; // the platform does not say
        };
        let mut x = 0u64;
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let after = thread_cpu_time().expect("the clock answered before");
        assert!(after > before, "{before:?} -> {after:?}");
    }
}
