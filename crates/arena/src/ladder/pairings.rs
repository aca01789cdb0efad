//! The ladder of a training run: play the checkpoints of `<run>/checkpoints/` against each other,
//! keep every game in `<run>/arena/games.csv`, and rate them all jointly ([`RatingPool`]).
//!
//! Which games: each checkpoint plays its predecessor and the anchor (the random-initialised
//! network), `games_per_pair` games per pairing. This connects every checkpoint to the anchor
//! through two routes, costs O(checkpoints) games rather than O(checkpoints²), and is
//! incremental: pairings that already have their games in `games.csv` are not replayed, so
//! running the ladder after each new checkpoint only plays the new pairings.
//!
//! Fixed baselines (e.g. `random`, `greedy`, `ab:2`) may be rated too: each checkpoint (the
//! anchor included) also plays every baseline, and each baseline the one before it. They do not
//! change from run to run, so their ratings put fixed levels next to the checkpoints' curve, and
//! they tie checkpoints far apart in strength together through opponents of known strength.
//!
//! Files under `<run>/arena/`: `games.csv` (one line per game, all pairings, appended atomically
//! after each pairing), `ladder.csv` (name, step, Elo, standard error, games, points; the step
//! is empty for a baseline), and `games/<a>_vs_<b>/game-NNNNNN.txt` records.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use koshogi_run_store::games_csv::{
    append_lines_atomic, csv_field, read_games_csv, GameRow, GamesCsvError, GAMES_CSV_HEADER,
};
use koshogi_run_store::ladder_csv::{LadderCsvError, LadderRow};
use koshogi_run_store::layout::RunLayout;
use koshogi_run_store::local_checkpoints::LocalCheckpointError;

use crate::matches::{
    derive_seed, run_match, ArenaGame, MatchError, MatchObserver, MatchSettings, Player, Renamed,
};
use crate::statistics::{Rating, RatingError, RatingPool};

#[derive(Debug, thiserror::Error)]
pub enum LadderError {
    #[error("{path}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    GamesCsv(#[from] GamesCsvError),
    #[error(transparent)]
    Match(#[from] MatchError),
    #[error(transparent)]
    Rating(#[from] RatingError),
    #[error("cannot create player `{name}`: {message}")]
    Player { name: String, message: String },
    #[error("no checkpoints (step-* directories) under {0}")]
    NoCheckpoints(PathBuf),
    #[error(transparent)]
    Checkpoints(#[from] LocalCheckpointError),
    #[error(transparent)]
    LadderCsv(#[from] LadderCsvError),
}

/// The files of a run's ladder.
#[derive(Clone, Debug)]
pub struct LadderPaths {
    pub run_dir: PathBuf,
}

impl LadderPaths {
    pub fn new(run_dir: &Path) -> Self {
        Self {
            run_dir: run_dir.to_path_buf(),
        }
    }
    fn layout(&self) -> RunLayout {
        RunLayout::new(&self.run_dir)
    }
    pub fn checkpoints_dir(&self) -> PathBuf {
        self.layout().checkpoints_dir()
    }
    pub fn arena_dir(&self) -> PathBuf {
        self.layout().arena_dir()
    }
    pub fn games_csv(&self) -> PathBuf {
        self.layout().arena_games_csv()
    }
    pub fn ladder_csv(&self) -> PathBuf {
        self.layout().ladder_csv()
    }
    /// The picture of progress ([`super::picture`]).
    pub fn elo_svg(&self) -> PathBuf {
        self.layout().elo_svg()
    }
    /// Records of the games between `a` and `b`. Characters other than letters, digits, `-`,
    /// `_` and `.` become `-` (`ab:2` → `ab-2`): the viewer only opens such plain paths, and
    /// `:` is not allowed in Windows file names.
    pub fn records_dir(&self, a: &str, b: &str) -> PathBuf {
        let plain = |name: &str| -> String {
            name.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                        c
                    } else {
                        '-'
                    }
                })
                .collect()
        };
        self.layout()
            .arena_games_dir()
            .join(format!("{}_vs_{}", plain(a), plain(b)))
    }
    pub fn tensorboard_dir(&self) -> PathBuf {
        self.layout().arena_tensorboard_dir()
    }
}

/// Pairings to play: each baseline against the one before it, then each player (in order)
/// against its predecessor, against `anchor` and against every baseline. Returned as
/// (newer, older), (player, baseline) or (baseline, earlier baseline), without duplicates.
pub fn ladder_pairs(
    players: &[String],
    anchor: &str,
    baselines: &[String],
) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut push = |a: &str, b: &str| {
        if a != b
            && !pairs
                .iter()
                .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
        {
            pairs.push((a.to_string(), b.to_string()));
        }
    };
    for pair in baselines.windows(2) {
        push(&pair[1], &pair[0]);
    }
    for (i, player) in players.iter().enumerate() {
        if i > 0 {
            push(player, &players[i - 1]);
        }
        push(player, anchor);
        for baseline in baselines {
            push(player, baseline);
        }
    }
    pairs
}

