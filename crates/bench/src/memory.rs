//! Memory as every benchmark prints it: one format for a byte count, one for the process's peak.

use koshogi_nn::hardware::peak_resident_bytes;

/// `bytes` in MiB with one decimal (`12.5 MiB`), or `unavailable` where the kernel did not say.
pub(crate) fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "unavailable".into(),
        |b| format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
    )
}

/// The process's peak resident memory (VmHWM), formatted by [`mib`].
pub(crate) fn peak_resident_mib() -> String {
    mib(peak_resident_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_prints_in_mib_with_one_decimal_or_says_it_is_unavailable() {
        assert_eq!(mib(Some(3 << 20)), "3.0 MiB");
        assert_eq!(mib(Some((5 << 20) + (1 << 19))), "5.5 MiB");
        assert_eq!(mib(None), "unavailable");
    }
}
