//! `koshogi eval`: one fixed evaluation of a checkpoint of a training run, that anyone can rerun
//! and compare with another run's.
//!
//! Why: `koshogi arena` answers any question one match at a time, and hand-typed matches are
//! hard to compare between runs. A run's progress should be read off one table made the same way
//! every time: the checkpoint (the run's last by default) against the run's first checkpoint
//! (normally the random-initialised step 0) and against fixed opponents (`greedy` by default, and
//! any arena player spec, e.g. `ab:2`), each once as the raw policy (`policy:`) and once with
//! tree search (`mcts:<ckpt>:<sims>`, the run's first checkpoint searching as much). Besides the
//! score it counts how each side moves ([`MoveStats`]: passes and captures), because a
//! score alone hid that the first winning network mostly passed.
//!
//! A score against a fixed opponent also credits the hand-written parts of the search (counted
//! material in its value, forced capture candidates), so every table plays **controls** beside
//! the checkpoint, against the same opponents ([`Role`]): the same search with no network
//! (`material:<sims>`), the run's first checkpoint searching the same way, and the checkpoint's
//! search on the network's value alone (`@utility=0,forced=off`), which also meets
//! `material:<sims>` head to head. Besides the run's own adjudication at the ply cap, the rows
//! can be played again to a long cap with capped games drawn ([`Section::Outright`]: strength
//! shown by games won), and at equal time per move against `classic@movetime=…`
//! ([`Section::EqualTime`]). Every row says how its games ended ([`EndingCounts`]).
//!
//! Everything is played by the arena's own machinery: [`run_match`] (paired openings, alternating
//! colours, adjudication), [`build_player`] (the spec syntax), [`list_checkpoints`] and
//! [`EloEstimate`]. Every row uses the same seed, hence the same openings. The table is formatted
//! and written by [`crate::evaluation::report`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use koshogi_rules::Game;
use koshogi_run_store::local_checkpoints::{
    list_checkpoints, CheckpointEntry, LocalCheckpointError,
};

use super::move_stats::{CountingPlayer, MoveStats};
use super::progress::{load_progress, progress_path, save_progress};
use crate::matches::{
    new_game, run_match, EndingCounts, GameSummary, MatchError, MatchObserver, MatchReport,
    MatchSettings, Renamed,
};
use crate::players::{
    build_player, match_rules, BaselineSpec, BuildPlayerError, BuiltPlayer, PlayerOptions,
    PlayerSpec, SearchSettings,
};
use crate::statistics::{EloEstimate, MeanEstimate, WinDrawLoss};
use koshogi_baselines::classic::ClassicSpec;
use koshogi_run_store::layout::RunLayout;

/// What to evaluate and how (the CLI's options).
#[derive(Clone, Debug)]
pub struct EvalSettings {
    /// The checkpoint's step; `None` = the run's last checkpoint.
    pub checkpoint_step: Option<u64>,
    /// Games of each `policy:` row (0 = no such rows).
    pub policy_games: usize,
    /// Games of each `mcts:` row (0 = no such rows).
    pub mcts_games: usize,
    /// Simulations per move of the `mcts:` rows' players (and of `mcts:<ckpt>` opponents
    /// without their own count).
    pub simulations: u32,
    /// Opponents besides the run's first checkpoint, as arena player specs.
    pub opponents: Vec<PlayerSpec>,
    /// Play the controls ([`Role`]) beside the checkpoint.
    pub controls: bool,
    /// Play every row of the adjudicated table again to this cap, capped games drawn.
    pub outright_max_plies: Option<u32>,
    /// The equal-time table, if any.
    pub equal_time: Option<EqualTime>,
    /// How each match is played; `games` and `output_dir` are set per row.
    pub match_settings: MatchSettings,
    pub player_options: PlayerOptions,
    /// Keep every game's record under `<run>/eval/<checkpoint>-games/`.
    pub keep_records: bool,
    /// Keep the finished rows in `<run>/eval/eval-<checkpoint>.partial.json` and reuse those of
    /// an earlier, interrupted start under the same settings ([`super::progress`]).
    pub resume: bool,
}

/// The equal-time table: the search player and the network-free control with a time per move,
/// against an opponent with the same time.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EqualTime {
    pub movetime_ms: u64,
    pub games: usize,
    /// By default `classic@movetime=<movetime_ms>`.
    #[serde(serialize_with = "serialize_display")]
    pub opponent: PlayerSpec,
    /// Games at once: one per core, so that a classical opponent searches each on a core of
    /// its own while the search player's moves are batched over the same games.
    pub parallel_games: usize,
}

