//! koshogi-mcts: batched Monte-Carlo tree search for koshogi-zero.
//!
//! * [`Search`]: one resumable tree search, the algorithm-free core (descend, expand, back
//!   up); [`policy`]: Gumbel and PUCT as its root and interior policies, chosen by
//!   [`SearchConfig`].
//! * [`SearchDriver`]: advances many searches at once, sending all their pending leaves to one
//!   evaluation thread in batches, two batches in flight (ping-pong), behind an evaluation
//!   cache ([`CachedEvaluator`]).
//! * [`Evaluator`]: the batch-in, priors-and-WDL-out boundary that networks implement.
//! * [`SearchGame`]: the small game interface the search needs; implemented for tiny test
//!   games in [`toy`] and for Ko shogi (`koshogi_rules::Game`, see [`koshogi`]).
//! * [`MaterialEvaluator`] (uniform priors, material value). The network's evaluator lives
//!   with the network (`koshogi_nn::NetworkEvaluator`), so this crate needs no libtorch.
//!
//! Typical self-play use: one [`Search`] per game, all started, then
//! [`SearchDriver::run_with`] with a callback that takes each finished search's
//! [`SearchResult`] (policy target, root value, visits), plays the move with
//! [`Search::advance`] (keeping the subtree) and calls [`Search::start`] again.
//!
//! Files: `search_core/` (the search, its tree and results), `policy/` (Gumbel and PUCT, each
//! with its arithmetic), `batching/` (driver, evaluation thread, cache, evaluator boundary) and
//! `games/` (the game interface, Ko shogi, its material evaluator and threats, toy games).
//!
//! Threads: the search runs on the caller's thread; the network on one evaluation thread
//! (tch tensors are not `Sync`). On a 2-core machine give libtorch one intra-op thread on the
//! evaluation thread (`koshogi bench search` measured 2 threads ~20x slower than 1 while the
//! machine was loaded); no rayon is used here.
//!
//! Memory: a node is 44 bytes and each edge (legal move of an expanded node) 28 bytes with
//! Ko shogi's 24-byte `Move`, so an expanded Ko shogi node with k legal moves costs
//! 44 + 28k bytes (about 6.4 KB at the ~230 moves of opening positions). Trees are capped by
//! `max_nodes` / `max_edges` (default 2^18 edges = 7 MiB per tree); unexpanded children cost
//! nothing until visited.

// Four groups, private, their modules re-exported flat (`koshogi_mcts::tree`, …) so every path
// stays one segment deep: the search core, the policies, the batching driver, the games.
mod batching;
mod games;
pub mod policy;
mod search_core;

pub use batching::{cache, driver, eval_thread, evaluator};
pub use games::{game, koshogi, material, threats, toy};
pub use policy::gumbel::sequential_halving;
pub use policy::temperature;
pub use search_core::{batch, child_stats, config, result, search, tree, wdl};

pub use cache::{CachedEvaluator, EvalCache};
pub use config::{
    Algorithm, GumbelConfig, PuctConfig, SearchConfig, SearchConfigError, MAX_SIMULATIONS,
};
pub use driver::{DriverConfig, DriverStats, SearchDriver, MAX_CACHE_ENTRIES};
pub use eval_thread::EvalThread;
pub use evaluator::{EvalError, EvalRequest, Evaluation, Evaluator, UniformEvaluator};
pub use game::{SearchGame, Terminal};
pub use koshogi::KoshogiPosition;
pub use material::MaterialEvaluator;
pub use result::SearchResult;
pub use search::{Phase, Search, SearchError};
pub use wdl::Wdl;
