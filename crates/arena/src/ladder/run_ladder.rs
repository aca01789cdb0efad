//! `koshogi arena --ladder <run>`: rate every checkpoint of a training run (see
//! `pairings.rs`, [`ladder_pairs`], for the pairing scheme and the files).
//!
//! The anchor (Elo 0) is the random-initialised network: the run's `step-000000000` checkpoint
//! if it has one, otherwise a network with the run's architecture initialised from torch seed 0,
//! saved once as `<run>/arena/random-init/model.json` so every later ladder run rates against
//! the very same weights.
//!
//! Fixed baselines (built-in players, by default [`DEFAULT_BASELINES`]) are rated with the
//! checkpoints: their levels do not depend on the run, so they mark the checkpoints' curve with
//! known strengths ("passes greedy at step N") that compare across runs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use koshogi_mcts::SearchConfig;
use koshogi_nn::checkpoint::{read_card, save};
use koshogi_nn::{Model, RuntimeConfig};
use koshogi_rules::Game;
use koshogi_run_store::games_csv::read_games_csv;
use koshogi_run_store::ladder_csv::{write_ladder_csv, LadderRow};
use koshogi_run_store::layout::MODEL_CARD_FILE;
use koshogi_run_store::local_checkpoints::list_checkpoints;

use super::pairings::{
    ladder_pairs, ladder_rows, play_missing_games, rate_games, LadderError, LadderPaths,
};
use super::picture::{write_progress_svg, ProgressPicture};
use super::training_hours::{training_hours, SavedCheckpoint};
use crate::matches::{new_game, MatchObserver, MatchSettings, Player};
use crate::players::{
    build_player, card_rules_options, resolve_card, split_player_list, MctsPlayer, PlayerOptions,
    PlayerSpec, PlayerSpecError, PolicyPlayer,
};
use crate::statistics::Rating;

/// Name of the synthesised anchor when the run has no step-0 checkpoint.
pub const RANDOM_INIT_NAME: &str = "random-init";

/// The baselines a ladder rates unless told otherwise (`koshogi arena --ladder … --anchors`).
pub const DEFAULT_BASELINES: &str = "random,greedy,ab:2";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BaselinesError {
    #[error(transparent)]
    Spec(#[from] PlayerSpecError),
    #[error(
        "`{0}` cannot be a ladder baseline: only built-in players (random, greedy, ab:<depth>) \
         stay the same from run to run"
    )]
    NotBuiltIn(String),
    #[error("baseline `{0}` is listed twice")]
    Duplicate(String),
}

/// Parses a comma-separated list of built-in players; `none` (or nothing) for no baseline.
pub fn parse_baselines(text: &str) -> Result<Vec<PlayerSpec>, BaselinesError> {
    let text = text.trim();
    if text.is_empty() || text == "none" {
        return Ok(Vec::new());
    }
    let mut baselines = Vec::new();
    for item in split_player_list(text) {
        let item = item.as_str();
        let spec: PlayerSpec = item.parse()?;
        match spec {
            PlayerSpec::Baseline(_) | PlayerSpec::MaterialSearch { .. } => {}
            PlayerSpec::Policy { .. } | PlayerSpec::Mcts { .. } | PlayerSpec::Engine(_) => {
                return Err(BaselinesError::NotBuiltIn(item.trim().to_string()))
            }
        }
        if baselines.contains(&spec) {
            return Err(BaselinesError::Duplicate(spec.to_string()));
        }
        baselines.push(spec);
    }
    Ok(baselines)
}

/// How the checkpoints play in the ladder.
#[derive(Clone, Debug, PartialEq)]
pub enum LadderPlayerKind {
    /// Raw policy, no search (cheap; the default).
    Policy,
    /// Tree search with this configuration.
    Mcts(SearchConfig),
}

impl LadderPlayerKind {
    /// `--ladder-sims`: 0 = the raw policy, else tree search with that many simulations.
    pub fn with_simulations(simulations: u32) -> Self {
        match simulations {
            0 => LadderPlayerKind::Policy,
            n => LadderPlayerKind::Mcts(MctsPlayer::evaluation_config(n)),
        }
    }
}

#[derive(Clone, Debug)]
pub struct RunLadderSettings {
    pub games_per_pair: usize,
    /// `games`, `output_dir` are set per pairing; the rest applies to every game.
    pub match_settings: MatchSettings,
    pub player: LadderPlayerKind,
    pub runtime: RuntimeConfig,
    /// Virtual draws per pairing in the rating fit (see [`RatingPool`](crate::RatingPool)).
    pub virtual_draws_per_pair: f64,
    /// Also write the ratings to TensorBoard under `<run>/tb/arena`.
    pub tensorboard: bool,
    /// Built-in players rated with the checkpoints (see [`parse_baselines`]).
    pub baselines: Vec<PlayerSpec>,
}

