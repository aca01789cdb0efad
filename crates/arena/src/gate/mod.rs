//! Gating: should a new checkpoint replace the one self-play uses now?
//!
//! * `rule.rs`: the decision, for any game: a match, then pass on SPRT or score ([`gate`]);
//! * `checkpoints.rs`: gating two Ko shogi checkpoints for `koshogi run`
//!   ([`gate_checkpoints`], the run configuration's `[gate]` section [`GateConfig`]).

mod checkpoints;
mod rule;

pub use checkpoints::{gate_checkpoints, GateConfig, GateError, MAX_GATE_GAMES};
pub use rule::{gate, GateResult, GateSettings};
