//! The names inside a run, local or stored: one place for the paths every role agrees on.

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
/// Inside `arena/`: the ladder's ratings ([`crate::ladder_csv`]).
pub const LADDER_CSV_FILE: &str = "ladder.csv";
/// Inside `arena/`: the ladder's picture of progress (Elo against training hours and steps,
/// an SVG the arena draws and `koshogi serve` shows).
pub const ELO_SVG_FILE: &str = "elo.svg";
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
    let digits = name.strip_prefix(CHECKPOINT_PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Files that are being written (`.partial-…`, `.tmp…`) or hidden: never sent anywhere.
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') || name.ends_with(".tmp")
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
}
