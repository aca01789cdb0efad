//! The ladder: rating every checkpoint of a training run together (`koshogi arena --ladder
//! <run>`), with fixed baselines as known levels, in `<run>/arena/` (`games.csv`, `ladder.csv`, `elo.svg`).
//!
//! * `pairings.rs`: for any game and any named players: which pairs play, playing the games
//!   still missing from `games.csv`, and rating all of them ([`play_missing_games`],
//!   [`rate_games`]);
//! * `run_ladder.rs`: the players of a Ko shogi run — its checkpoints, the random-initialised
//!   anchor and the baselines — and the whole ladder ([`run_ladder`]);
//! * `summary.rs`: the finished ladder as the table `koshogi arena --ladder` prints
//!   ([`RunLadderResult::summary`]);
//! * `picture.rs`: the picture of progress, `<run>/arena/elo.svg` ([`progress_svg`]): Elo
//!   against training hours (`training_hours.rs`: from the checkpoints' save times) and steps,
//!   the baselines as labelled levels.
//!
//! The ratings themselves are [`crate::statistics`]' Bradley–Terry fit; both tables' formats
//! belong to the run store ([`koshogi_run_store::games_csv`], [`koshogi_run_store::ladder_csv`]).

mod pairings;
mod picture;
mod run_ladder;
mod summary;
mod training_hours;

pub use pairings::{
    games_between, ladder_pairs, ladder_rows, play_missing_games, rate_games, LadderError,
    LadderPaths, PlayerFactory,
};
pub use picture::{progress_svg, write_progress_svg, PictureError, ProgressPicture, CURVE_STROKE};
pub use run_ladder::{
    parse_baselines, run_ladder, BaselinesError, LadderPlayerKind, RunLadderResult,
    RunLadderSettings, DEFAULT_BASELINES, RANDOM_INIT_NAME,
};
pub use training_hours::{training_hours, SavedCheckpoint, TrainingHours};
