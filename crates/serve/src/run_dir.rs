//! The files of a run directory the viewer reads: game records (self-play's `games/*.txt`, the
//! ladder's `arena/games/<a>_vs_<b>/from-<n>/*.txt`), checkpoints (`checkpoints/step-*`), TensorBoard logs
//! (`tb/`), the ladder table (`arena/ladder.csv`) and its picture (`arena/elo.svg`).
//!
//! Names coming from the page are checked before they touch the file system: a game is named by
//! its path relative to the run (`games/game-00ab.txt`), made only of plain components (letters,
//! digits, `_`, `-`, `.`, not starting with a dot) under `games/` or `arena/`, and must resolve to
//! a file inside the run (no `..`, no absolute paths, no symbolic link leading out) of at most
//! [`MAX_RECORD_BYTES`]. A checkpoint is named by its directory (`step-<digits>`), which, with its
//! model card and weights, must resolve inside the run too. What cannot be opened is not
//! listed either.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use koshogi_rules::game_record::MAX_RECORD_BYTES;
use koshogi_run_store::layout::{
    parse_checkpoint_dir_name, RunLayout, ARENA_DIR, ARENA_GAMES_DIR, GAMES_DIR,
};
use koshogi_run_store::local_checkpoints::list_checkpoints;
use serde::Serialize;

use crate::error::{ApiError, ServeError};

/// Deepest game record path accepted (`arena/games/<pair>/from-N/game-N.txt` has five).
const MAX_NAME_COMPONENTS: usize = 6;
/// Directory levels searched for records below `arena/games` (pair, then the `from-N` batch).
const ARENA_RECORD_DEPTH: usize = 3;

/// A run directory, canonicalised.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
}

/// One game record of the run, with the header tags the list shows.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GameEntry {
    /// Path relative to the run, `/`-separated: what the API takes as `name`.
    pub name: String,
    /// `selfplay` (under `games/`) or `arena` (under `arena/`).
    pub source: &'static str,
    pub black: String,
    pub white: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    pub termination: String,
    pub plies: Option<usize>,
    /// Seconds since the Unix epoch (newest games first in the list).
    pub modified: u64,
}

/// One checkpoint directory of the run.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CheckpointEntry {
    /// Directory name, e.g. `step-000001200` (what the API takes as `checkpoint`).
    pub name: String,
    pub step: u64,
}

impl RunDir {
    pub fn open(path: &Path) -> Result<RunDir, ServeError> {
        match path.canonicalize() {
            Ok(root) if root.is_dir() => Ok(RunDir { root }),
            _ => Err(ServeError::NoRunDir(path.to_path_buf())),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn tensorboard_dir(&self) -> PathBuf {
        RunLayout::new(&self.root).tensorboard_dir()
    }

    pub fn ladder_csv(&self) -> PathBuf {
        RunLayout::new(&self.root).ladder_csv()
    }

    /// The ladder's picture of progress.
    pub fn elo_svg(&self) -> PathBuf {
        RunLayout::new(&self.root).elo_svg()
    }

    /// Every game record, newest first (then by name).
    pub fn list_games(&self) -> Vec<GameEntry> {
        let mut games = Vec::new();
        let layout = RunLayout::new(&self.root);
        self.collect_games(&layout.games_dir(), GAMES_DIR, "selfplay", 1, &mut games);
        self.collect_games(
            &layout.arena_games_dir(),
            &format!("{ARENA_DIR}/{ARENA_GAMES_DIR}"),
            "arena",
            ARENA_RECORD_DEPTH,
            &mut games,
        );
        games.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.name.cmp(&b.name)));
        games
    }