impl Default for RunLadderSettings {
    fn default() -> Self {
        Self {
            games_per_pair: 40,
            match_settings: MatchSettings::default(),
            player: LadderPlayerKind::Policy,
            runtime: RuntimeConfig::default(),
            virtual_draws_per_pair: 1.0,
            tensorboard: true,
            baselines: parse_baselines(DEFAULT_BASELINES).expect("valid default baselines"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct RunLadderResult {
    pub anchor: String,
    pub games_played: usize,
    /// All rated players, in checkpoint order (anchor first), then the baselines.
    pub ratings: Vec<Rating>,
    pub steps: HashMap<String, u64>,
    pub ladder_csv: PathBuf,
    /// The picture of progress (`<run>/arena/elo.svg`), `None` if it could not be written
    /// (logged; the CSV is the record).
    pub elo_svg: Option<PathBuf>,
}

fn player_error(name: &str, message: impl ToString) -> LadderError {
    LadderError::Player {
        name: name.to_string(),
        message: message.to_string(),
    }
}

/// Plays the missing ladder games of `run_dir` and rates all checkpoints.
pub fn run_ladder(
    run_dir: &Path,
    settings: &RunLadderSettings,
    observer: &mut dyn MatchObserver,
) -> Result<RunLadderResult, LadderError> {
    let paths = LadderPaths::new(run_dir);
    let entries = list_checkpoints(&paths.checkpoints_dir())?;
    if entries.is_empty() {
        return Err(LadderError::NoCheckpoints(paths.checkpoints_dir()));
    }
    let mut cards: Vec<(String, PathBuf)> = Vec::new();
    let mut steps = HashMap::new();
    // When and how long each was trained: the picture's training hours.
    let mut saved: Vec<SavedCheckpoint> = Vec::new();
    for entry in &entries {
        let name = entry.name();
        let card = resolve_card(&entry.path).map_err(|e| player_error(&name, e))?;
        let (created_unix_seconds, training_seconds) =
            read_card(&card).map_or((0, None), |c| (c.created_unix_seconds, c.training_seconds));
        saved.push(SavedCheckpoint {
            name: name.clone(),
            step: entry.step,
            created_unix_seconds,
            training_seconds,
        });
        cards.push((name.clone(), card));
        steps.insert(name, entry.step);
    }
    let first_card = read_card(&cards[0].1).map_err(|e| player_error(&cards[0].0, e))?;
    let rules = card_rules_options(&first_card);

    let anchor = if entries[0].step == 0 {
        entries[0].name()
    } else {
        let card_path = paths
            .arena_dir()
            .join(RANDOM_INIT_NAME)
            .join(MODEL_CARD_FILE);
        if !card_path.is_file() {
            std::fs::create_dir_all(card_path.parent().expect("has a parent")).map_err(
                |source| LadderError::Io {
                    path: card_path.clone(),
                    source,
                },
            )?;
            tch::manual_seed(0);
            let model = Model::new(&first_card.architecture, tch::Device::Cpu)
                .map_err(|e| player_error(RANDOM_INIT_NAME, e))?;
            save(&model, &card_path, 0, first_card.rules_options.clone())
                .map_err(|e| player_error(RANDOM_INIT_NAME, e))?;
            tracing::info!(path = %card_path.display(), "saved the random-initialised anchor network");
        }
        cards.insert(0, (RANDOM_INIT_NAME.to_string(), card_path));
        steps.insert(RANDOM_INIT_NAME.to_string(), 0);
        RANDOM_INIT_NAME.to_string()
    };

    let names: Vec<String> = cards.iter().map(|(n, _)| n.clone()).collect();
    let baselines: Vec<(String, &PlayerSpec)> = settings
        .baselines
        .iter()
        .map(|spec| (spec.to_string(), spec))
        .collect();
    let baseline_names: Vec<String> = baselines.iter().map(|(name, _)| name.clone()).collect();
    let pairs = ladder_pairs(&names, &anchor, &baseline_names);
    let card_of: HashMap<String, PathBuf> = cards.into_iter().collect();
    let new_koshogi_game = || -> Game { new_game(&rules, &settings.match_settings) };
    let mut make_player = |name: &str| -> Result<Box<dyn Player<Game>>, LadderError> {
        if let Some((_, spec)) = baselines.iter().find(|(n, _)| n == name) {
            let options = PlayerOptions {
                runtime: settings.runtime,
                ..PlayerOptions::default()
            };
            let built = build_player(spec, &options).map_err(|e| player_error(name, e))?;
            return Ok(built.player);
        }
        let card = card_of
            .get(name)
            .ok_or_else(|| player_error(name, "not a checkpoint of this run"))?;
        Ok(match &settings.player {
            LadderPlayerKind::Policy => Box::new(
                PolicyPlayer::load(card, &settings.runtime, name)
                    .map_err(|e| player_error(name, e))?,
            ),
            LadderPlayerKind::Mcts(config) => Box::new(
                MctsPlayer::load(card, &settings.runtime, config.clone(), name)
                    .map_err(|e| player_error(name, e))?,
            ),
        })
    };
    let games_played = play_missing_games(
        &paths,
        &pairs,
        settings.games_per_pair,
        &settings.match_settings,
        &new_koshogi_game,
        &mut make_player,
        observer,
    )?;

    let rows = read_games_csv(&paths.games_csv())?;
    let mut ratings = rate_games(&rows, &anchor, settings.virtual_draws_per_pair)?;
    ratings.sort_by_key(|r| {
        (
            steps.get(&r.name).copied().unwrap_or(u64::MAX),
            r.name != anchor,
            baseline_names.iter().position(|b| *b == r.name),
        )
    });
    let rows = ladder_rows(&ratings, &steps);
    write_ladder_csv(&paths.ladder_csv(), &rows)?;
    if settings.tensorboard {
        write_tensorboard(&paths, &ratings, &steps, &anchor);
    }
    let elo_svg = write_picture(&paths, &anchor, rows, &saved);
    Ok(RunLadderResult {
        anchor,
        games_played,
        ratings,
        steps,
        ladder_csv: paths.ladder_csv(),
        elo_svg,
    })
}

/// `arena/elo.svg` from the ladder table and the checkpoints' save times. Best effort, like
/// TensorBoard: a failure is logged, never fatal.
fn write_picture(
    paths: &LadderPaths,
    anchor: &str,
    rows: Vec<LadderRow>,
    saved: &[SavedCheckpoint],
) -> Option<PathBuf> {
    let hours = training_hours(saved);
    let run_name = paths
        .run_dir
        .canonicalize()
        .ok()
        .and_then(|dir| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| paths.run_dir.display().to_string());
    let picture = ProgressPicture {
        run_name,
        anchor: anchor.to_string(),
        rows,
        hours: hours.hours,
        hours_label: hours.label,
    };
    let path = paths.elo_svg();
    match write_progress_svg(&path, &picture) {
        Ok(()) => Some(path),
        Err(e) => {
            tracing::warn!("the ladder's picture was not written: {e}");
            None
        }
    }
}

/// `arena/elo` and `arena/elo_stderr` at each checkpoint's training step. Best effort: a
/// TensorBoard failure is logged, never fatal (the CSV is the record).
fn write_tensorboard(
    paths: &LadderPaths,
    ratings: &[Rating],
    steps: &HashMap<String, u64>,
    anchor: &str,
) {
    let mut writer = match koshogi_metrics::EventWriter::create(&paths.tensorboard_dir()) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!("TensorBoard ratings not written: {e}");
            return;
        }
    };
    for rating in ratings {
        let Some(&step) = steps.get(&rating.name) else {
            continue;
        };
        if rating.name == anchor && rating.name == RANDOM_INIT_NAME {
            continue;
        }
        let values = [
            ("arena/elo", rating.elo),
            ("arena/elo_stderr", rating.stderr),
        ];
        if let Err(e) = writer.add_scalars(step as i64, &values) {
            tracing::warn!("TensorBoard ratings not written: {e}");
            return;
        }
    }
    if let Err(e) = writer.sync() {
        tracing::warn!("TensorBoard ratings not synced: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::BaselineSpec;

    #[test]
    fn zero_simulations_is_the_raw_policy() {
        assert_eq!(
            LadderPlayerKind::with_simulations(0),
            LadderPlayerKind::Policy
        );
        assert_eq!(
            LadderPlayerKind::with_simulations(8),
            LadderPlayerKind::Mcts(MctsPlayer::evaluation_config(8))
        );
    }

    #[test]
    fn baselines_are_built_in_players_listed_once() {
        assert_eq!(
            parse_baselines(DEFAULT_BASELINES).unwrap(),
            [
                PlayerSpec::Baseline(BaselineSpec::Random),
                PlayerSpec::Baseline(BaselineSpec::Greedy),
                PlayerSpec::Baseline(BaselineSpec::AlphaBeta { depth: 2 })
            ]
        );
        assert_eq!(
            parse_baselines(" greedy , ab:3 ").unwrap(),
            [
                PlayerSpec::Baseline(BaselineSpec::Greedy),
                PlayerSpec::Baseline(BaselineSpec::AlphaBeta { depth: 3 })
            ]
        );
        assert_eq!(parse_baselines("none").unwrap(), []);
        assert_eq!(parse_baselines("").unwrap(), []);
        assert!(matches!(
            parse_baselines("greedy,ab:7"),
            Err(BaselinesError::Spec(PlayerSpecError::BadDepth(_)))
        ));
        assert!(matches!(
            parse_baselines("random,policy:run/checkpoints/step-000000100"),
            Err(BaselinesError::NotBuiltIn(_))
        ));
        assert_eq!(
            parse_baselines("ab:2,random,ab:2"),
            Err(BaselinesError::Duplicate("ab:2".into()))
        );
        assert!(matches!(
            parse_baselines("random,,greedy"),
            Err(BaselinesError::Spec(PlayerSpecError::Unknown(_)))
        ));
    }
}