impl EqualTime {
    /// `movetime_ms` per move against `classic@movetime=<movetime_ms>`, one game per core.
    pub fn against_classic(movetime_ms: u64, games: usize) -> Self {
        let opponent = PlayerSpec::Baseline(BaselineSpec::Classic(ClassicSpec {
            movetime_ms: Some(movetime_ms),
            ..ClassicSpec::default()
        }));
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            movetime_ms,
            games,
            opponent,
            parallel_games: cores,
        }
    }
}

fn serialize_display<S: serde::Serializer>(
    value: &PlayerSpec,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Which table a row is in: how its games are played.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Capped at `max_plies`, decided by the piece count (`cap_material`), as the run trains.
    Adjudicated,
    /// Capped at `outright_max_plies`, capped games drawn: strength shown by games won.
    Outright,
    /// Both sides with the same time per move.
    EqualTime,
}

/// What a row shows: the checkpoint, or one of its controls against the same opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The evaluated checkpoint.
    Checkpoint,
    /// Control: the same search with no network (uniform priors, counted material).
    NoNetwork,
    /// Control: the run's first checkpoint (normally the untrained network), playing the same way.
    FirstCheckpoint,
    /// Control: the checkpoint's search on the network's value alone (`utility=0`, no forced
    /// root candidates, no capture-first replies).
    ValueOnly,
}

impl Role {
    /// As the tables name it.
    pub fn label(self) -> &'static str {
        match self {
            Role::Checkpoint => "checkpoint",
            Role::NoNetwork => "control: no network",
            Role::FirstCheckpoint => "control: first checkpoint",
            Role::ValueOnly => "control: value only",
        }
    }
}

impl Default for EvalSettings {
    fn default() -> Self {
        Self {
            checkpoint_step: None,
            policy_games: 100,
            mcts_games: 40,
            simulations: 16,
            opponents: vec![PlayerSpec::Baseline(BaselineSpec::Greedy)],
            controls: true,
            outright_max_plies: None,
            equal_time: None,
            match_settings: MatchSettings {
                max_plies: 300,
                cap_material_margin: Some(2),
                seed: 1,
                ..MatchSettings::default()
            },
            player_options: PlayerOptions::default(),
            keep_records: false,
            resume: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("no run directory at {0}")]
    NoRunDir(PathBuf),
    #[error("no checkpoints (step-* directories) under {0}")]
    NoCheckpoints(PathBuf),
    #[error("no checkpoint at step {step} under {dir} (steps there: {available})")]
    NoSuchStep {
        step: u64,
        dir: PathBuf,
        available: String,
    },
    #[error("nothing to play: no opponent besides the checkpoint itself, or no games")]
    NothingToPlay,
    #[error(transparent)]
    Listing(#[from] LocalCheckpointError),
    #[error(transparent)]
    Player(#[from] BuildPlayerError),
    #[error("{row}: {message}")]
    Rules { row: String, message: String },
    #[error("{row}: {source}")]
    Match { row: String, source: MatchError },
}

/// One row to play: a player of the evaluated checkpoint (or a control) against one opponent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowPlan {
    /// Short display names (`policy:step-000001200`, `mcts:step-000001200:16`, `greedy`).
    pub player: String,
    pub opponent: String,
    pub player_spec: PlayerSpec,
    pub opponent_spec: PlayerSpec,
    /// Games as asked (the match runner rounds up to even).
    pub games: usize,
    pub role: Role,
    pub section: Section,
}

impl RowPlan {
    pub fn title(&self) -> String {
        format!("{} vs {}", self.player, self.opponent)
    }
}

/// The rows of one evaluation.
#[derive(Clone, Debug)]
pub struct EvalPlan {
    pub run_dir: PathBuf,
    pub checkpoint: CheckpointEntry,
    /// The run's first checkpoint, unless it is the evaluated one.
    pub baseline: Option<CheckpointEntry>,
    pub rows: Vec<RowPlan>,
}

/// The result of one row.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EvalRow {
    pub player: String,
    pub opponent: String,
    pub role: Role,
    pub section: Section,
    /// The player's results by how the games ended.
    pub endings: EndingCounts,
    /// Results from the player's side.
    pub wdl: WinDrawLoss,
    /// `None` only for a row without games.
    pub elo: Option<EloEstimate>,
    pub player_moves: MoveStats,
    pub opponent_moves: MoveStats,
    /// Mean game length in plies, random opening included.
    pub mean_plies: f64,
    /// The player's mean material balance after ply 100 and after ply 200, over the games
    /// that lasted so long ([`MatchReport::material_at`]).
    pub player_material: [Option<MeanEstimate>; 2],
}

/// The plies after which a row reports the player's material balance.
pub const MATERIAL_PLIES: [u32; 2] = [100, 200];

/// What makes an evaluation repeatable: everything that decides its games.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EvalConditions {
    pub policy_games: usize,
    pub mcts_games: usize,
    pub simulations: u32,
    pub max_plies: u32,
    /// `None`: a game stopped at `max_plies` is a draw.
    pub cap_material: Option<u32>,
    pub opening_plies: u32,
    pub seed: u64,
    pub opponents: Vec<String>,
    pub avoid_repetition: bool,
    pub controls: bool,
    pub outright_max_plies: Option<u32>,
    pub equal_time: Option<EqualTime>,
}

