//! The training targets read from shard rows beyond the stored ones: the value target's mix
//! ([`value`]) and the short-term material targets ([`material_outlook`]).
//!
//! Why one home, here: the trainer's sampler (koshogi-train), the exported training arrays
//! (koshogi-export) and `koshogi diagnose` all turn the same shard rows into the same targets;
//! they share this module instead of importing the trainer for its arithmetic. Material itself
//! (piece values, balances, `tanh(balance / 10)`) lives in `koshogi_rules::material`.

pub mod material_outlook;
pub mod value;

pub use material_outlook::{
    material_ahead, material_outlook, material_targets, material_targets_with, mover_balances,
    CappedValue, MaterialTargets,
};
pub use value::value_target;
