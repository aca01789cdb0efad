//! Durable, all-or-nothing writes.
//!
//! A checkpoint that a crash left half-written must never be picked up by `--resume` or by a
//! self-play worker. Single files go through `atomic-write-file` (temporary file in the same
//! directory, fsync, rename, directory fsync). A checkpoint is several files, so it is written
//! into a temporary directory whose files are synced with [`sync_tree`] before the directory is
//! renamed into place and its parent synced with [`sync_dir`] (see
//! [`crate::checkpoint_manager`]).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

use atomic_write_file::AtomicWriteFile;

/// Flushes a file's contents to disk.
pub fn sync_file(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
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
            sync_file(&entry.path())?;
        }
    }
    sync_dir(dir)
}

/// Replaces `path` with `bytes` atomically: readers see the old file or the new one.
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicWriteFile::open(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        write_file_atomic(&path, b"first").unwrap();
        write_file_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("config.toml")]);
    }

    #[test]
    fn syncing_a_tree_covers_files_and_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), b"1").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        sync_tree(dir.path()).unwrap();
        assert!(sync_tree(&dir.path().join("absent")).is_err());
    }
}
