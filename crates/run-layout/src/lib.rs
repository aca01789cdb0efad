//! koshogi-run-layout: the names inside a run, local or stored, and the paths of a local run
//! ([`RunLayout`]): one place for the paths every role agrees on.
//!
//! Why a crate of its own: the replay crate writes the shards and sits below the run store
//! (`koshogi-run-store`, which moves runs to object storage), so the layout has to sit below both.
//! The run store re-exports this crate as `koshogi_run_store::layout`.

use std::path::{Path, PathBuf};

/// The run configuration kept with the run (written once, by the first process).
pub const CONFIG_FILE: &str = "config.toml";
/// Replay shards (`shard-<sequence>-<writer>.npz`).
pub const SHARDS_DIR: &str = "shards";
/// Game records of self-play.
pub const GAMES_DIR: &str = "games";
/// Checkpoints, one directory each (`step-000001200/`).
pub const CHECKPOINTS_DIR: &str = "checkpoints";
/// TensorBoard event files.
pub const TENSORBOARD_DIR: &str = "tb";
/// The ladder's tables and games.
pub const ARENA_DIR: &str = "arena";
/// Inside `arena/`: the ladder's ratings (`koshogi_run_store::ladder_csv` reads and writes them).
pub const LADDER_CSV_FILE: &str = "ladder.csv";
/// Inside `arena/`: the ladder's picture of progress (Elo against training hours and steps,
/// an SVG the arena draws and `koshogi serve` shows).
pub const ELO_SVG_FILE: &str = "elo.svg";
/// Inside `arena/`: every ladder game, one line each (`koshogi_arena`'s ladder writes it).
pub const ARENA_GAMES_CSV_FILE: &str = "games.csv";
/// Inside `arena/`: the ladder's game records, one directory per pairing.
pub const ARENA_GAMES_DIR: &str = "games";
/// Inside `tb/`: self-play's event files.
pub const SELFPLAY_TENSORBOARD_DIR: &str = "selfplay";
/// Inside `tb/`: the ladder's event files.
pub const ARENA_TENSORBOARD_DIR: &str = "arena";
/// The evaluation reports (`koshogi eval`).
pub const EVAL_DIR: &str = "eval";
/// Inside a checkpoint directory: the model card (koshogi-nn's format) that players load.
pub const MODEL_CARD_FILE: &str = "model.json";
/// Inside `checkpoints/`: the gate's accepted checkpoint.
pub const ACCEPTED_FILE: &str = "accepted.json";
/// Inside `checkpoints/` in a store: the newest published checkpoint (written last).
pub const LATEST_POINTER: &str = "latest.json";
/// Inside a stored checkpoint directory: written after all its files, so a listing can tell
/// a complete checkpoint from one still uploading.
pub const PUBLISHED_MARKER: &str = "published.json";

const CHECKPOINT_PREFIX: &str = "step-";

/// The directory name of the checkpoint at `step` (zero-padded so names sort by step).
pub fn checkpoint_dir_name(step: u64) -> String {
    format!("{CHECKPOINT_PREFIX}{step:09}")
}

/// The step of a checkpoint directory name, or `None` for anything else.
pub fn parse_checkpoint_dir_name(name: &str) -> Option<u64> {
    parse_digits(name.strip_prefix(CHECKPOINT_PREFIX)?)
}

/// A step as people name a checkpoint: its number (`1200`) or its directory name
/// (`step-000001200`, any padding); `None` for anything else.
pub fn parse_step(text: &str) -> Option<u64> {
    parse_digits(text.strip_prefix(CHECKPOINT_PREFIX).unwrap_or(text))
}

/// A step written in decimal digits only (no sign, no spaces), `None` if empty or too large.
fn parse_digits(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The store key of the gate's choice, `checkpoints/accepted.json` (a stored run's keys are the
/// local run's relative paths).
pub fn accepted_key() -> String {
    format!("{CHECKPOINTS_DIR}/{ACCEPTED_FILE}")
}

/// Files that are being written (`.partial-…`, `.tmp…`) or hidden: never sent anywhere.
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') || name.ends_with(".tmp")
}

/// The paths of a run directory on the local file system, each built from the names above.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLayout {
    root: PathBuf,
}

