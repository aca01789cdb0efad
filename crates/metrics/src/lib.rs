//! Metrics for koshogi-zero: TensorBoard event files ([`EventWriter`], and [`read_scalars`] to
//! read their scalars back). Rates such as games/s are computed where they are counted
//! (self-play's and the trainer's own statistics) and written through the event writer.
//!
//! The event writer is hand-written (TFRecord framing + a few protobuf messages) rather than a
//! dependency; docs/tensorboard.md says why.

pub mod error;
pub mod event_reader;
pub mod event_writer;
pub mod protobuf;
pub mod tfrecord;

pub use error::MetricsError;
pub use event_reader::{read_scalar_runs, read_scalars, ScalarPoint, ScalarSeries};
pub use event_writer::EventWriter;
