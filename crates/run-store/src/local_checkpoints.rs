//! The complete checkpoints of a local `checkpoints/` directory, and the gate's choice.
//!
//! A checkpoint is a directory named `step-<step>` ([`crate::layout::checkpoint_dir_name`]);
//! its writer (koshogi-train's `CheckpointManager`, or a fetch from a store) fills a temporary
//! directory and renames it into place, so a directory with that name is always complete and
//! temporary ones (`.tmp-…`, `.trash-…`) are never listed. Self-play, the arena, the gate and
//! the viewer read checkpoints through this module.
//!
//! With gating, `accepted.json` ([`ACCEPTED_FILE`]) names the checkpoint that passed its gate
//! match: self-play plays that one instead of the newest, and pruning never removes it.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::layout::{parse_checkpoint_dir_name, ACCEPTED_FILE};
use koshogi_files::atomic::write_atomic;
use koshogi_files::small_file::read_small_text;

/// Listing a checkpoint directory or writing `accepted.json` failed.
#[derive(Debug, thiserror::Error)]
#[error("{action} {path}: {source}")]
pub struct LocalCheckpointError {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: io::Error,
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> LocalCheckpointError {
    let path = path.to_path_buf();
    move |source| LocalCheckpointError {
        action,
        path,
        source,
    }
}

/// One complete checkpoint on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointEntry {
    pub step: u64,
    pub path: PathBuf,
}

impl CheckpointEntry {
    /// The directory name, e.g. `step-000001200` (the arena's name for the checkpoint).
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| crate::layout::checkpoint_dir_name(self.step))
    }
}

/// The complete checkpoints in `dir`, oldest first (an absent directory has none).
pub fn list_checkpoints(dir: &Path) -> Result<Vec<CheckpointEntry>, LocalCheckpointError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("listing", dir)(e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_error("listing", dir))?;
        let name = entry.file_name();
        let Some(step) = name.to_str().and_then(parse_checkpoint_dir_name) else {
            continue;
        };
        if entry.path().is_dir() {
            found.push(CheckpointEntry {
                step,
                path: entry.path(),
            });
        }
    }
    found.sort_by_key(|c| c.step);
    Ok(found)
}

/// The newest complete checkpoint in `dir`, if any.
pub fn latest_checkpoint(dir: &Path) -> Result<Option<CheckpointEntry>, LocalCheckpointError> {
    Ok(list_checkpoints(dir)?.pop())
}

#[derive(Debug, Serialize, Deserialize)]
struct Accepted {
    step: u64,
}

/// `accepted.json` is `{"step":N}`: anything larger is not one (and is not read whole).
const MAX_ACCEPTED_BYTES: u64 = 64 << 10;

/// The step of the accepted (gated) checkpoint in `dir`, if one was accepted. An unreadable
/// file counts as none, with a warning.
pub fn read_accepted(dir: &Path) -> Option<u64> {
    let path = dir.join(ACCEPTED_FILE);
    let text = match read_small_text(&path, MAX_ACCEPTED_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!("ignoring unreadable {}: {e}", path.display());
            return None;
        }
    };
    match serde_json::from_str::<Accepted>(&text) {
        Ok(accepted) => Some(accepted.step),
        Err(e) => {
            tracing::warn!("ignoring unreadable {}: {e}", path.display());
            None
        }
    }
}

/// Marks the checkpoint at `step` in `dir` as accepted (atomically).
pub fn write_accepted(dir: &Path, step: u64) -> Result<(), LocalCheckpointError> {
    let path = dir.join(ACCEPTED_FILE);
    let text = serde_json::to_string(&Accepted { step }).expect("a step serialises");
    write_atomic(&path, text.as_bytes()).map_err(io_error("writing", &path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::checkpoint_dir_name;
    use std::fs;

    #[test]
    fn names_sort_by_step_and_only_complete_directories_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        for step in [1200u64, 300, 45_000] {
            fs::create_dir(dir.path().join(checkpoint_dir_name(step))).unwrap();
        }
        fs::create_dir(dir.path().join(".tmp-step-000009999-1")).unwrap();
        fs::create_dir(dir.path().join(".trash-step-000000100-1")).unwrap();
        fs::create_dir(dir.path().join("step-abc")).unwrap();
        fs::write(
            dir.path().join("step-000000007"),
            b"a file, not a checkpoint",
        )
        .unwrap();
        let listed = list_checkpoints(dir.path()).unwrap();
        let steps: Vec<u64> = listed.iter().map(|c| c.step).collect();
        assert_eq!(steps, vec![300, 1200, 45_000]);
        assert_eq!(listed[0].name(), "step-000000300");
        assert_eq!(listed[0].path, dir.path().join("step-000000300"));
        assert_eq!(latest_checkpoint(dir.path()).unwrap().unwrap().step, 45_000);
        assert!(list_checkpoints(&dir.path().join("absent"))
            .unwrap()
            .is_empty());
        assert_eq!(latest_checkpoint(&dir.path().join("absent")).unwrap(), None);
    }

    #[test]
    fn a_listing_that_fails_names_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("checkpoints");
        fs::write(&file, b"not a directory").unwrap();
        let error = list_checkpoints(&file).unwrap_err();
        assert_eq!(error.path, file);
        assert!(error.to_string().starts_with("listing "), "{error}");
    }

    #[test]
    fn the_accepted_step_round_trips_and_an_unreadable_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_accepted(dir.path()), None);
        write_accepted(dir.path(), 10).unwrap();
        assert_eq!(read_accepted(dir.path()), Some(10));
        write_accepted(dir.path(), 30).unwrap();
        assert_eq!(read_accepted(dir.path()), Some(30));
        fs::write(dir.path().join(ACCEPTED_FILE), "not json").unwrap();
        assert_eq!(read_accepted(dir.path()), None);
    }

    #[test]
    fn an_accepted_file_over_its_bound_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        // Valid JSON, but far larger than any accepted.json: refused before it is parsed (a
        // device such as /dev/zero in its place would otherwise be read without end).
        let padded = format!("{}{{\"step\":7}}", " ".repeat(MAX_ACCEPTED_BYTES as usize));
        fs::write(dir.path().join(ACCEPTED_FILE), padded).unwrap();
        assert_eq!(read_accepted(dir.path()), None);
        write_accepted(dir.path(), 7).unwrap();
        assert_eq!(read_accepted(dir.path()), Some(7));
    }
}
