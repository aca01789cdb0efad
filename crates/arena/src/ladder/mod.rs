//! The ladder: rating every checkpoint of a training run together (`koshogi arena --ladder
//! <run>`), with fixed baselines as known levels, in `<run>/arena/` (`games.csv`, `ladder.csv`).
//!
//! * `pairings.rs`: for any game and any named players: which pairs play, playing the games
//!   still missing from `games.csv`, and rating all of them ([`play_missing_games`],
//!   [`rate_games`]);
//! * `checkpoints.rs`: the players of a Ko shogi run — its checkpoints, the random-initialised
//!   anchor and the baselines — and the whole ladder ([`run_ladder`]).
//!
//! The ratings themselves are [`crate::statistics`]' Bradley–Terry fit; both tables' formats
//! belong to the run store ([`koshogi_run_store::games_csv`], [`koshogi_run_store::ladder_csv`]).

mod checkpoints;
mod pairings;

pub use checkpoints::{
    parse_baselines, run_ladder, BaselinesError, LadderPlayerKind, RunLadderResult,
    RunLadderSettings, DEFAULT_BASELINES, RANDOM_INIT_NAME,
};
pub use pairings::{
    games_between, ladder_pairs, ladder_rows, play_missing_games, rate_games, LadderError,
    LadderPaths, PlayerFactory,
};
