//! The classical engine (`classic`): the program a Ko shogi player would measure a network
//! against — iterative deepening under a clock or node budget, a transposition table on the
//! rules' Zobrist keys, principal-variation search, null-move pruning, killer and history
//! ordering, late-move reductions, a quiescence search with static exchange evaluation, and an
//! evaluation that knows more than the piece count.
//!
//! Why beside `greedy` and `ab:<depth>`: those are floors (one ply; a fixed-depth search with a
//! random root order and material only). A trained network that beats them may only have
//! learnt to count; one that beats this engine at equal time per move has learnt to play.
//!
//! * [`search`]: [`ClassicEngine`], the search and its limits;
//! * [`cap`]: the game's ply cap and material adjudication, for the `cap` option;
//! * [`eval`]: the static evaluation;
//! * [`ordering`]: move ordering (table move, MVV/LVA, evasions, killers, history);
//! * [`threats`]: which pieces of the side to move the opponent could capture now;
//! * [`values`]: what the engine counts each piece as (the `artillery` weight);
//! * [`exchange`]: static exchange evaluation;
//! * [`table`]: the transposition table;
//! * [`spec`]: the `classic@…` settings.
//!
//! On the rules alone (no network, no libtorch), like the other baselines: the arena plays it
//! (`classic@movetime=…`), the engine protocol serves it (`koshogi engine --classic`), and
//! self-play may use it as a fixed opponent.

pub mod cap;
pub mod eval;
pub mod exchange;
pub mod ordering;
pub mod search;
pub mod spec;
pub mod table;
pub mod threats;
pub mod values;

#[cfg(test)]
mod tests;

pub use eval::EvalTerms;
pub use search::{
    win_distance, ClassicConfig, ClassicEngine, ClassicLimits, ClassicResult, IterationInfo,
    Reductions, StopCheck,
};
pub use spec::{parse_movetime_ms, ClassicSpec, ClassicSpecError, MAX_MOVETIME_MS, MOVETIME_RANGE};

use koshogi_rules::{Game, Move};
use rand::Rng;

/// One move of a `classic` player with a fresh engine (no table carried over): for callers
/// that choose a move now and then rather than play a whole game with one engine. Under a node
/// limit the table is sized to it (a few entries per node), so a small budget does not pay for
/// clearing a large table at every move.
pub fn classic_move(game: &Game, spec: &ClassicSpec, rng: &mut impl Rng) -> Option<Move> {
    let mut config = spec.config();
    let limits = spec.limits();
    if let (Some(nodes), None) = (limits.nodes, limits.movetime) {
        let needed = usize::try_from(nodes)
            .unwrap_or(usize::MAX)
            .saturating_mul(4 * table::ENTRY_BYTES);
        config.table_bytes = config.table_bytes.min(needed.max(1 << 16));
    }
    ClassicEngine::new(config)
        .search(game, &limits, rng, &mut |_| {})
        .map(|result| result.best_move)
}
