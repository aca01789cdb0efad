//! Crash-safe writes: a crash (or a full disk) leaves the old file or the new one, never a
//! part of one. Every file a role must be able to read back after a crash — a run's
//! configuration, `accepted.json`, game records, arena tables, exported models, files fetched
//! from a store — goes through [`write_atomic`]: a temporary file in the same directory, fsync,
//! rename over the target, fsync of the directory (the `atomic-write-file` crate).
//!
//! A checkpoint is several files, so its writer fills a temporary directory, syncs it with
//! [`sync_tree`], renames it into place and syncs the parent with [`sync_dir`].

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

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
    fn syncing_a_tree_covers_files_and_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), b"1").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        sync_tree(dir.path()).unwrap();
        sync_dir(dir.path()).unwrap();
        assert!(sync_tree(&dir.path().join("absent")).is_err());
    }
}
