//! The measurements behind `koshogi bench`, one module each, on the libraries' public API:
//!
//! * [`nn`]: network inference and training-step speed per model size and precision;
//! * [`search`]: the batched search driver against raw batched forward passes;
//! * [`train`]: the trainer fed by the sampler and shards against raw steps, float32 and bfloat16;
//! * [`arena`]: match speed per kind of player, and alpha-beta time per move;
//! * [`classic`]: the classical engine's depth and nodes/s per move time.
//!
//! Each takes a plain options struct (the command line converts its flags into it) and either
//! returns a report that prints itself ([`TrainBenchReport`]) or, where the measurement takes
//! long and is worth watching, writes its lines to a writer as it goes. Every report gives the
//! process's peak memory. Kept out of the binary so that the command line only parses
//! arguments, and so that the measurements can be called (and tested) as functions.

pub mod arena;
pub mod classic;
mod error;
mod memory;
pub mod nn;
mod positions;
pub mod search;
pub mod train;

pub use arena::ArenaBenchOptions;
pub use classic::ClassicBenchOptions;
pub use error::BenchError;
pub use nn::NnBenchOptions;
pub use search::SearchBenchOptions;
pub use train::{PrecisionReport, TrainBenchOptions, TrainBenchReport};
