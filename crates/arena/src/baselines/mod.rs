//! Built-in opponents that need no network: a floor (random), a first rung (greedy material) and
//! classical search (alpha-beta over material).

pub mod alphabeta;
pub mod greedy;
pub mod piece_values;
#[cfg(test)]
pub(crate) mod test_positions;

pub use alphabeta::AlphaBetaPlayer;
pub use greedy::GreedyPlayer;
pub use piece_values::{material_balance, piece_value};
