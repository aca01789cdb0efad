//! One of the binary's two process-wide settings (the other: `memory_reuse`): restart once
//! with `OMP_WAIT_POLICY=PASSIVE`.
//!
//! It changes how the whole process waits (every libtorch parallel region of every command), so
//! only `main` decides it, first thing; the libraries never restart or reconfigure the process.

use koshogi_nn::threads::OMP_WAIT_POLICY;

/// Restarts the current process with `OMP_WAIT_POLICY=PASSIVE` unless the variable is already
/// set (then `Ok(())`); on success it does not return, `Err` means the restart failed.
///
/// Why: by default libgomp's idle threads spin. On a 2-core machine shared with a search thread
/// or other processes, the spinning thread and the thread it waits for fight over the cores and
/// every parallel region waits for a scheduler time slice: measured here under load, a 6×64
/// bfloat16 forward at batch 64 on 2 threads ran at 100–200 positions/s with the default policy
/// and ~1,400 with `PASSIVE`. libgomp reads the variable once, when it is loaded (before
/// `main`), hence the restart; call this first thing in `main`, before any other work.
#[cfg(unix)]
pub fn reexec_with_passive_openmp_wait() -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(OMP_WAIT_POLICY).is_some() {
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    Err(std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(OMP_WAIT_POLICY, "PASSIVE")
        .exec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_restart_when_the_wait_policy_is_already_chosen() {
        // The test harness sets nothing; choose a policy first so the call must return.
        std::env::set_var(OMP_WAIT_POLICY, "PASSIVE");
        assert!(reexec_with_passive_openmp_wait().is_ok());
    }
}