/// Builds a player from its ladder name.
pub type PlayerFactory<'a, G> = dyn FnMut(&str) -> Result<Box<dyn Player<G>>, LadderError> + 'a;

/// Games already played between `a` and `b` (either colours).
pub fn games_between(rows: &[GameRow], a: &str, b: &str) -> usize {
    // The table holds names as CSV fields (commas replaced).
    let (a, b) = (csv_field(a), csv_field(b));
    rows.iter()
        .filter(|r| (r.black == a && r.white == b) || (r.black == b && r.white == a))
        .count()
}

/// Plays the games each pairing still lacks and appends them to `games.csv`. `make_player`
/// builds a player by ladder name (it plays under that name whatever its own); players are
/// built once and reused across pairings.
/// Returns the number of games played.
pub fn play_missing_games<G: ArenaGame>(
    paths: &LadderPaths,
    pairs: &[(String, String)],
    games_per_pair: usize,
    settings: &MatchSettings,
    new_game: &dyn Fn() -> G,
    make_player: &mut PlayerFactory<'_, G>,
    observer: &mut dyn MatchObserver,
) -> Result<usize, LadderError> {
    let mut players: HashMap<String, Box<dyn Player<G>>> = HashMap::new();
    let mut played = 0;
    for (a, b) in pairs {
        let rows = read_games_csv(&paths.games_csv())?;
        let have = games_between(&rows, a, b);
        if have >= games_per_pair {
            continue;
        }
        for name in [a, b] {
            if !players.contains_key(name) {
                let player: Box<dyn Player<G>> = Box::new(Renamed {
                    name: name.clone(),
                    inner: make_player(name)?,
                });
                players.insert(name.clone(), player);
            }
        }
        let mut player_a = players.remove(a).expect("built above");
        let mut player_b = players.remove(b).expect("built above");
        let mut pair_settings = settings.clone();
        pair_settings.games = games_per_pair - have;
        // New games of a pairing get fresh openings: seed by pairing and games already played.
        let pair_hash = a
            .bytes()
            .chain([0])
            .chain(b.bytes())
            .fold(0u64, |h, c| h.wrapping_mul(0x100_0000_01b3) ^ c as u64);
        pair_settings.seed = derive_seed(settings.seed, &[pair_hash, have as u64]);
        pair_settings.output_dir = Some(paths.records_dir(a, b).join(format!("from-{have:06}")));
        tracing::info!(a = %a, b = %b, games = pair_settings.games, "ladder pairing");
        let result = run_match(
            new_game,
            player_a.as_mut(),
            player_b.as_mut(),
            &pair_settings,
            observer,
        );
        players.insert(a.clone(), player_a);
        players.insert(b.clone(), player_b);
        let report = result?;
        let arena_dir = paths.arena_dir();
        let lines: Vec<String> = report
            .games
            .iter()
            .map(|g| {
                let record = g
                    .record
                    .as_deref()
                    .map(|p| p.strip_prefix(&arena_dir).unwrap_or(p).to_path_buf());
                g.csv_line(record.as_deref())
            })
            .collect();
        append_lines_atomic(&paths.games_csv(), GAMES_CSV_HEADER, &lines).map_err(|source| {
            LadderError::Io {
                path: paths.games_csv(),
                source,
            }
        })?;
        played += report.games.len();
    }
    Ok(played)
}

/// Maximum-likelihood ratings of everyone in `rows`, `anchor` = 0.
pub fn rate_games(
    rows: &[GameRow],
    anchor: &str,
    virtual_draws_per_pair: f64,
) -> Result<Vec<Rating>, RatingError> {
    let mut pool = RatingPool::new();
    pool.virtual_draws_per_pair = virtual_draws_per_pair;
    pool.player(anchor);
    for row in rows {
        pool.add_game(&row.black, &row.white, row.black_score);
    }
    pool.fit(anchor)
}