    fn collect_games(
        &self,
        dir: &Path,
        prefix: &str,
        source: &'static str,
        depth: usize,
        out: &mut Vec<GameEntry>,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if !is_plain_component(&file_name) {
                continue;
            }
            // Links are not followed: one could lead out of the run (`game_path` refuses
            // them too, so a listed name is always one that can be opened).
            if entry.file_type().map_or(true, |t| t.is_symlink()) {
                continue;
            }
            let path = entry.path();
            let name = format!("{prefix}/{file_name}");
            if path.is_dir() && depth > 1 {
                self.collect_games(&path, &name, source, depth - 1, out);
            } else if path.is_file() && file_name.ends_with(".txt") {
                let metadata = entry.metadata();
                // Too large to be a record: `game_path` refuses it, so it is not offered.
                if metadata
                    .as_ref()
                    .map_or(true, |m| m.len() > MAX_RECORD_BYTES)
                {
                    continue;
                }
                let modified = metadata
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_secs());
                let tags = read_header_tags(&path);
                let tag = |key: &str| {
                    tags.iter()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default()
                };
                out.push(GameEntry {
                    name,
                    source,
                    black: tag("Black"),
                    white: tag("White"),
                    result: Some(tag("Result"))
                        .filter(|r| !r.is_empty())
                        .unwrap_or_else(|| "*".into()),
                    termination: tag("Termination"),
                    plies: tag("Plies").parse().ok(),
                    modified,
                });
            }
        }
    }

    /// The file of a game record named as in [`GameEntry::name`]; rejects anything else.
    pub fn game_path(&self, name: &str) -> Result<PathBuf, ApiError> {
        let invalid = || {
            ApiError::bad_request(format!(
                "invalid game name {name:?}: expected a record path inside the run such as games/game-0001.txt"
            ))
        };
        let components: Vec<&str> = name.split('/').collect();
        let under_games = components.first() == Some(&GAMES_DIR)
            || components.get(..2) == Some(&[ARENA_DIR, ARENA_GAMES_DIR][..]);
        if !under_games
            || components.len() > MAX_NAME_COMPONENTS
            || !components.iter().all(|c| is_plain_component(c))
            || !name.ends_with(".txt")
        {
            return Err(invalid());
        }
        let path = components
            .iter()
            .fold(self.root.clone(), |path, component| path.join(component));
        let resolved = path
            .canonicalize()
            .map_err(|_| ApiError::not_found(format!("no game record {name}")))?;
        if !resolved.starts_with(&self.root) || !resolved.is_file() {
            return Err(invalid());
        }
        let bytes = resolved.metadata().map_or(0, |m| m.len());
        if bytes > MAX_RECORD_BYTES {
            return Err(ApiError::unprocessable(format!(
                "{name} is {bytes} bytes, more than a game record can be ({MAX_RECORD_BYTES})"
            )));
        }
        Ok(resolved)
    }

    /// Whether `path` exists and resolves inside the run (a symbolic link may lead out).
    fn resolves_inside(&self, path: &Path) -> bool {
        path.canonicalize()
            .is_ok_and(|resolved| resolved.starts_with(&self.root))
    }

    /// The run's checkpoints by step (temporary directories and directories that lead out of
    /// the run are skipped; an unreadable `checkpoints/` lists none).
    pub fn list_checkpoints(&self) -> Vec<CheckpointEntry> {
        let dir = RunLayout::new(&self.root).checkpoints_dir();
        let checkpoints = list_checkpoints(&dir).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            Vec::new()
        });
        checkpoints
            .iter()
            .filter(|c| self.resolves_inside(&c.path))
            .map(|c| CheckpointEntry {
                name: c.name(),
                step: c.step,
            })
            .collect()
    }

    /// The model card of the checkpoint directory `name` (`step-<digits>`). The directory,
    /// the card and its weights must resolve inside the run: a symbolic link out of it (to
    /// another user's files, say) is refused, as for game records.
    pub fn checkpoint_card(&self, name: &str) -> Result<PathBuf, ApiError> {
        if parse_checkpoint_dir_name(name).is_none() {
            return Err(ApiError::bad_request(format!(
                "invalid checkpoint name {name:?}: expected step-<digits>"
            )));
        }
        let dir = RunLayout::new(&self.root).checkpoints_dir().join(name);
        if !dir.is_dir() {
            return Err(ApiError::not_found(format!("no checkpoint {name}")));
        }
        let leads_out = || {
            ApiError::bad_request(format!(
                "checkpoint {name} leads out of the run (a symbolic link); it is not served"
            ))
        };
        if !self.resolves_inside(&dir) {
            return Err(leads_out());
        }
        let card = koshogi_nn::checkpoint::resolve_card(&dir)
            .map_err(|e| ApiError::not_found(e.to_string()))?;
        let weights = koshogi_nn::checkpoint::read_card(&card)
            .ok()
            .and_then(|c| Some(card.parent()?.join(c.weights_file)));
        if !self.resolves_inside(&card)
            || weights.is_some_and(|w| w.exists() && !self.resolves_inside(&w))
        {
            return Err(leads_out());
        }
        Ok(card)
    }
}

