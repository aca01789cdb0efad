//! Gating: should a new checkpoint replace the one self-play uses now?
//!
//! * `rule.rs`: the decision, for any game: a match, then pass on SPRT or score ([`gate`]);
//! * `checkpoint_match.rs`: gating two Ko shogi checkpoints for `koshogi run`
//!   ([`gate_checkpoints`], the run configuration's `[gate]` section [`GateConfig`]).

mod checkpoint_match;
mod rule;

pub use checkpoint_match::{gate_checkpoints, GateConfig, GateError, MAX_GATE_GAMES};
pub use rule::{gate, GateResult, GateSettings};
