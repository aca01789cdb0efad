//! Gating: should a new checkpoint replace the one self-play uses now?
//!
//! * `rule.rs`: the decision, for any game: a match, then pass on SPRT or score ([`gate`]);
//! * `checkpoint_match.rs`: gating two Ko shogi checkpoints for `koshogi run`
//!   ([`gate_checkpoints`], the run configuration's `[gate]` section [`GateConfig`]);
//! * `gatekeeper.rs`: the loop over a run's `checkpoints/` that gates each new one and records
//!   the winner in `accepted.json` ([`Gatekeeper`]; [`spawn_gatekeeper`] for its thread in
//!   `koshogi run`, `koshogi gate` drives it as a process of its own).

mod checkpoint_match;
mod gatekeeper;
mod rule;

pub use checkpoint_match::{gate_checkpoints, GateConfig, GateError, MAX_GATE_GAMES};
pub use gatekeeper::{spawn_gatekeeper, Gatekeeper, GatekeeperError};
pub use rule::{gate, GateResult, GateSettings};
