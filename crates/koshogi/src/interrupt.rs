//! The stop flag of the long-running commands. Ctrl-C / SIGTERM: the first signal asks the work
//! to stop cleanly (in-flight writes finish), the second exits at once. A time limit (`koshogi
//! run --minutes`) sets the same flag, as Ctrl-C would.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};

/// Installs the handler; `what` says what a clean stop waits for ("the current games", …).
pub fn stop_flag_on_interrupt(what: &'static str) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let installed = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("interrupted twice: exiting now");
            // `_exit`, not `exit`: running libtorch's exit handlers while worker threads still
            // use it crashes; the user asked to leave at once, and finished files are all
            // written atomically, so skipping the handlers loses only the work in flight.
            // SAFETY: `_exit` takes no pointers and never returns.
            unsafe { libc::_exit(130) }
        }
        eprintln!("stopping after {what} (Ctrl-C again to exit at once)");
    });
    if let Err(error) = installed {
        tracing::warn!("cannot catch Ctrl-C ({error}); interrupting will lose work in flight");
    }
    stop
}

/// Sets `stop` once `seconds` have passed (at once when they are 0 or less), or returns as soon
/// as something else set it. The callers bound `seconds` (`koshogi run`'s `MAX_HOURS`).
pub fn stop_after(seconds: f64, stop: Arc<AtomicBool>) -> Result<()> {
    let limit = std::time::Duration::try_from_secs_f64(seconds.max(0.0))
        .context("the time limit is not a duration")?;
    let minutes = seconds / 60.0;
    if limit.is_zero() {
        // Nothing left: stop before the caller starts, not whenever a thread gets to run (a
        // busy machine could fit a training step in between).
        tracing::info!("time limit of {minutes:.1} minutes already reached: stopping");
        stop.store(true, Ordering::SeqCst);
        return Ok(());
    }
    let deadline = std::time::Instant::now() + limit;
    std::thread::Builder::new()
        .name("time-limit".into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let now = std::time::Instant::now();
                if now >= deadline {
                    tracing::info!("time limit of {minutes:.1} minutes reached: stopping");
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep((deadline - now).min(std::time::Duration::from_millis(200)));
            }
        })
        .context("starting the time-limit thread")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_already_reached_stops_before_the_call_returns() {
        for seconds in [0.0, -5.0] {
            let stop = Arc::new(AtomicBool::new(false));
            stop_after(seconds, stop.clone()).unwrap();
            assert!(stop.load(Ordering::SeqCst), "{seconds} s");
        }
        let stop = Arc::new(AtomicBool::new(false));
        stop_after(60.0, stop.clone()).unwrap();
        assert!(!stop.load(Ordering::SeqCst), "a minute is not up yet");
        stop.store(true, Ordering::SeqCst); // ends the waiting thread
    }
}
