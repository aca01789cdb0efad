//! Metrics for koshogi-zero: TensorBoard event files ([`EventWriter`]) and run statistics
//! ([`RunStats`]: rates such as games/s and positions/s, running means).
//!
//! The event writer is hand-written (TFRecord framing + a few protobuf messages) rather than a
//! dependency; docs/tensorboard.md says why.

pub mod error;
pub mod event_writer;
pub mod protobuf;
pub mod run_stats;
pub mod tfrecord;

pub use error::MetricsError;
pub use event_writer::EventWriter;
pub use run_stats::{RateMeter, RunStats, RunningMean};
