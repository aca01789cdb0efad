//! The binary's second process-wide setting: freed tensor memory stays in the heap for reuse.
//!
//! Why: glibc serves every allocation above its mmap threshold (128 KiB at first) with a fresh
//! `mmap` and returns it on `free`. A forward pass allocates and frees dozens of activation
//! tensors of 0.1–4 MiB, so every batch faulted its pages in again (and had the kernel zero
//! them): measured on the 2-core Xeon, `koshogi bench nn --models 4x48 --batches 32` took
//! 494,390 page faults with glibc's defaults and 52,266 with these settings (`perf stat -e
//! page-faults`). Raising the mmap threshold to glibc's largest and the trim threshold above it
//! keeps those blocks in the heap, where the next batch takes them again; the cost is at most
//! the trim threshold of idle memory per heap. Only `main` decides it, first thing.

/// Largest mmap threshold glibc accepts on 64-bit (`DEFAULT_MMAP_THRESHOLD_MAX`): blocks up to
/// this size come from the heap.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 32 << 20;
/// Free memory at the top of a heap is returned to the system only above this.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: libc::c_int = 256 << 20;

/// Sets the allocator to keep freed blocks for reuse (glibc on Linux; elsewhere nothing).
/// Returns whether the settings were taken.
pub fn keep_freed_memory_for_reuse() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only changes allocator parameters; it is called before any thread
        // starts, and glibc validates the values (returning 0 for ones it refuses).
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glibc_takes_the_settings() {
        let taken = keep_freed_memory_for_reuse();
        assert_eq!(taken, cfg!(all(target_os = "linux", target_env = "gnu")));
        // Large blocks still allocate, free and reallocate normally.
        for _ in 0..3 {
            let block = vec![1u8; 8 << 20];
            assert_eq!(block.iter().map(|&b| b as usize).sum::<usize>(), 8 << 20);
        }
    }
}
