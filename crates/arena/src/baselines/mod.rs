//! Built-in opponents that need no network: a floor (random) and a first rung (greedy material).

pub mod greedy;
pub mod piece_values;

pub use greedy::GreedyPlayer;
pub use piece_values::{material_balance, piece_value};
