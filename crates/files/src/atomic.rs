//! Crash-safe writes: a crash (or a full disk) leaves the old file or the new one, never a
//! part of one. This module is the one implementation of "temporary file, fsync, rename, fsync
//! of the directory" in the workspace:
//! * [`write_atomic`] — bytes in memory (a run's configuration, `accepted.json`, model cards,
//!   game records, arena tables, files fetched from a store), through the `atomic-write-file`
//!   crate;
//! * [`TempFile`] — a file that a library writes itself given a path (libtorch saving weights
//!   or a TorchScript module), then committed in place;
//! * [`rename_into_place`] — a temporary file the caller wrote and synced, renamed to a name
//!   chosen only at the end (replay shards take their sequence number at that moment);
//! * [`sync_dir`], [`sync_tree`] — a checkpoint is several files, so its writer fills a
//!   temporary directory, syncs it with [`sync_tree`], renames it into place and syncs the
//!   parent with [`sync_dir`].

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use atomic_write_file::AtomicWriteFile;

/// Replaces `path` with `bytes` atomically: readers see the old file or the new one. Missing
/// parent directories are created first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    // The final rename would fail, and `atomic-write-file` (0.3) leaves its temporary file
    // behind when the rename of a commit fails.
    if path.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("{} is a directory", path.display()),
        ));
    }
    let mut file = AtomicWriteFile::open(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// A file written under a temporary name beside its target by code that only takes a path,
/// then renamed over the target by [`TempFile::commit`]; dropped uncommitted, it is removed.
///
/// The temporary name is `.tmp-<pid>-<n>-<target name>`: hidden, unique within the machine's
/// running processes, and ending in the target's name because libtorch picks a file format by
/// the extension (a `model.safetensors.tmp` got a libtorch archive, not safetensors).
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl TempFile {
    /// A temporary path in `target`'s directory (nothing is created yet).
    pub fn beside(target: &Path) -> TempFile {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        TempFile {
            path: target.with_file_name(format!(".tmp-{}-{n}-{name}", std::process::id())),
            target: target.to_path_buf(),
            committed: false,
        }
    }

    /// Where to write.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the written file to disk, renames it over the target and syncs the directory.
    /// On an error the temporary file is removed and the target left as it was (or, if only
    /// the directory sync failed, already replaced).
    pub fn commit(mut self) -> io::Result<()> {
        File::open(&self.path)?.sync_all()?;
        fs::rename(&self.path, &self.target)?;
        self.committed = true;
        sync_dir(parent_dir(&self.target))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.committed {
            // Best effort: it may never have been created, and a hidden leftover only wastes space.
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Renames `temp` (already written and fsynced by the caller) over `target`, then syncs the
/// directory so the new name survives a crash. Both must be in the same directory (rename is
/// atomic only within one file system).
pub fn rename_into_place(temp: &Path, target: &Path) -> io::Result<()> {
    fs::rename(temp, target)?;
    sync_dir(parent_dir(target))
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Flushes a directory's entry list (new names, renames) to disk. Filesystems that refuse to
/// sync a directory handle are tolerated: nothing more can be done there.
pub fn sync_dir(path: &Path) -> io::Result<()> {
    match File::open(path)?.sync_all() {
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(()),
        other => other,
    }
}

/// Syncs every regular file directly inside `dir`, then `dir` itself.
pub fn sync_tree(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            File::open(entry.path())?.sync_all()?;
        }
    }
    sync_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(names(dir.path()), ["config.toml"]);
    }

    #[test]
    fn missing_parent_directories_are_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arena/games/a_vs_b/game-000000.txt");
        write_atomic(&path, b"*\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"*\n");
    }

    #[test]
    fn a_failed_write_leaves_the_old_contents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("accepted.json");
        write_atomic(&path, br#"{"step":10}"#).unwrap();
        // A path below a regular file cannot be written (nor its parent created).
        assert!(write_atomic(&path.join("inner"), b"new").is_err());
        // Nor can a directory be replaced by a file.
        fs::create_dir(dir.path().join("checkpoints")).unwrap();
        assert!(write_atomic(&dir.path().join("checkpoints"), b"new").is_err());
        assert_eq!(fs::read(&path).unwrap(), br#"{"step":10}"#);
        assert_eq!(names(dir.path()), ["accepted.json", "checkpoints"]);
    }

    #[test]
    fn a_temp_file_ends_in_the_target_name_and_commits_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("model.safetensors");
        fs::write(&target, b"old").unwrap();
        let temp = TempFile::beside(&target);
        let name = temp
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            name.starts_with(".tmp-") && name.ends_with("-model.safetensors"),
            "{name}"
        );
        assert_eq!(temp.path().parent(), target.parent());
        fs::write(temp.path(), b"new").unwrap();
        temp.commit().unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(names(dir.path()), ["model.safetensors"]);
    }

    #[test]
    fn an_uncommitted_or_failed_temp_file_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("model.pt");
        {
            let temp = TempFile::beside(&target);
            fs::write(temp.path(), b"half").unwrap();
        }
        // Never created: dropping is fine too.
        drop(TempFile::beside(&target));
        assert!(names(dir.path()).is_empty());
        // Committing what was never written fails and leaves nothing behind.
        assert!(TempFile::beside(&target).commit().is_err());
        // A directory in the way of the rename: the temporary goes, the directory stays.
        fs::create_dir(&target).unwrap();
        let temp = TempFile::beside(&target);
        fs::write(temp.path(), b"x").unwrap();
        assert!(temp.commit().is_err());
        assert_eq!(names(dir.path()), ["model.pt"]);
        assert!(target.is_dir());
    }

    #[test]
    fn rename_into_place_replaces_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let temp = dir.path().join(".partial");
        let target = dir.path().join("shard-000000001-w0.npz");
        fs::write(&temp, b"shard").unwrap();
        rename_into_place(&temp, &target).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"shard");
        assert_eq!(names(dir.path()), ["shard-000000001-w0.npz"]);
        assert!(rename_into_place(&temp, &target).is_err());
    }

    #[test]
    fn syncing_a_tree_covers_files_and_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), b"1").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        sync_tree(dir.path()).unwrap();
        sync_dir(dir.path()).unwrap();
        assert!(sync_tree(&dir.path().join("absent")).is_err());
    }
}
