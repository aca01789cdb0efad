//! Options that matter only to a protocol client: MultiPV and the time-management overhead.
//!
//! Kept apart from [`crate::EngineSettings`] because in-process users (the viewer, `koshogi
//! play`) build those settings field by field and never print analysis lines or play on a
//! clock.

use std::time::Duration;

use crate::info::MAX_MULTIPV;
use crate::time_control::DEFAULT_OVERHEAD;

/// The longest overhead `setoption name overhead` accepts (ms): more is a misconfiguration.
pub const MAX_OVERHEAD_MS: u32 = 60_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProtocolOptions {
    /// `info` lines per report: 1 = the played line only, K > 1 = the K most visited root
    /// moves (at most [`MAX_MULTIPV`]).
    pub multipv: u32,
    /// What one move costs outside its search under a clock, reserved for every move to come
    /// (see [`crate::time_control`]).
    pub overhead: Duration,
}

impl Default for ProtocolOptions {
    fn default() -> Self {
        ProtocolOptions {
            multipv: 1,
            overhead: DEFAULT_OVERHEAD,
        }
    }
}

impl ProtocolOptions {
    /// These options with MultiPV and the overhead clamped to their ranges.
    pub fn clamped(self) -> ProtocolOptions {
        ProtocolOptions {
            multipv: self.multipv.clamp(1, MAX_MULTIPV),
            overhead: self
                .overhead
                .min(Duration::from_millis(MAX_OVERHEAD_MS as u64)),
        }
    }
}