/// A finished evaluation: [`crate::evaluation::report`] prints and writes it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Evaluation {
    pub run_dir: PathBuf,
    pub checkpoint: String,
    pub step: u64,
    pub baseline: Option<String>,
    pub conditions: EvalConditions,
    pub rows: Vec<EvalRow>,
}

/// Follows an evaluation (progress bars).
pub trait EvalObserver {
    fn row_started(&mut self, _index: usize, _row: &RowPlan) {}
    fn game_finished(&mut self, _game: &GameSummary, _report: &MatchReport) {}
    fn row_finished(&mut self, _index: usize, _row: &EvalRow) {}
}

impl EvalObserver for () {}

/// How the evaluated checkpoint (and the baseline) play in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Policy,
    Mcts(u32),
}

impl Kind {
    /// The checkpoint `entry` playing this way with `settings` (search players only): its
    /// display name and spec.
    fn player(self, entry: &CheckpointEntry, settings: SearchSettings) -> (String, PlayerSpec) {
        let checkpoint = entry.path.clone();
        match self {
            Kind::Policy => (
                format!("policy:{}", entry.name()),
                PlayerSpec::Policy { checkpoint },
            ),
            Kind::Mcts(sims) => {
                // A timed player's count only sizes its first move: not part of its name.
                let simulations = settings.movetime_ms.is_none().then_some(sims);
                let named = PlayerSpec::Mcts {
                    checkpoint: entry.name().into(),
                    simulations,
                    settings,
                };
                let name = named.to_string();
                (
                    name,
                    PlayerSpec::Mcts {
                        checkpoint,
                        simulations: simulations.or(Some(sims)),
                        settings,
                    },
                )
            }
        }
    }
}

/// The network-free control of `sims` simulations, with `settings`.
fn no_network(sims: u32, settings: SearchSettings) -> (String, PlayerSpec) {
    let spec = PlayerSpec::MaterialSearch {
        simulations: sims,
        settings,
    };
    (spec.to_string(), spec)
}

/// Collects rows with one `games` count and section.
struct Rows<'a> {
    rows: &'a mut Vec<RowPlan>,
    games: usize,
    section: Section,
}

impl Rows<'_> {
    fn push(&mut self, role: Role, player: (String, PlayerSpec), opponent: (String, PlayerSpec)) {
        self.rows.push(RowPlan {
            player: player.0,
            opponent: opponent.0,
            player_spec: player.1,
            opponent_spec: opponent.1,
            games: self.games,
            role,
            section: self.section,
        });
    }
}

