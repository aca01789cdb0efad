//! What the processor can do, read once from `/proc/cpuinfo`: bfloat16 is only worth it where
//! oneDNN runs it on AMX tiles (about 3–4× faster than float32 there). With AVX512-BF16 alone
//! it is slower than float32 (a 2-core Xeon without AMX, 4×48 network, one thread: inference at
//! batch 32 466 against 647 positions/s, a training step 0.67–0.89× of float32's), and emulated
//! much slower still. Also the process's peak memory, which the benchmarks report. (The restart
//! with a passive OpenMP wait policy changes the whole process, so it belongs to the binary:
//! `crates/koshogi/src/openmp_wait.rs`.)

use std::sync::OnceLock;

/// True when the CPU advertises AMX-BF16, where bfloat16 is the fast precision.
pub fn cpu_has_amx_bf16() -> bool {
    static CACHED: OnceLock<bool> = OnceLock::new();
    *CACHED.get_or_init(|| {
        std::fs::read_to_string("/proc/cpuinfo")
            .map(|text| cpuinfo_has_amx_bf16(&text))
            .unwrap_or(false)
    })
}

/// The flag test on the text of `/proc/cpuinfo` (separate so that it can be tested).
pub fn cpuinfo_has_amx_bf16(cpuinfo: &str) -> bool {
    cpuinfo
        .lines()
        .filter(|line| line.starts_with("flags"))
        .flat_map(|line| line.split_whitespace())
        .any(|flag| flag == "amx_bf16")
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
    fn detects_amx_bf16_and_only_it() {
        assert!(cpuinfo_has_amx_bf16(
            "processor : 0\nflags : fpu avx512f avx512_bf16 amx_bf16 amx_tile\n"
        ));
        assert!(cpuinfo_has_amx_bf16("flags\t\t: sse2 amx_bf16\n"));
        // AVX512-BF16 without AMX: bfloat16 is slower than float32 there.
        assert!(!cpuinfo_has_amx_bf16(
            "flags : fpu avx512f avx512_bf16 avx512_vnni\n"
        ));
        assert!(!cpuinfo_has_amx_bf16(
            "flags : fpu avx2 avx512f avx512_vnni\n"
        ));
        assert!(!cpuinfo_has_amx_bf16(
            "model name : avx512_bf16 in the name only\n"
        ));
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
