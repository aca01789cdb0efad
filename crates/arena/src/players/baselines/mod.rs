//! Built-in opponents that need no network: a floor (random), a first rung (greedy material) and
//! classical search (alpha-beta over material).

pub mod alphabeta;
pub mod greedy;
pub mod material;
#[cfg(test)]
pub(crate) mod test_positions;

pub use alphabeta::AlphaBetaPlayer;
pub use greedy::GreedyPlayer;
pub use material::material_balance;