/// The adjudicated table's rows: for the policy player, then the search player, the
/// checkpoint against the run's first checkpoint; for the search player, against the
/// network-free search (and the value-only control against it too); then against each
/// opponent, each followed by the controls against the same opponent.
fn adjudicated_rows(
    settings: &EvalSettings,
    checkpoint: &CheckpointEntry,
    baseline: Option<&CheckpointEntry>,
) -> Vec<RowPlan> {
    let mut rows = Vec::new();
    let sims = settings.simulations.max(1);
    let kinds = [
        (Kind::Policy, settings.policy_games),
        (Kind::Mcts(sims), settings.mcts_games),
    ];
    let plain = SearchSettings::default();
    let value_only = SearchSettings::value_only();
    for (kind, games) in kinds {
        if games == 0 {
            continue;
        }
        let mut out = Rows {
            rows: &mut rows,
            games,
            section: Section::Adjudicated,
        };
        let player = kind.player(checkpoint, plain);
        let first = baseline.map(|b| kind.player(b, plain));
        let is_search = matches!(kind, Kind::Mcts(_));
        let value_only_player = kind.player(checkpoint, value_only);
        if let Some(first) = &first {
            out.push(Role::Checkpoint, player.clone(), first.clone());
        }
        if settings.controls && is_search {
            out.push(Role::Checkpoint, player.clone(), no_network(sims, plain));
            out.push(
                Role::ValueOnly,
                value_only_player.clone(),
                no_network(sims, plain),
            );
        }
        for opponent in &settings.opponents {
            let opponent = (opponent.to_string(), opponent.clone());
            out.push(Role::Checkpoint, player.clone(), opponent.clone());
            if !settings.controls {
                continue;
            }
            if is_search {
                out.push(Role::NoNetwork, no_network(sims, plain), opponent.clone());
            }
            if let Some(first) = &first {
                out.push(Role::FirstCheckpoint, first.clone(), opponent.clone());
            }
            if is_search {
                out.push(Role::ValueOnly, value_only_player.clone(), opponent.clone());
            }
        }
    }
    rows
}

/// The equal-time table's rows: the search player, then (with controls) the network-free
/// search, each with the time per move, against the opponent with the same time.
fn equal_time_rows(
    settings: &EvalSettings,
    equal: &EqualTime,
    checkpoint: &CheckpointEntry,
) -> Vec<RowPlan> {
    let mut rows = Vec::new();
    if equal.games == 0 {
        return rows;
    }
    let sims = settings.simulations.max(1);
    let timed = SearchSettings::timed(equal.movetime_ms);
    let opponent = (equal.opponent.to_string(), equal.opponent.clone());
    let mut out = Rows {
        rows: &mut rows,
        games: equal.games,
        section: Section::EqualTime,
    };
    out.push(
        Role::Checkpoint,
        Kind::Mcts(sims).player(checkpoint, timed),
        opponent.clone(),
    );
    if settings.controls {
        out.push(Role::NoNetwork, no_network(sims, timed), opponent);
    }
    rows
}

/// Finds the checkpoints and lists the rows: for the policy player, then the search player,
/// one row against the run's first checkpoint (playing the same way) and one per opponent.
pub fn plan_evaluation(run_dir: &Path, settings: &EvalSettings) -> Result<EvalPlan, EvalError> {
    if !run_dir.is_dir() {
        return Err(EvalError::NoRunDir(run_dir.to_path_buf()));
    }
    let checkpoints_dir = RunLayout::new(run_dir).checkpoints_dir();
    if !checkpoints_dir.is_dir() {
        return Err(EvalError::NoCheckpoints(checkpoints_dir));
    }
    let entries = list_checkpoints(&checkpoints_dir)?;
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return Err(EvalError::NoCheckpoints(checkpoints_dir));
    };
    let checkpoint = match settings.checkpoint_step {
        None => last.clone(),
        Some(step) => entries
            .iter()
            .find(|e| e.step == step)
            .cloned()
            .ok_or_else(|| EvalError::NoSuchStep {
                step,
                dir: checkpoints_dir.clone(),
                available: entries
                    .iter()
                    .map(|e| e.step.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?,
    };
    let baseline = (first.step != checkpoint.step).then(|| first.clone());
    let mut rows = adjudicated_rows(settings, &checkpoint, baseline.as_ref());
    if settings.outright_max_plies.is_some() {
        let outright: Vec<RowPlan> = rows
            .iter()
            .map(|row| RowPlan {
                section: Section::Outright,
                ..row.clone()
            })
            .collect();
        rows.extend(outright);
    }
    if let Some(equal) = &settings.equal_time {
        rows.extend(equal_time_rows(settings, equal, &checkpoint));
    }
    if rows.is_empty() {
        return Err(EvalError::NothingToPlay);
    }
    Ok(EvalPlan {
        run_dir: run_dir.to_path_buf(),
        checkpoint,
        baseline,
        rows,
    })
}

/// Forwards the match runner's reports to an [`EvalObserver`].
struct Forward<'a>(&'a mut dyn EvalObserver);

impl MatchObserver for Forward<'_> {
    fn game_finished(&mut self, game: &GameSummary, report: &MatchReport) {
        self.0.game_finished(game, report);
    }
}

