//! The sync thread of a role of a run in object storage: it runs the role's pass (what to send
//! and fetch, [`crate::role_sync`]) every poll interval and once more at the end, retries a pass
//! that failed, and stops the process on an error no retry can fix.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::StoreError;

/// Consecutive failed passes (about this many poll intervals) before a process gives up on
/// an error of its own disk (a store that does not answer is waited for inside each request).
const MAX_FAILED_PASSES: u32 = 30;

/// Why the sync thread did not finish its work.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("starting the store sync thread")]
    Start(#[source] std::io::Error),
    #[error("the store sync thread panicked")]
    Panicked,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Errors no further pass can fix: the store refused, or did not answer for longer than the
/// process's patience.
fn is_permanent(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::Denied { .. }
            | StoreError::NoBucket { .. }
            | StoreError::BadUrl { .. }
            | StoreError::GaveUp { .. }
    )
}

/// The sync thread of a role: runs `pass` every poll interval, and once more after `finish`.
pub struct SyncThread {
    done: Arc<AtomicBool>,
    handle: Option<JoinHandle<Result<(), StoreError>>>,
}

impl SyncThread {
    /// Starts the thread. A permanent error, or `MAX_FAILED_PASSES` failures in a row, sets
    /// `stop` (the process winds down) and ends the thread with that error.
    pub fn spawn(
        name: &str,
        poll: Duration,
        stop: Arc<AtomicBool>,
        mut pass: impl FnMut(bool) -> Result<(), StoreError> + Send + 'static,
    ) -> Result<SyncThread, SyncError> {
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        let handle = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let mut failures = 0;
                loop {
                    let last = finished.load(Ordering::SeqCst);
                    match pass(last) {
                        Ok(()) => failures = 0,
                        Err(error) => {
                            failures += 1;
                            let give_up = is_permanent(&error)
                                || failures >= MAX_FAILED_PASSES
                                || (last && failures >= 5);
                            if give_up {
                                stop.store(true, Ordering::SeqCst);
                                return Err(error);
                            }
                            tracing::warn!("store: {error} (retrying, {failures} in a row)");
                            if last {
                                std::thread::sleep(Duration::from_secs(1 << failures));
                                continue;
                            }
                        }
                    }
                    if last {
                        return Ok(());
                    }
                    let wake = Instant::now() + poll;
                    while Instant::now() < wake && !finished.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            })
            .map_err(SyncError::Start)?;
        Ok(SyncThread {
            done,
            handle: Some(handle),
        })
    }

    /// Runs the last pass (what the role finished meanwhile is sent) and ends the thread.
    pub fn finish(mut self) -> Result<(), SyncError> {
        self.done.store(true, Ordering::SeqCst);
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(result)) => result.map_err(Into::into),
            Some(Err(_)) => Err(SyncError::Panicked),
            None => Ok(()),
        }
    }
}

impl Drop for SyncThread {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn the_last_pass_runs_after_finish_and_a_permanent_error_stops_the_process() {
        let passes = Arc::new(AtomicUsize::new(0));
        let lasts = Arc::new(AtomicUsize::new(0));
        let (p, l) = (passes.clone(), lasts.clone());
        let stop = Arc::new(AtomicBool::new(false));
        let thread = SyncThread::spawn(
            "test-sync",
            Duration::from_millis(10),
            stop.clone(),
            move |last| {
                p.fetch_add(1, Ordering::SeqCst);
                if last {
                    l.fetch_add(1, Ordering::SeqCst);
                }
                Ok(())
            },
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(50));
        thread.finish().unwrap();
        assert_eq!(lasts.load(Ordering::SeqCst), 1);
        assert!(passes.load(Ordering::SeqCst) >= 2);
        assert!(!stop.load(Ordering::SeqCst));

        let denied =
            SyncThread::spawn("test-sync", Duration::from_millis(10), stop.clone(), |_| {
                Err(StoreError::BadUrl {
                    url: "s3://x".into(),
                    reason: "test".into(),
                })
            })
            .unwrap();
        let error = denied.finish().unwrap_err();
        assert!(
            matches!(error, SyncError::Store(StoreError::BadUrl { .. })),
            "{error}"
        );
        assert!(stop.load(Ordering::SeqCst));
    }
}
