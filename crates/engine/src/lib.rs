//! koshogi-engine: the `koshogi engine` line protocol (docs/engine-protocol.md) as a library.
//!
//! The protocol is a state machine fed one input line at a time ([`Engine::handle_line`]); every
//! reply goes to an [`Output`], which is stdout in the binary and a shared buffer in tests, so
//! whole sessions are tested without processes. A `go` runs its search on a worker thread (so
//! `stop` and `ponderhit` can arrive while it thinks) against an evaluation thread that owns the
//! evaluator: the network of a checkpoint, or the material evaluator when no model is set.
//!
//! * [`command`]: parsing a line into a [`Command`] (pure; every bad line is an error value);
//!   [`go_limits`]: the arguments of `go` (nodes, movetime, clock, infinite, ponder).
//! * [`engine`]: the state machine; [`protocol_options`]: MultiPV and the time overhead.
//! * [`time_control`]: the per-move time budget from the clock.
//! * [`search_job`]: one `go` — a batched PUCT search with visit/time limits and `stop`;
//!   [`classic_job`]: one `go` of the classical engine instead (`--classic`);
//!   [`search_control`]: `stop`/`ponderhit`/deadline shared with it; [`info`]: its `info` lines.
//! * [`in_process`]: the engine as an in-process opponent (`koshogi play`), its replies read back;
//!   [`terminal_game`]: the game against it on a text terminal that `koshogi play` runs;
//! * [`output`]: the line sink shared by the engine and its search thread;
//!   [`line_reader`]: input lines with a length bound (also used by the arena to read engines).
//! * [`resolve_card`] (from koshogi-nn): a checkpoint given as a model card or as its directory.

pub mod classic_job;
pub mod command;
pub mod engine;
pub mod go_limits;
pub mod in_process;
pub mod info;
pub mod line_reader;
pub mod output;
pub mod protocol_options;
pub mod search_control;
pub mod search_job;
pub mod terminal_game;
pub mod time_control;

pub use command::{parse_command, Command, Dialect, GoClock, GoLimits, PositionSpec};
pub use engine::{Engine, EngineSettings, Flow};
pub use in_process::{EngineMove, EngineMoveError, InProcessEngine};
pub use koshogi_nn::checkpoint::{resolve_card, CheckpointPathError};
pub use output::{CapturedLines, Output};
pub use protocol_options::ProtocolOptions;
pub use time_control::{move_budget, SideClock};