/// Plays every row of `plan`. Players are built once (by display name) and reused across rows.
pub fn run_evaluation(
    plan: &EvalPlan,
    settings: &EvalSettings,
    observer: &mut dyn EvalObserver,
) -> Result<Evaluation, EvalError> {
    let mut players: HashMap<String, BuiltPlayer> = HashMap::new();
    let build = |name: &str, spec: &PlayerSpec| -> Result<BuiltPlayer, EvalError> {
        let BuiltPlayer {
            player,
            rules_options,
        } = build_player(spec, &settings.player_options)?;
        Ok(BuiltPlayer {
            player: Box::new(Renamed {
                name: name.to_string(),
                inner: player,
            }),
            rules_options,
        })
    };
    let conditions = eval_conditions(settings);
    let checkpoint_name = plan.checkpoint.name();
    let progress = settings
        .resume
        .then(|| progress_path(&plan.run_dir, &checkpoint_name));
    let mut rows = Vec::new();
    if let Some(path) = &progress {
        let resumed = load_progress(path, &checkpoint_name, &conditions, &plan.rows);
        if let Some(why) = resumed.discarded {
            tracing::warn!("{why}");
        }
        if !resumed.rows.is_empty() {
            tracing::info!(
                "resuming from {}: {} of {} rows were played before",
                path.display(),
                resumed.rows.len(),
                plan.rows.len()
            );
        }
        for (index, row) in resumed.rows.iter().enumerate() {
            observer.row_finished(index, row);
        }
        rows = resumed.rows;
    }
    for (index, row) in plan.rows.iter().enumerate().skip(rows.len()) {
        observer.row_started(index, row);
        let mut player = match players.remove(&row.player) {
            Some(p) => p,
            None => build(&row.player, &row.player_spec)?,
        };
        // Not cached under the player's name: the same name on both sides gets two instances.
        let mut opponent = match players.remove(&row.opponent) {
            Some(p) => p,
            None => build(&row.opponent, &row.opponent_spec)?,
        };
        let rules = match_rules(&[&player, &opponent]).map_err(|message| EvalError::Rules {
            row: row.title(),
            message,
        })?;
        let mut match_settings = settings.match_settings.clone();
        match_settings.games = row.games;
        match row.section {
            Section::Adjudicated => {}
            Section::Outright => {
                match_settings.max_plies = settings
                    .outright_max_plies
                    .unwrap_or(match_settings.max_plies);
                match_settings.cap_material_margin = None;
            }
            Section::EqualTime => {
                if let Some(equal) = &settings.equal_time {
                    match_settings.parallel_games = equal.parallel_games.max(1);
                }
            }
        }
        match_settings.output_dir = settings.keep_records.then(|| records_dir(plan, index, row));
        let mut counted_player = CountingPlayer::new(player.player.as_mut());
        let mut counted_opponent = CountingPlayer::new(opponent.player.as_mut());
        let report = run_match(
            &|| -> Game { new_game(&rules, &match_settings) },
            &mut counted_player,
            &mut counted_opponent,
            &match_settings,
            &mut Forward(&mut *observer),
        )
        .map_err(|source| EvalError::Match {
            row: row.title(),
            source,
        })?;
        let result = EvalRow {
            player: row.player.clone(),
            opponent: row.opponent.clone(),
            role: row.role,
            section: row.section,
            endings: report.endings(),
            wdl: report.wdl,
            elo: report.elo(),
            player_moves: counted_player.stats,
            opponent_moves: counted_opponent.stats,
            mean_plies: report.mean_plies(),
            player_material: MATERIAL_PLIES.map(|ply| report.material_at(ply)),
        };
        observer.row_finished(index, &result);
        rows.push(result);
        if let Some(path) = &progress {
            if let Err(error) = save_progress(path, &checkpoint_name, &conditions, &rows) {
                tracing::warn!(
                    "cannot keep the finished rows in {} ({error}): an interrupted evaluation \
                     will start over",
                    path.display()
                );
            }
        }
        players.insert(row.opponent.clone(), opponent);
        players.insert(row.player.clone(), player);
    }
    Ok(Evaluation {
        run_dir: plan.run_dir.clone(),
        checkpoint: checkpoint_name,
        step: plan.checkpoint.step,
        baseline: plan.baseline.as_ref().map(CheckpointEntry::name),
        conditions,
        rows,
    })
}

