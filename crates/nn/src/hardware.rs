//! What the processor can do, read once from `/proc/cpuinfo`: bfloat16 inference is only worth
//! it where oneDNN has native bf16 instructions (about 3–4× faster than float32 there, much
//! slower than float32 where it has to emulate them).

use std::sync::OnceLock;

/// True when the CPU advertises AVX512-BF16 or AMX-BF16.
pub fn cpu_has_native_bf16() -> bool {
    static CACHED: OnceLock<bool> = OnceLock::new();
    *CACHED.get_or_init(|| {
        std::fs::read_to_string("/proc/cpuinfo")
            .map(|text| cpuinfo_has_native_bf16(&text))
            .unwrap_or(false)
    })
}

/// The flag test on the text of `/proc/cpuinfo` (separate so that it can be tested).
pub fn cpuinfo_has_native_bf16(cpuinfo: &str) -> bool {
    cpuinfo
        .lines()
        .filter(|line| line.starts_with("flags"))
        .flat_map(|line| line.split_whitespace())
        .any(|flag| flag == "avx512_bf16" || flag == "amx_bf16")
}

/// Environment variable of the OpenMP runtime libtorch uses (GNU libgomp) for how idle worker
/// threads wait.
pub const OMP_WAIT_POLICY: &str = "OMP_WAIT_POLICY";

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

/// Peak resident memory of this process (VmHWM) in bytes, if the kernel reports it.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_bf16_flags() {
        assert!(cpuinfo_has_native_bf16(
            "processor : 0\nflags : fpu avx512f avx512_bf16 amx_tile\n"
        ));
        assert!(cpuinfo_has_native_bf16("flags\t\t: sse2 amx_bf16\n"));
        assert!(!cpuinfo_has_native_bf16(
            "flags : fpu avx2 avx512f avx512_vnni\n"
        ));
        assert!(!cpuinfo_has_native_bf16(
            "model name : avx512_bf16 in the name only\n"
        ));
    }

    #[test]
    fn no_restart_when_the_wait_policy_is_already_chosen() {
        // The test harness sets nothing; choose a policy first so the call must return.
        std::env::set_var(OMP_WAIT_POLICY, "PASSIVE");
        assert!(reexec_with_passive_openmp_wait().is_ok());
    }

    #[test]
    fn peak_memory_is_reported_on_linux() {
        let bytes = peak_resident_bytes().expect("VmHWM readable");
        assert!(
            bytes > 1024 * 1024,
            "a test process uses more than 1 MiB: {bytes}"
        );
    }
}
