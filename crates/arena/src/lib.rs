//! koshogi-arena: measuring playing strength (`koshogi arena`, `koshogi eval`, the gate of
//! `koshogi run`; `docs/arena.md`).
//!
//! One folder per concept, each `mod.rs` saying which file holds what:
//! * [`statistics`]: pure math on results: Elo with a 95 % interval, the SPRT, Bradley–Terry
//!   ratings of many players;
//! * [`matches`]: playing a match between two players of any game (paired openings,
//!   alternating colours, batched move requests, adjudication, SPRT stopping, records and
//!   `games.csv`), and Ko shogi as such a game;
//! * [`players`]: Ko shogi players — the classical baselines of koshogi-baselines as match
//!   players, network players, other engines as subprocesses — and the `random | greedy |
//!   ab:<depth> | … | engine:<command>` syntax that names them, and a match between two of them
//!   by name;
//! * [`gate`](mod@gate): should a candidate checkpoint replace the incumbent, and the gatekeeper
//!   that asks it of each new checkpoint of a run;
//! * [`ladder`]: rating all checkpoints of a training run together, with fixed baselines;
//! * [`evaluation`]: `koshogi eval`, one checkpoint against fixed opponents, as a table.
//! * `damaged_bytes.rs` (tests only): file bytes damaged at random, for the readers of resume files.
//!
//! The types most callers need are re-exported here; the rest is reached through its folder
//! (`koshogi_arena::ladder::run_ladder`, `koshogi_arena::players::MctsPlayer`). The classical
//! players' move choice (`greedy_move`, `alphabeta_move`) is koshogi-baselines', not re-exported.
//! The files the arena writes have their formats in the run store
//! ([`koshogi_run_store::games_csv`], [`koshogi_run_store::ladder_csv`]); game records are the
//! rules crate's ([`koshogi_rules::game_record`]).

#[cfg(test)]
mod damaged_bytes;
pub mod evaluation;
pub mod gate;
pub mod ladder;
pub mod matches;
pub mod players;
pub mod statistics;

// Playing matches.
pub use matches::{
    run_match, ArenaGame, Choice, Ending, EndingCounts, GameEnd, GameSummary, MatchError,
    MatchObserver, MatchReport, MatchSettings, MoveRequest, Player, PlayerError, RandomPlayer,
    Side,
};
// Naming and building players.
pub use players::{
    AlphaBetaPlayer, BaselineSpec, ClassicPlayer, GreedyPlayer, PlayerSpec, PlayerSpecError,
};
// Deciding and rating.
pub use gate::{gate, GateResult, GateSettings};
pub use statistics::{
    EloEstimate, GameScore, PairCounts, Rating, RatingError, RatingPool, SprtDecision,
    SprtSettings, SprtStatus, WinDrawLoss,
};
