//! Metrics for koshogi-zero: TensorBoard event files ([`EventWriter`], and [`read_scalars`] to
//! read their scalars back) and run statistics ([`RunStats`]: rates such as games/s and
//! positions/s, running means).
//!
//! The event writer is hand-written (TFRecord framing + a few protobuf messages) rather than a
//! dependency; docs/tensorboard.md says why.

pub mod error;
pub mod event_reader;
pub mod event_writer;
pub mod protobuf;
pub mod run_stats;
pub mod tfrecord;

pub use error::MetricsError;
pub use event_reader::{read_scalar_runs, read_scalars, ScalarPoint, ScalarSeries};
pub use event_writer::EventWriter;
pub use run_stats::{RateMeter, RunStats, RunningMean};