/// A file or directory name without anything that could leave or hide in a directory.
fn is_plain_component(component: &str) -> bool {
    !component.is_empty()
        && !component.starts_with('.')
        && component
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The `[Name "value"]` lines at the top of a record (the moves are not read).
fn read_header_tags(path: &Path) -> Vec<(String, String)> {
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut tags = Vec::new();
    // Tags open a record: the first 64 KB hold them (a huge or endless file is not read).
    let head = std::io::Read::take(file, 64 * 1024);
    for line in std::io::BufReader::new(head).lines().map_while(Result::ok) {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') {
            if tags.is_empty() {
                continue;
            }
            break;
        }
        let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
            break;
        };
        if let Some((name, value)) = inner.split_once(' ') {
            tags.push((name.to_string(), value.trim().trim_matches('"').to_string()));
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with_files() -> (tempfile::TempDir, RunDir) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("games")).unwrap();
        std::fs::create_dir_all(root.join("arena/games/step-1_vs_step-0/from-000000")).unwrap();
        std::fs::create_dir_all(root.join("checkpoints/step-000000100")).unwrap();
        std::fs::create_dir_all(root.join("checkpoints/step-000000020")).unwrap();
        std::fs::create_dir_all(root.join("checkpoints/.tmp-step-000000200")).unwrap();
        std::fs::write(
            root.join("games/game-01.txt"),
            "[Event \"koshogi selfplay\"]\n[Black \"step 3\"]\n[White \"step 3\"]\n[Plies \"0\"]\n[Result \"1/2-1/2\"]\n[Termination \"max plies\"]\n\n1/2-1/2\n",
        )
        .unwrap();
        std::fs::write(
            root.join("arena/games/step-1_vs_step-0/from-000000/game-000000.txt"),
            "[Black \"step-1\"]\n[White \"step-0\"]\n\n*\n",
        )
        .unwrap();
        std::fs::write(root.join("games/notes.md"), "not a record").unwrap();
        std::fs::write(root.join("secret.txt"), "outside games/").unwrap();
        let run = RunDir::open(root).unwrap();
        (dir, run)
    }

    #[test]
    fn games_of_self_play_and_the_arena_are_listed_with_their_tags() {
        let (_dir, run) = run_with_files();
        let mut games = run.list_games();
        games.sort_by(|a, b| a.name.cmp(&b.name));
        let names: Vec<&str> = games.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "arena/games/step-1_vs_step-0/from-000000/game-000000.txt",
                "games/game-01.txt"
            ]
        );
        assert_eq!(games[0].source, "arena");
        assert_eq!(games[0].result, "*");
        assert_eq!(games[1].source, "selfplay");
        assert_eq!(games[1].black, "step 3");
        assert_eq!(games[1].result, "1/2-1/2");
        assert_eq!(games[1].termination, "max plies");
        assert_eq!(games[1].plies, Some(0));
        for game in &games {
            assert!(run.game_path(&game.name).is_ok(), "{}", game.name);
        }
    }

    #[test]
    fn game_names_that_leave_the_records_are_rejected() {
        let (dir, run) = run_with_files();
        let outside = dir.path().parent().unwrap().join("escape.txt");
        for name in [
            "../escape.txt",
            "games/../secret.txt",
            "games/../../escape.txt",
            "secret.txt",
            "/etc/passwd",
            outside.to_str().unwrap(),
            "games/.hidden.txt",
            "games//game-01.txt",
            "games\\..\\secret.txt",
            "games/notes.md",
            "arena/ladder.csv",
            "",
        ] {
            let err = run.game_path(name).unwrap_err();
            assert_eq!(err.status, 400, "{name}: {err}");
        }
        assert_eq!(run.game_path("games/missing.txt").unwrap_err().status, 404);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_out_of_the_run_is_rejected() {
        let (dir, run) = run_with_files();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.txt"), "[Result \"*\"]\n").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("x.txt"),
            dir.path().join("games/link.txt"),
        )
        .unwrap();
        assert_eq!(run.game_path("games/link.txt").unwrap_err().status, 400);
        // Nor is it listed, with the tags of a file outside the run.
        assert!(run.list_games().iter().all(|g| g.name != "games/link.txt"));
    }

    #[test]
    fn checkpoints_are_listed_by_step_and_bad_names_rejected() {
        let (_dir, run) = run_with_files();
        let steps: Vec<u64> = run.list_checkpoints().iter().map(|c| c.step).collect();
        assert_eq!(steps, [20, 100]);
        for name in [
            "../step-1",
            "step-",
            "step-1/../../x",
            "checkpoints",
            "step-12a",
        ] {
            assert_eq!(run.checkpoint_card(name).unwrap_err().status, 400, "{name}");
        }
        assert_eq!(run.checkpoint_card("step-999").unwrap_err().status, 404);
        // A directory without a model card.
        assert_eq!(
            run.checkpoint_card("step-000000100").unwrap_err().status,
            404
        );
    }

    #[test]
    fn a_missing_run_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = RunDir::open(&dir.path().join("nope")).unwrap_err();
        assert!(err.to_string().contains("no such directory"), "{err}");
    }
}
