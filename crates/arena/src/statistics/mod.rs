//! Statistics: pure math on game results, no games and no players.
//!
//! * `elo.rs`: a match score → Elo difference with a 95 % confidence interval and the likelihood
//!   of superiority ([`EloEstimate`]);
//! * `sprt.rs`: the sequential probability ratio test that stops a match once the games decide
//!   (fishtest-style GSPRT, trinomial and pentanomial; [`SprtSettings`]);
//! * `mean.rs`: the mean of a per-game measurement with a 95 % interval ([`MeanEstimate`]);
//! * `ratings.rs`: maximum-likelihood Bradley–Terry ratings of many players from all their games
//!   ([`RatingPool`]), what the ladder reports.

mod elo;
mod mean;
mod ratings;
mod sprt;

pub use elo::{
    elo_from_score, erfc, format_elo, normal_cdf, score_from_elo, wilson_interval, EloEstimate,
    GameScore, WinDrawLoss, Z_95,
};
pub use mean::MeanEstimate;
pub use ratings::{Rating, RatingError, RatingPool};
pub use sprt::{
    PairCounts, SprtDecision, SprtError, SprtSettings, SprtStatus, MIN_SAMPLES_BEFORE_DECISION,
};
