//! Peak memory as the search and network benchmarks print it.

use koshogi_nn::hardware::peak_resident_bytes;

/// The process's peak resident memory (VmHWM) in whole MiB, `?` where the kernel does not say.
pub(crate) fn peak_resident_mib() -> String {
    peak_resident_bytes().map_or_else(
        || "?".into(),
        |b| format!("{:.0} MiB", b as f64 / (1024.0 * 1024.0)),
    )
}
