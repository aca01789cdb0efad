//! Playing a match between two players, for any game: the interface a game offers the arena, the
//! interface a player offers, and the runner between them. Tested on a toy game whose odds are
//! known by construction (`toy.rs`, test builds only), used with Ko shogi.
//!
//! * `ending.rs`: [`Ending`], the kind of a game's end (command destroyed, material at the cap,
//!   …), and [`EndingCounts`], a row's breakdown of them;
//! * `finished_games.rs`: the finished games of a match with an output directory
//!   (`match.json`, `games.jsonl`), from which the same match started again resumes;
//! * `game.rs`: [`ArenaGame`], what the arena needs from a game ([`Side`], [`GameEnd`]);
//! * `koshogi_game.rs`: Ko shogi as an [`ArenaGame`] ([`new_game`]), records in the rules
//!   crate's format;
//! * `player.rs`: [`Player`], anything that picks moves for a batch of games ([`MoveRequest`],
//!   [`Choice`]), and [`RandomPlayer`];
//! * `runner.rs`: [`run_match`]: paired openings, alternating colours, many games at once,
//!   adjudication, SPRT stopping, records and `games.csv`.

mod ending;
mod finished_games;
mod game;
mod koshogi_game;
mod player;
mod runner;
#[cfg(test)]
pub(crate) mod toy;

pub use ending::{Ending, EndingCounts};
pub use finished_games::{
    load_or_start as load_finished_games, save as save_finished_games, FinishedGamesError,
    MatchIdentity, FINISHED_GAMES_FILE, MATCH_FILE,
};
pub use game::{ArenaGame, GameEnd, Side};
pub use koshogi_game::{new_game, side_of};
pub use player::{derive_seed, Choice, MoveRequest, Player, PlayerError, RandomPlayer, Renamed};
pub use runner::{run_match, GameSummary, MatchError, MatchObserver, MatchReport, MatchSettings};