impl RunLayout {
    /// The layout of the run directory `root` (nothing is read or created).
    pub fn new(root: impl Into<PathBuf>) -> RunLayout {
        RunLayout { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<run>/config.toml`.
    pub fn config_file(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// `<run>/shards/`.
    pub fn shards_dir(&self) -> PathBuf {
        self.root.join(SHARDS_DIR)
    }

    /// `<run>/games/`: self-play's game records.
    pub fn games_dir(&self) -> PathBuf {
        self.root.join(GAMES_DIR)
    }

    /// `<run>/checkpoints/`.
    pub fn checkpoints_dir(&self) -> PathBuf {
        self.root.join(CHECKPOINTS_DIR)
    }

    /// `<run>/checkpoints/accepted.json`: the checkpoint that passed its gate.
    pub fn accepted_file(&self) -> PathBuf {
        self.checkpoints_dir().join(ACCEPTED_FILE)
    }

    /// `<run>/tb/`.
    pub fn tensorboard_dir(&self) -> PathBuf {
        self.root.join(TENSORBOARD_DIR)
    }

    /// `<run>/tb/selfplay/`.
    pub fn selfplay_tensorboard_dir(&self) -> PathBuf {
        self.tensorboard_dir().join(SELFPLAY_TENSORBOARD_DIR)
    }

    /// `<run>/tb/arena/`.
    pub fn arena_tensorboard_dir(&self) -> PathBuf {
        self.tensorboard_dir().join(ARENA_TENSORBOARD_DIR)
    }

    /// `<run>/arena/`.
    pub fn arena_dir(&self) -> PathBuf {
        self.root.join(ARENA_DIR)
    }

    /// `<run>/arena/games/`.
    pub fn arena_games_dir(&self) -> PathBuf {
        self.arena_dir().join(ARENA_GAMES_DIR)
    }

    /// `<run>/arena/games.csv`.
    pub fn arena_games_csv(&self) -> PathBuf {
        self.arena_dir().join(ARENA_GAMES_CSV_FILE)
    }

    /// `<run>/arena/ladder.csv`.
    pub fn ladder_csv(&self) -> PathBuf {
        self.arena_dir().join(LADDER_CSV_FILE)
    }

    /// `<run>/arena/elo.svg`.
    pub fn elo_svg(&self) -> PathBuf {
        self.arena_dir().join(ELO_SVG_FILE)
    }

    /// `<run>/eval/`.
    pub fn eval_dir(&self) -> PathBuf {
        self.root.join(EVAL_DIR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_names_round_trip_and_sort() {
        assert_eq!(checkpoint_dir_name(1200), "step-000001200");
        assert_eq!(parse_checkpoint_dir_name("step-000001200"), Some(1200));
        assert!(checkpoint_dir_name(9) < checkpoint_dir_name(10));
        for other in [
            "step-",
            "step-12a",
            "steps-1",
            ".tmp-step-000000001-4",
            "latest.json",
        ] {
            assert_eq!(parse_checkpoint_dir_name(other), None, "{other}");
        }
    }

    #[test]
    fn a_step_is_named_by_its_number_or_its_directory() {
        assert_eq!(parse_step("1200"), Some(1200));
        assert_eq!(parse_step("step-000001200"), Some(1200));
        assert_eq!(parse_step("step-7"), Some(7));
        for other in [
            "last",
            "",
            "-1",
            "+5",
            "12 ",
            "step-",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_step(other), None, "{other:?}");
        }
    }

    #[test]
    fn a_layout_joins_the_names_under_its_root() {
        let run = RunLayout::new("/r");
        assert_eq!(run.root(), Path::new("/r"));
        assert_eq!(run.config_file(), Path::new("/r/config.toml"));
        assert_eq!(run.shards_dir(), Path::new("/r/shards"));
        assert_eq!(run.games_dir(), Path::new("/r/games"));
        assert_eq!(run.checkpoints_dir(), Path::new("/r/checkpoints"));
        assert_eq!(
            run.accepted_file(),
            Path::new("/r/checkpoints/accepted.json")
        );
        assert_eq!(run.tensorboard_dir(), Path::new("/r/tb"));
        assert_eq!(run.selfplay_tensorboard_dir(), Path::new("/r/tb/selfplay"));
        assert_eq!(run.arena_tensorboard_dir(), Path::new("/r/tb/arena"));
        assert_eq!(run.arena_dir(), Path::new("/r/arena"));
        assert_eq!(run.arena_games_dir(), Path::new("/r/arena/games"));
        assert_eq!(run.ladder_csv(), Path::new("/r/arena/ladder.csv"));
        assert_eq!(run.arena_games_csv(), Path::new("/r/arena/games.csv"));
        assert_eq!(run.eval_dir(), Path::new("/r/eval"));
        // A stored run's key is the local path relative to the root.
        assert_eq!(
            Path::new(&accepted_key()),
            run.accepted_file().strip_prefix("/r").unwrap()
        );
    }
}
