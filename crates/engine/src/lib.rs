//! koshogi-engine: the `koshogi engine` line protocol (docs/engine-protocol.md) as a library.
//!
//! The protocol is a state machine fed one input line at a time ([`Engine::handle_line`]); every
//! reply goes to an [`Output`], which is stdout in the binary and a shared buffer in tests, so
//! whole sessions are tested without processes. A `go` runs its search on a worker thread (so
//! `stop` can arrive while it thinks) against an evaluation thread that owns the evaluator: the
//! network of a checkpoint, or the material evaluator when no model is set.
//!
//! * [`command`]: parsing a line into a [`Command`] (pure; every bad line is an error value).
//! * [`engine`]: the state machine.
//! * [`search_job`]: one `go` — a batched PUCT search with visit/time limits and `stop`.
//! * [`output`]: the line sink shared by the engine and its search thread.
//! * [`resolve_card`] (from koshogi-nn): a checkpoint given as a model card or as its directory.

pub mod command;
pub mod engine;
pub mod output;
pub mod search_job;

pub use command::{parse_command, Command, GoLimits, PositionSpec};
pub use engine::{Engine, EngineSettings, Flow};
pub use koshogi_nn::checkpoint::{resolve_card, CheckpointPathError};
pub use output::{CapturedLines, Output};
