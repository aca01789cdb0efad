//! A run's resignations read back from its shards: how many were checked and how many false,
//! and what `selfplay.resign.max_false_rate` would have made of them.
//!
//! Why: a calibration measured only by a new training run costs an hour of machine time, but
//! the shards already hold what it needs. Every position keeps its root search value, the value
//! the resignation rule reads, so the audit replays after the fact with the same tracker
//! ([`crate::resign::ResignTracker`]) and the same calibration
//! ([`crate::resign_calibration::ResignCalibration`]) the pool runs. For a run with a fixed
//! threshold the replay is exact: the games with a side deeper than the threshold that were not
//! resigned are the audit games, and each resignation shows the values that made it. For a run
//! that calibrated, the games it played out below its moving threshold count as audits too
//! (their values are as real, but the window they fill is not the one the run had).
//! `koshogi diagnose` prints the review.

use std::path::{Path, PathBuf};

use koshogi_replay::{side_to_move, EndReason, Shard};
use koshogi_rules::Color;

use crate::config::ResignConfig;
use crate::resign::ResignTracker;
use crate::resign_calibration::ResignCalibration;
use crate::SelfplayError;

/// What the review found, over all the shards in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResignReview {
    pub games: u64,
    pub resignations: u64,
    /// Games played out in which a side would have resigned at the configured threshold ...
    pub audited_games: u64,
    /// ... and in which that side then did not lose (the pool's `false resign` count).
    pub false_resignations: u64,
    /// The calibrated threshold after each audit game, in the order the games were written.
    pub thresholds: Vec<f32>,
    /// Resignations that the calibrated threshold in force at the time would still have made
    /// (the others would have played on, to an end the shards cannot tell).
    pub kept_resignations: u64,
}

/// One game's positions as the resignation rule sees them.
struct GameValues {
    resigned: bool,
    winner: Option<Color>,
    /// (ply, mover, root search value) in order of play.
    moves: Vec<(u32, Color, f32)>,
}

/// Reviews the games of `shards` (in creation order, as `list_shards` gives them) under the
/// run's `config` and a calibration to `max_false_rate`.
pub fn review_resignations(
    shards: &[PathBuf],
    config: &ResignConfig,
    max_false_rate: f32,
) -> Result<ResignReview, SelfplayError> {
    if !(0.0..=1.0).contains(&max_false_rate) {
        return Err(SelfplayError::Config(
            "the false-resignation rate must lie in [0, 1]".into(),
        ));
    }
    // The run may have played with resignation off: review it as if it had been on.
    let rule = ResignConfig {
        enabled: true,
        ..config.clone()
    };
    let calibration = ResignCalibration::new(&ResignConfig {
        max_false_rate: Some(max_false_rate),
        ..rule.clone()
    });
    let mut review = ResignReview::default();
    for path in shards {
        for game in games_of(path)? {
            review_game(&game, &rule, &calibration, &mut review);
        }
    }
    Ok(review)
}

fn review_game(
    game: &GameValues,
    rule: &ResignConfig,
    calibration: &ResignCalibration,
    review: &mut ResignReview,
) {
    review.games += 1;
    if game.resigned {
        review.resignations += 1;
        // The resigner resigned at its last position; at a threshold at or above the run's it
        // cannot have resigned earlier, so it still resigns exactly if it does so there.
        let threshold = calibration.threshold();
        let mut live = ResignTracker::new(rule, false);
        let last = game.moves.len().saturating_sub(1);
        for (i, &(ply, mover, value)) in game.moves.iter().enumerate() {
            if live.observe(rule, threshold, mover, ply, value) {
                review.kept_resignations += u64::from(i == last);
                break;
            }
        }
        return;
    }
    let mut audit = ResignTracker::new(rule, true);
    for &(ply, mover, value) in &game.moves {
        audit.observe(rule, rule.threshold, mover, ply, value);
    }
    if let Some(wrong) = audit.false_resignation(game.winner) {
        review.audited_games += 1;
        review.false_resignations += u64::from(wrong);
    }
    let sides = audit.audited_sides(game.winner);
    if sides.iter().any(|side| side.depth > rule.threshold) {
        review.thresholds.push(calibration.record(&sides));
    }
}

/// The games of one shard (whole and contiguous, in order of play).
fn games_of(path: &Path) -> Result<Vec<GameValues>, SelfplayError> {
    let shard = Shard::open(path)?;
    let mut games: Vec<GameValues> = Vec::new();
    let mut current = None;
    for record in shard.records() {
        let mover = side_to_move(record.board).map_err(|e| SelfplayError::BadShard {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if current != Some(record.game_id) {
            current = Some(record.game_id);
            games.push(GameValues {
                resigned: record.end_reason == EndReason::Resignation,
                winner: None,
                moves: Vec::new(),
            });
        }
        let game = games.last_mut().expect("pushed above");
        game.winner = match record.game_result {
            1 => Some(mover),
            -1 => Some(mover.opposite()),
            _ => None,
        };
        game.moves.push((record.ply, mover, record.search_value));
    }
    Ok(games)
}