/// The rows of `ladder.csv` ([`koshogi_run_store::ladder_csv`]) for `ratings`, with the
/// checkpoint step of those in `steps` (a baseline has none).
pub fn ladder_rows(ratings: &[Rating], steps: &HashMap<String, u64>) -> Vec<LadderRow> {
    ratings
        .iter()
        .map(|r| LadderRow {
            name: r.name.clone(),
            step: steps.get(&r.name).copied(),
            elo: r.elo,
            stderr: r.stderr,
            // Real games: a whole number.
            games: r.games.round() as u64,
            points: r.points,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::RandomPlayer;
    use koshogi_run_store::ladder_csv::{read_ladder_csv, write_ladder_csv};

    use crate::matches::toy::{race, Careful, Race};

    #[test]
    fn pairs_chain_each_player_to_its_predecessor_and_the_anchor() {
        let names: Vec<String> = ["step-0", "step-5", "step-10"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let pairs = ladder_pairs(&names, "step-0", &[]);
        assert_eq!(
            pairs,
            vec![
                ("step-5".to_string(), "step-0".to_string()),
                ("step-10".to_string(), "step-5".to_string()),
                ("step-10".to_string(), "step-0".to_string()),
            ]
        );
    }

    #[test]
    fn baselines_are_chained_and_played_by_every_checkpoint() {
        let strings =
            |names: &[&str]| -> Vec<String> { names.iter().map(|s| s.to_string()).collect() };
        let pairs = ladder_pairs(
            &strings(&["step-0", "step-5"]),
            "step-0",
            &strings(&["random", "greedy", "ab:2"]),
        );
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            pairs,
            vec![
                pair("greedy", "random"),
                pair("ab:2", "greedy"),
                pair("step-0", "random"),
                pair("step-0", "greedy"),
                pair("step-0", "ab:2"),
                pair("step-5", "step-0"),
                pair("step-5", "random"),
                pair("step-5", "greedy"),
                pair("step-5", "ab:2"),
            ]
        );
        // Their records go to plain directory names.
        let paths = LadderPaths::new(Path::new("run"));
        assert_eq!(
            paths.records_dir("step-5", "ab:2"),
            Path::new("run/arena/games/step-5_vs_ab-2")
        );
    }

    #[test]
    fn ladder_plays_only_missing_games_and_rates_everyone() {
        let dir = tempfile::tempdir().unwrap();
        let paths = LadderPaths::new(dir.path());
        let names: Vec<String> = ["weak", "strong"].iter().map(|s| s.to_string()).collect();
        // A baseline: plays both checkpoints, has no step. Its settings hold a comma, which
        // games.csv stores as `;`: its games must still be found on the next run.
        let pairs = ladder_pairs(&names, "weak", &["fixed@a=1,b=2".to_string()]);
        let settings = MatchSettings {
            max_plies: 40,
            opening_plies: 1,
            parallel_games: 8,
            ..MatchSettings::default()
        };
        let mut make = |name: &str| -> Result<Box<dyn Player<Race>>, LadderError> {
            Ok(match name {
                "strong" => Box::new(Careful),
                _ => Box::new(RandomPlayer::named(name)),
            })
        };
        let played =
            play_missing_games(&paths, &pairs, 40, &settings, &race, &mut make, &mut ()).unwrap();
        assert_eq!(played, 3 * 40);
        // Second run: nothing left to play.
        let again =
            play_missing_games(&paths, &pairs, 40, &settings, &race, &mut make, &mut ()).unwrap();
        assert_eq!(again, 0);
        // A larger budget plays only the difference.
        let more =
            play_missing_games(&paths, &pairs, 50, &settings, &race, &mut make, &mut ()).unwrap();
        assert_eq!(more, 3 * 10);
        let rows = read_games_csv(&paths.games_csv()).unwrap();
        assert_eq!(rows.len(), 3 * 50);
        let ratings = rate_games(&rows, "weak", 1.0).unwrap();
        let strong = ratings.iter().find(|r| r.name == "strong").unwrap();
        assert!(strong.elo > 100.0, "{strong:?}");
        assert_eq!(ratings.iter().find(|r| r.name == "weak").unwrap().elo, 0.0);
        let steps = HashMap::from([("weak".to_string(), 0u64), ("strong".to_string(), 10)]);
        write_ladder_csv(&paths.ladder_csv(), &ladder_rows(&ratings, &steps)).unwrap();
        let csv = std::fs::read_to_string(paths.ladder_csv()).unwrap();
        assert!(csv.starts_with("name,step,elo,stderr,games,points\nweak,0,0.0,0.0,100,"));
        assert!(csv.contains("\nstrong,10,"));
        assert!(csv.contains("\nfixed@a=1;b=2,,"));
        let table = read_ladder_csv(&paths.ladder_csv()).unwrap().unwrap();
        let names: Vec<(&str, Option<u64>)> =
            table.iter().map(|r| (r.name.as_str(), r.step)).collect();
        assert_eq!(
            names,
            [
                ("weak", Some(0)),
                ("strong", Some(10)),
                ("fixed@a=1;b=2", None)
            ]
        );
    }
}
