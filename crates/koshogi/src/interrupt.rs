//! Ctrl-C / SIGTERM handling shared by the long-running commands: the first signal asks the
//! work to stop cleanly (in-flight writes finish), the second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
