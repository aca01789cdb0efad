//! koshogi-arena: measuring playing strength (`koshogi arena`, `docs/arena.md`).
//!
//! Statistics (pure math):
//! * [`elo`]: score → Elo with a 95 % confidence interval and likelihood of superiority;
//! * [`sprt`]: sequential probability ratio test (fishtest-style GSPRT, trinomial/pentanomial);
//! * [`ladder`]: maximum-likelihood Bradley–Terry ratings of many players.
//!
//! Matches, for any [`ArenaGame`] (tested on a toy game, used with Ko shogi):
//! * [`game`], [`player`], [`match_runner`]: paired openings, alternating colours, many games in
//!   parallel with batched move requests, adjudication, SPRT stopping; records in the rules
//!   crate's format ([`koshogi_rules::game_record`]) and [`games_csv`] tables;
//! * [`gate`](mod@gate): should a candidate replace the incumbent; [`ladder_run`]: rate a run's players.
//!
//! Ko shogi:
//! * [`koshogi_game`] (the [`ArenaGame`] impl), [`baselines`] (random, greedy material,
//!   alpha-beta), [`network_players`] (raw policy, tree search), [`engine_player`] (any
//!   program speaking the engine protocol, as a subprocess), [`player_spec`] + [`players`]
//!   (the `random | greedy | ab:<depth> | policy:<ckpt> | mcts:<ckpt>[:sims] |
//!   engine:<command>[@limits]` syntax),
//!   [`koshogi_ladder`]
//!   (`--ladder <run>`), [`koshogi_gate`] (gating two checkpoints);
//! * [`evaluation`] + [`evaluation_report`] (`koshogi eval`: one checkpoint of a run against its
//!   first checkpoint and fixed opponents, as a table), [`move_stats`] (pass and capture rates).

pub mod baselines;
pub mod elo;
pub mod engine_player;
pub mod evaluation;
pub mod evaluation_report;
pub mod game;
pub mod games_csv;
pub mod gate;
pub mod koshogi_game;
pub mod koshogi_gate;
pub mod koshogi_ladder;
pub mod ladder;
pub mod ladder_run;
pub mod match_runner;
pub mod move_stats;
pub mod network_players;
pub mod player;
pub mod player_spec;
pub mod players;
pub mod repetition;
pub mod sprt;
#[cfg(test)]
pub(crate) mod toy;

pub use baselines::{AlphaBetaPlayer, GreedyPlayer};
pub use elo::{EloEstimate, GameScore, WinDrawLoss};
pub use game::{ArenaGame, GameEnd, Side};
pub use gate::{gate, GateResult, GateSettings};
pub use ladder::{Rating, RatingError, RatingPool};
pub use match_runner::{
    run_match, GameSummary, MatchError, MatchObserver, MatchReport, MatchSettings,
};
pub use player::{Choice, MoveRequest, Player, PlayerError, RandomPlayer};
pub use player_spec::{PlayerSpec, PlayerSpecError};
pub use sprt::{PairCounts, SprtDecision, SprtSettings, SprtStatus};
