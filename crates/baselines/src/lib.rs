//! koshogi-baselines: the classical Ko shogi players, which need no network — greedy material
//! ([`greedy`]) and alpha-beta over material with captures searched past the horizon
//! ([`alphabeta`]), both scored by the rules crate's baseline material balance
//! ([`koshogi_rules::material::baseline_balance`]) — and the names that select them
//! (`random | greedy | ab:<depth> | classic[@…]`, [`BaselineSpec`]).
//!
//! Why a crate of its own: two crates play these players. The arena rates networks against
//! them (`koshogi arena`, the ladder's anchors, `koshogi eval`) and self-play lets one of them
//! take a side of some games (`selfplay.fixed_opponent`). Self-play needs the move choice and
//! the names, not the arena's matches, network players and libtorch; so the players and their
//! one parser live here, on the rules alone, and the arena wraps them as match players
//! (`koshogi_arena::GreedyPlayer`, `AlphaBetaPlayer`; `random` is the arena's own
//! game-independent `RandomPlayer`).
//!
//! * [`spec`]: [`BaselineSpec`], the names and their parser;
//! * [`greedy`]: one ply, the largest immediate material gain ([`greedy_move`]);
//! * [`alphabeta`]: fixed-depth negamax with quiescence and a move budget ([`alphabeta_move`]);
//! * [`classic`]: the classical engine (iterative deepening, transposition table, positional
//!   evaluation; [`ClassicSpec`] its settings);
//! * [`game_end`]: game end as the searches see it (one reading of the rule options).
//!
//! Piece values and the balance are not here: material has one home, `koshogi_rules::material`
//! (the baseline scale, [`koshogi_rules::material::baseline_piece_value`], and why it is not the
//! search's).

pub mod alphabeta;
pub mod classic;
pub mod game_end;
pub mod greedy;
pub mod spec;
#[cfg(test)]
pub(crate) mod test_positions;

pub use alphabeta::{alphabeta_move, SearchLimits, MAX_DEPTH};
pub use classic::{classic_move, ClassicEngine, ClassicSpec, ClassicSpecError};
pub use greedy::greedy_move;
pub use spec::{parse_depth, BaselineSpec, BaselineSpecError};
