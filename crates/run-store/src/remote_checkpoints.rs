//! Checkpoints in a store: published all at once, fetched whole.
//!
//! A checkpoint is several files (weights, optimiser, trainer state, model card), uploaded one
//! by one; a reader must never take a half-uploaded one. So the publisher uploads every file
//! of `checkpoints/step-N/`, then `step-N/published.json` (names and sizes), then moves the
//! `checkpoints/latest.json` pointer. Readers take only directories with a marker and check
//! every size against it; workers poll the pointer (one small GET per poll). A fetched
//! checkpoint lands in the local `checkpoints/` the way the trainer writes one: into a
//! `.tmp-…` directory that is renamed when complete.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::layout::{
    checkpoint_dir_name, is_temporary, parse_checkpoint_dir_name, CHECKPOINTS_DIR, LATEST_POINTER,
    PUBLISHED_MARKER,
};
use crate::remote::MAX_OBJECT_BYTES;
use crate::{RemoteRun, StoreError};
use koshogi_files::atomic::write_atomic;

/// Small JSON objects (markers, pointers) are never read past this size.
const MAX_POINTER_BYTES: u64 = 1 << 20;
/// A checkpoint has a handful of files; a marker listing more is not ours.
const MAX_FILES: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Marker {
    step: u64,
    files: Vec<MarkerFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MarkerFile {
    name: String,
    size: u64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pointer {
    step: u64,
}

fn key(step: u64, file: &str) -> String {
    format!("{CHECKPOINTS_DIR}/{}/{file}", checkpoint_dir_name(step))
}

fn bad(remote: &RemoteRun, key: &str, reason: impl Into<String>) -> StoreError {
    StoreError::BadObject {
        url: remote.url().to_string(),
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// Uploads the checkpoint in `local_dir` as step `step`, then its marker, then moves the
/// latest pointer forward (never back: publishing old history keeps the newest). Returns the
/// bytes uploaded.
pub fn publish(remote: &RemoteRun, local_dir: &Path, step: u64) -> Result<u64, StoreError> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(local_dir).map_err(StoreError::local("listing", local_dir))? {
        let entry = entry.map_err(StoreError::local("listing", local_dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry
            .file_type()
            .map_err(StoreError::local("reading", &entry.path()))?
            .is_file();
        if is_file && !is_temporary(&name) && name != PUBLISHED_MARKER {
            files.push(name);
        }
    }
    files.sort();
    let mut marker = Marker {
        step,
        files: Vec::new(),
    };
    let mut bytes = 0;
    for name in files {
        let size = remote.put_file(&key(step, &name), &local_dir.join(&name))?;
        bytes += size;
        marker.files.push(MarkerFile { name, size });
    }
    let marker_json = serde_json::to_vec_pretty(&marker).expect("a marker serialises");
    remote.put(&key(step, PUBLISHED_MARKER), marker_json)?;
    let newest = latest(remote).ok().flatten();
    if newest.is_none_or(|newest| newest <= step) {
        let pointer = serde_json::to_vec(&Pointer { step }).expect("a pointer serialises");
        remote.put(&format!("{CHECKPOINTS_DIR}/{LATEST_POINTER}"), pointer)?;
    }
    Ok(bytes)
}

/// The step the latest pointer names, if one was published.
pub fn latest(remote: &RemoteRun) -> Result<Option<u64>, StoreError> {
    let pointer_key = format!("{CHECKPOINTS_DIR}/{LATEST_POINTER}");
    let Some(bytes) = remote.get(&pointer_key, MAX_POINTER_BYTES)? else {
        return Ok(None);
    };
    let pointer: Pointer = serde_json::from_slice(&bytes).map_err(|e| {
        bad(
            remote,
            &pointer_key,
            format!("not a checkpoint pointer: {e}"),
        )
    })?;
    Ok(Some(pointer.step))
}

/// The steps of every complete (marked) checkpoint in the store, and of the directories
/// without a marker (uploads in progress, or abandoned by a crash).
pub fn list(remote: &RemoteRun) -> Result<(BTreeSet<u64>, BTreeSet<u64>), StoreError> {
    let mut seen = BTreeSet::new();
    let mut complete = BTreeSet::new();
    for entry in remote.list(CHECKPOINTS_DIR)? {
        let mut parts = entry.key.split('/').skip(1);
        let (Some(dir), Some(file), None) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Some(step) = parse_checkpoint_dir_name(dir) else {
            continue;
        };
        seen.insert(step);
        if file == PUBLISHED_MARKER {
            complete.insert(step);
        }
    }
    let incomplete = seen.difference(&complete).copied().collect();
    Ok((complete, incomplete))
}

/// Downloads the published checkpoint `step` into `local_checkpoints/step-N/` (complete or
/// not at all) unless it is already there; returns its directory.
pub fn fetch(
    remote: &RemoteRun,
    step: u64,
    local_checkpoints: &Path,
) -> Result<PathBuf, StoreError> {
    let final_dir = local_checkpoints.join(checkpoint_dir_name(step));
    if final_dir.is_dir() {
        return Ok(final_dir);
    }
    let marker_key = key(step, PUBLISHED_MARKER);
    let bytes = remote.get(&marker_key, MAX_POINTER_BYTES)?.ok_or_else(|| {
        bad(
            remote,
            &marker_key,
            "missing: the checkpoint is not published",
        )
    })?;
    let marker: Marker = serde_json::from_slice(&bytes)
        .map_err(|e| bad(remote, &marker_key, format!("not a checkpoint marker: {e}")))?;
    if marker.step != step || marker.files.is_empty() || marker.files.len() > MAX_FILES {
        return Err(bad(
            remote,
            &marker_key,
            format!(
                "names step {} with {} files",
                marker.step,
                marker.files.len()
            ),
        ));
    }
    let temp = local_checkpoints.join(format!(
        ".tmp-{}-fetch-{}",
        checkpoint_dir_name(step),
        std::process::id()
    ));
    if temp.exists() {
        std::fs::remove_dir_all(&temp).map_err(StoreError::local("removing", &temp))?;
    }
    std::fs::create_dir_all(&temp).map_err(StoreError::local("creating", &temp))?;
    let filled = (|| {
        for file in &marker.files {
            let name = &file.name;
            if name.contains('/') || is_temporary(name) || name == PUBLISHED_MARKER {
                return Err(bad(remote, &marker_key, format!("lists the file `{name}`")));
            }
            let file_key = key(step, name);
            let data = remote
                .get(&file_key, MAX_OBJECT_BYTES)?
                .ok_or_else(|| bad(remote, &file_key, "missing, though the marker lists it"))?;
            if data.len() as u64 != file.size {
                return Err(bad(
                    remote,
                    &file_key,
                    format!("{} bytes, the marker says {}", data.len(), file.size),
                ));
            }
            let path = temp.join(name);
            write_atomic(&path, &data).map_err(StoreError::local("writing", &path))?;
        }
        Ok(())
    })();
    if let Err(e) = filled {
        let _ = std::fs::remove_dir_all(&temp);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&temp, &final_dir) {
        let _ = std::fs::remove_dir_all(&temp);
        if !final_dir.is_dir() {
            return Err(StoreError::local("renaming", &temp)(e));
        }
    }
    Ok(final_dir)
}

/// Removes a stored checkpoint: the marker first, so no reader starts on it, then its files.
pub fn remove(remote: &RemoteRun, step: u64) -> Result<(), StoreError> {
    remote.delete(&key(step, PUBLISHED_MARKER))?;
    let dir = format!("{CHECKPOINTS_DIR}/{}", checkpoint_dir_name(step));
    for entry in remote.list(&dir)? {
        remote.delete(&entry.key)?;
    }
    Ok(())
}

/// Removes published checkpoints outside `keep`, and abandoned uploads older than the newest
/// published checkpoint; returns the steps removed.
pub fn prune(remote: &RemoteRun, keep: &BTreeSet<u64>) -> Result<Vec<u64>, StoreError> {
    let (complete, incomplete) = list(remote)?;
    let newest = complete.last().copied();
    let mut removed = Vec::new();
    for step in complete.iter().filter(|s| !keep.contains(s)) {
        remove(remote, *step)?;
        removed.push(*step);
    }
    for step in incomplete
        .iter()
        .filter(|s| newest.is_some_and(|n| **s < n))
    {
        remove(remote, *step)?;
        removed.push(*step);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(dir: &Path, step: u64) -> PathBuf {
        let path = dir.join(checkpoint_dir_name(step));
        std::fs::create_dir_all(&path).unwrap();
        std::fs::write(path.join("model.safetensors"), vec![step as u8; 100]).unwrap();
        std::fs::write(
            path.join("trainer_state.json"),
            format!("{{\"step\":{step}}}"),
        )
        .unwrap();
        std::fs::write(path.join(".partial.tmp"), b"never sent").unwrap();
        path
    }

    #[test]
    fn a_published_checkpoint_is_fetched_whole_and_the_pointer_only_moves_forward() {
        let remote = RemoteRun::open("memory://b/run").unwrap();
        let trainer = tempfile::tempdir().unwrap();
        assert_eq!(latest(&remote).unwrap(), None);
        publish(&remote, &checkpoint(trainer.path(), 20), 20).unwrap();
        publish(&remote, &checkpoint(trainer.path(), 10), 10).unwrap();
        assert_eq!(latest(&remote).unwrap(), Some(20));
        assert_eq!(list(&remote).unwrap().0, BTreeSet::from([10, 20]));

        let worker = tempfile::tempdir().unwrap();
        let fetched = fetch(&remote, 20, worker.path()).unwrap();
        assert_eq!(fetched, worker.path().join("step-000000020"));
        assert_eq!(
            std::fs::read(fetched.join("model.safetensors")).unwrap(),
            vec![20u8; 100]
        );
        assert!(!fetched.join(".partial.tmp").exists());
        assert!(!fetched.join(PUBLISHED_MARKER).exists());
    }

    #[test]
    fn an_unmarked_or_damaged_checkpoint_is_never_taken() {
        let remote = RemoteRun::open("memory://b/run").unwrap();
        let trainer = tempfile::tempdir().unwrap();
        publish(&remote, &checkpoint(trainer.path(), 5), 5).unwrap();
        // An upload in progress: files but no marker.
        remote
            .put("checkpoints/step-000000007/model.safetensors", vec![1; 3])
            .unwrap();
        let (complete, incomplete) = list(&remote).unwrap();
        assert_eq!(
            (complete, incomplete),
            (BTreeSet::from([5]), BTreeSet::from([7]))
        );
        let worker = tempfile::tempdir().unwrap();
        assert!(fetch(&remote, 7, worker.path()).is_err());
        // A file cut short after the marker was written.
        remote
            .put("checkpoints/step-000000005/model.safetensors", vec![1; 3])
            .unwrap();
        let error = fetch(&remote, 5, worker.path()).unwrap_err().to_string();
        assert!(error.contains("the marker says 100"), "{error}");
        assert!(!worker.path().join("step-000000005").exists());
        // A hostile marker naming a path outside the checkpoint.
        remote
            .put(
                "checkpoints/step-000000005/published.json",
                br#"{"step":5,"files":[{"name":"../../evil","size":1}]}"#.to_vec(),
            )
            .unwrap();
        assert!(fetch(&remote, 5, worker.path()).is_err());
        assert_eq!(std::fs::read_dir(worker.path()).unwrap().count(), 0);
    }

    #[test]
    fn pruning_keeps_what_it_is_told_and_clears_abandoned_uploads() {
        let remote = RemoteRun::open("memory://b/run").unwrap();
        let trainer = tempfile::tempdir().unwrap();
        for step in [1, 2, 3] {
            publish(&remote, &checkpoint(trainer.path(), step), step).unwrap();
        }
        remote
            .put("checkpoints/step-000000002/extra.bin", vec![0])
            .unwrap();
        remote
            .delete("checkpoints/step-000000002/published.json")
            .unwrap();
        remote
            .put("checkpoints/step-000000009/partial", vec![0])
            .unwrap();
        let removed = prune(&remote, &BTreeSet::from([3])).unwrap();
        assert_eq!(removed, vec![1, 2]);
        let keys: Vec<String> = remote
            .list("checkpoints")
            .unwrap()
            .into_iter()
            .map(|e| e.key)
            .collect();
        assert!(
            keys.iter().all(|k| k.contains("step-000000003")
                || k.contains("step-000000009")
                || k.ends_with(LATEST_POINTER)),
            "{keys:?}"
        );
    }
}