/// Everything in `settings` that decides the games.
fn eval_conditions(settings: &EvalSettings) -> EvalConditions {
    let m = &settings.match_settings;
    EvalConditions {
        policy_games: settings.policy_games,
        mcts_games: settings.mcts_games,
        simulations: settings.simulations.max(1),
        max_plies: m.max_plies,
        cap_material: m.cap_material_margin,
        opening_plies: m.opening_plies,
        seed: m.seed,
        opponents: settings.opponents.iter().map(|o| o.to_string()).collect(),
        avoid_repetition: settings.player_options.avoid_repetition,
        controls: settings.controls,
        outright_max_plies: settings.outright_max_plies,
        equal_time: settings.equal_time.clone(),
    }
}

/// `<run>/eval/<checkpoint>-games/NN-<player>_vs_<opponent>/` (names made file-safe).
fn records_dir(plan: &EvalPlan, index: usize, row: &RowPlan) -> PathBuf {
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    RunLayout::new(&plan.run_dir)
        .eval_dir()
        .join(format!("{}-games", plan.checkpoint.name()))
        .join(format!(
            "{index:02}-{}_vs_{}",
            safe(&row.player),
            safe(&row.opponent)
        ))
}

/// Three rows of `games` games each that need no network (the baselines against each other),
/// for tests of the evaluation and of its progress file.
#[cfg(test)]
pub(crate) fn baseline_rows(games: usize) -> Vec<RowPlan> {
    [
        (BaselineSpec::Random, BaselineSpec::Greedy),
        (BaselineSpec::Greedy, BaselineSpec::Random),
        (BaselineSpec::Random, BaselineSpec::Random),
    ]
    .into_iter()
    .map(|(player, opponent)| RowPlan {
        player: player.to_string(),
        opponent: opponent.to_string(),
        player_spec: PlayerSpec::Baseline(player),
        opponent_spec: PlayerSpec::Baseline(opponent),
        games,
        role: Role::Checkpoint,
        section: Section::Adjudicated,
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(steps: &[u64]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for step in steps {
            std::fs::create_dir_all(dir.path().join(format!("checkpoints/step-{step:09}")))
                .unwrap();
        }
        dir
    }

    fn titles(plan: &EvalPlan) -> Vec<String> {
        plan.rows.iter().map(RowPlan::title).collect()
    }

    #[test]
    fn the_last_checkpoint_plays_the_first_and_each_opponent_with_both_players() {
        let run = run_with(&[0, 100, 200]);
        let settings = EvalSettings {
            opponents: vec![
                PlayerSpec::Baseline(BaselineSpec::Greedy),
                PlayerSpec::Baseline(BaselineSpec::Random),
            ],
            controls: false,
            ..EvalSettings::default()
        };
        let plan = plan_evaluation(run.path(), &settings).unwrap();
        assert_eq!(plan.checkpoint.step, 200);
        assert_eq!(plan.baseline.as_ref().unwrap().step, 0);
        assert_eq!(
            titles(&plan),
            [
                "policy:step-000000200 vs policy:step-000000000",
                "policy:step-000000200 vs greedy",
                "policy:step-000000200 vs random",
                "mcts:step-000000200:16 vs mcts:step-000000000:16",
                "mcts:step-000000200:16 vs greedy",
                "mcts:step-000000200:16 vs random",
            ]
        );
        assert_eq!(plan.rows[0].games, 100);
        assert_eq!(plan.rows[3].games, 40);
        assert_eq!(
            plan.rows[3].opponent_spec,
            PlayerSpec::Mcts {
                checkpoint: plan.baseline.unwrap().path,
                simulations: Some(16),
                settings: SearchSettings::default(),
            }
        );
    }

    #[test]
    fn another_step_can_be_chosen_and_zero_games_skip_a_player() {
        let run = run_with(&[0, 100, 200]);
        let settings = EvalSettings {
            checkpoint_step: Some(100),
            mcts_games: 0,
            controls: false,
            ..EvalSettings::default()
        };
        let plan = plan_evaluation(run.path(), &settings).unwrap();
        assert_eq!(
            titles(&plan),
            [
                "policy:step-000000100 vs policy:step-000000000",
                "policy:step-000000100 vs greedy",
            ]
        );
        // The first checkpoint itself has no baseline row.
        let settings = EvalSettings {
            checkpoint_step: Some(0),
            ..settings
        };
        let plan = plan_evaluation(run.path(), &settings).unwrap();
        assert!(plan.baseline.is_none());
        assert_eq!(titles(&plan), ["policy:step-000000000 vs greedy"]);
    }

    #[test]
    fn controls_play_the_same_opponents_beside_the_checkpoint() {
        let run = run_with(&[0, 200]);
        let settings = EvalSettings {
            policy_games: 10,
            mcts_games: 4,
            ..EvalSettings::default()
        };
        let plan = plan_evaluation(run.path(), &settings).unwrap();
        let rows: Vec<(String, Role)> = plan.rows.iter().map(|r| (r.title(), r.role)).collect();
        let row = |title: &str, role| (title.to_string(), role);
        assert_eq!(
            rows,
            [
                row(
                    "policy:step-000000200 vs policy:step-000000000",
                    Role::Checkpoint
                ),
                row("policy:step-000000200 vs greedy", Role::Checkpoint),
                row("policy:step-000000000 vs greedy", Role::FirstCheckpoint),
                row(
                    "mcts:step-000000200:16 vs mcts:step-000000000:16",
                    Role::Checkpoint
                ),
                row("mcts:step-000000200:16 vs material:16", Role::Checkpoint),
                row(
                    "mcts:step-000000200:16@utility=0,forced=off vs material:16",
                    Role::ValueOnly
                ),
                row("mcts:step-000000200:16 vs greedy", Role::Checkpoint),
                row("material:16 vs greedy", Role::NoNetwork),
                row("mcts:step-000000000:16 vs greedy", Role::FirstCheckpoint),
                row(
                    "mcts:step-000000200:16@utility=0,forced=off vs greedy",
                    Role::ValueOnly
                ),
            ]
        );
        assert!(plan.rows.iter().all(|r| r.section == Section::Adjudicated));
        assert_eq!(plan.rows[2].games, 10);
        assert_eq!(plan.rows[9].games, 4);
        // The value-only control is the checkpoint itself with the hand-written parts off.
        assert_eq!(
            plan.rows[9].player_spec,
            PlayerSpec::Mcts {
                checkpoint: plan.checkpoint.path.clone(),
                simulations: Some(16),
                settings: SearchSettings::value_only(),
            }
        );
    }

    #[test]
    fn outright_rows_repeat_the_table_and_equal_time_rows_meet_the_timed_opponent() {
        let run = run_with(&[0, 200]);
        let settings = EvalSettings {
            policy_games: 0,
            mcts_games: 4,
            controls: false,
            outright_max_plies: Some(1000),
            equal_time: Some(EqualTime::against_classic(250, 6)),
            ..EvalSettings::default()
        };
        let plan = plan_evaluation(run.path(), &settings).unwrap();
        let rows: Vec<(String, Section)> =
            plan.rows.iter().map(|r| (r.title(), r.section)).collect();
        let row = |title: &str, section| (title.to_string(), section);
        assert_eq!(
            rows,
            [
                row(
                    "mcts:step-000000200:16 vs mcts:step-000000000:16",
                    Section::Adjudicated
                ),
                row("mcts:step-000000200:16 vs greedy", Section::Adjudicated),
                row(
                    "mcts:step-000000200:16 vs mcts:step-000000000:16",
                    Section::Outright
                ),
                row("mcts:step-000000200:16 vs greedy", Section::Outright),
                row(
                    "mcts:step-000000200@movetime=250 vs classic@movetime=250",
                    Section::EqualTime
                ),
            ]
        );
        assert_eq!(plan.rows[4].games, 6);
        let PlayerSpec::Mcts {
            simulations,
            settings: timed,
            ..
        } = &plan.rows[4].player_spec
        else {
            panic!("{:?}", plan.rows[4].player_spec)
        };
        // The count sizes the first timed move; the time decides the rest.
        assert_eq!(*simulations, Some(16));
        assert_eq!(timed.movetime_ms, Some(250));
        // With controls, the network-free search meets the same timed opponent.
        let with_controls = EvalSettings {
            controls: true,
            outright_max_plies: None,
            ..settings
        };
        let plan = plan_evaluation(run.path(), &with_controls).unwrap();
        let last = plan.rows.last().unwrap();
        assert_eq!(
            last.title(),
            "material:16@movetime=250 vs classic@movetime=250"
        );
        assert_eq!(last.role, Role::NoNetwork);
    }

    #[test]
    fn bad_runs_are_clear_errors() {
        let settings = EvalSettings::default();
        let message = |run: &Path, settings: &EvalSettings| {
            plan_evaluation(run, settings).unwrap_err().to_string()
        };
        let missing = Path::new("/nonexistent/run");
        assert_eq!(
            message(missing, &settings),
            "no run directory at /nonexistent/run"
        );
        let empty = tempfile::tempdir().unwrap();
        assert!(message(empty.path(), &settings).starts_with("no checkpoints"));
        std::fs::create_dir(empty.path().join("checkpoints")).unwrap();
        assert!(message(empty.path(), &settings).starts_with("no checkpoints"));
        let run = run_with(&[0, 100]);
        let at = EvalSettings {
            checkpoint_step: Some(50),
            ..EvalSettings::default()
        };
        assert!(
            message(run.path(), &at).ends_with("(steps there: 0, 100)"),
            "{}",
            message(run.path(), &at)
        );
        let nothing = EvalSettings {
            checkpoint_step: Some(0),
            opponents: Vec::new(),
            controls: false,
            ..EvalSettings::default()
        };
        assert!(message(run.path(), &nothing).starts_with("nothing to play"));
    }

    /// Three rows that need no network (the baselines against each other), quick to play.
    fn baseline_plan(run: &Path) -> EvalPlan {
        let rows = baseline_rows(2);
        EvalPlan {
            run_dir: run.to_path_buf(),
            checkpoint: CheckpointEntry {
                step: 100,
                path: run.join("checkpoints/step-000000100"),
            },
            baseline: None,
            rows,
        }
    }

    /// The rows an evaluation started.
    struct Started(Vec<usize>);

    impl EvalObserver for Started {
        fn row_started(&mut self, index: usize, _row: &RowPlan) {
            self.0.push(index);
        }
    }

    /// Plays `plan` and returns the indices of the rows it played (not resumed) and the rows.
    fn play(plan: &EvalPlan, settings: &EvalSettings) -> (Vec<usize>, Vec<serde_json::Value>) {
        let mut started = Started(Vec::new());
        let evaluation = run_evaluation(plan, settings, &mut started).unwrap();
        let rows = evaluation
            .rows
            .iter()
            .map(|row| serde_json::to_value(row).unwrap())
            .collect();
        (started.0, rows)
    }

    #[test]
    fn an_interrupted_evaluation_resumes_at_its_first_unplayed_row() {
        let run = tempfile::tempdir().unwrap();
        let plan = baseline_plan(run.path());
        let mut settings = EvalSettings {
            resume: true,
            ..EvalSettings::default()
        };
        settings.match_settings.max_plies = 12;
        let partial = progress_path(run.path(), "step-000000100");

        let (started, first_rows) = play(&plan, &settings);
        assert_eq!(started, [0, 1, 2]);
        // Interrupted after its first row: the file keeps that row only.
        let mut stored: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&partial).unwrap()).unwrap();
        assert_eq!(stored["rows"].as_array().unwrap().len(), 3);
        stored["rows"].as_array_mut().unwrap().truncate(1);
        std::fs::write(&partial, stored.to_string()).unwrap();
        let (started, rows) = play(&plan, &settings);
        assert_eq!(started, [1, 2], "the first row is not played again");
        assert_eq!(rows[0], first_rows[0], "and its result is the stored one");
        assert_eq!(rows.len(), 3);

        // Other settings, or a file that is not a progress file: every row is played again.
        let mut longer = settings.clone();
        longer.match_settings.max_plies = 14;
        assert_eq!(play(&plan, &longer).0, [0, 1, 2]);
        for garbage in [
            "{",
            "[]",
            "{\"format\": \"koshogi-eval-progress\", \"version\": 9}",
        ] {
            std::fs::write(&partial, garbage).unwrap();
            assert_eq!(play(&plan, &settings).0, [0, 1, 2], "{garbage}");
        }
        // Without `resume` nothing is kept.
        std::fs::remove_file(&partial).unwrap();
        let once = EvalSettings {
            resume: false,
            ..settings
        };
        assert_eq!(play(&plan, &once).0, [0, 1, 2]);
        assert!(!partial.exists());
    }
}
