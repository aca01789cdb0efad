//! Material: what the pieces are worth, how the two sides' pieces balance, and the value a
//! balance stands for. One home for a concept that the search (its material evaluator, threat
//! detection, the network's material head), the training targets (koshogi-replay's `targets`),
//! the baselines (greedy, `ab:N`, `classic`) and the shard records all use.
//!
//! * [`piece_values`]: the two piece-value scales (search and baselines) and why they are two.
//! * [`search_balance`], [`baseline_balance`], [`piece_count_balance`]: one side's material
//!   minus the other's, on each scale (and as a bare count of pieces, the shards' stored
//!   `final_material`).
//! * [`material_value`] and [`MATERIAL_TEMPERATURE`]: a search-scale balance squashed to a value
//!   in [-1, 1], as the search's material bootstrap, the network's material head and the
//!   training targets read it.

mod balance;
pub mod piece_values;
mod value;

pub use balance::{baseline_balance, piece_count_balance, search_balance};
pub use piece_values::{baseline_piece_value, search_piece_value};
pub use value::{material_value, MATERIAL_TEMPERATURE};
