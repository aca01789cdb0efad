//! Where a reader finds finished shards, behind one trait.
//!
//! The trainer used to read `<run>/shards` directly. Shards may also live in object storage
//! (written there by self-play on other machines, served by koshogi-run-store), so the trainer
//! lists and opens shards through a [`ShardSource`] and does not know which kind it has. Names,
//! not paths, cross the seam: a source resolves a name inside its own store and refuses
//! anything that is not a finished shard's name, so a name from a saved cursor or a remote
//! listing can never reach outside it.

use std::path::{Path, PathBuf};

use crate::error::ShardError;
use crate::naming::parse_shard_file_name;
use crate::reader::{list_shards, Shard};

/// Where a trainer finds replay shards: a local shard directory ([`LocalShardDir`]) or, through
/// koshogi-run-store, a prefix in object storage.
pub trait ShardSource: Send + Sync + std::fmt::Debug {
    /// File names of the finished shards (`shard-<seq>-<writer>.npz`), oldest first (sequence,
    /// then writer id; [`crate::finished_shard_names`] filters and orders a bare listing this
    /// way); anything that is not a finished shard name is left out.
    fn list(&self) -> Result<Vec<String>, ShardError>;
    /// Reads and verifies one shard by file name. A name that is not a finished shard's is
    /// [`ShardError::BadShardName`].
    fn open(&self, name: &str) -> Result<Shard, ShardError>;
    /// Where the shards are, for messages (a directory path or a URL without credentials).
    fn location(&self) -> String;
}

/// A local shard directory (the `shards/` of a run directory), read only.
///
/// Not [`crate::ShardDir`], which is the writers' handle: opening that one creates the
/// directory and deletes abandoned temporary files, which a reader must not do.
#[derive(Debug, Clone)]
pub struct LocalShardDir {
    dir: PathBuf,
}

impl LocalShardDir {
    /// Touches nothing: a directory that does not exist (yet) holds no shards.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `<run_dir>/shards`.
    pub fn for_run(run_dir: &Path) -> Self {
        Self::new(crate::naming::shards_dir(run_dir))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl ShardSource for LocalShardDir {
    fn list(&self) -> Result<Vec<String>, ShardError> {
        Ok(list_shards(&self.dir)?
            .into_iter()
            .filter_map(|file| Some(file.path.file_name()?.to_str()?.to_string()))
            .collect())
    }

    fn open(&self, name: &str) -> Result<Shard, ShardError> {
        if parse_shard_file_name(name).is_none() {
            return Err(ShardError::BadShardName(name.to_string()));
        }
        Shard::open(&self.dir.join(name))
    }

    fn location(&self) -> String {
        self.dir.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::placeholder_record;
    use crate::training_positions::ShardArrays;
    use crate::writer::ShardDir;
    use crate::{Provenance, BOARD_BYTES};

    fn one_position() -> ShardArrays {
        let mut arrays = ShardArrays::new();
        arrays
            .push(&placeholder_record([0; BOARD_BYTES], 1, 0))
            .unwrap();
        arrays
    }

    #[test]
    fn lists_finished_shards_oldest_first_and_opens_them_by_name() {
        let run = tempfile::tempdir().unwrap();
        let source = LocalShardDir::for_run(run.path());
        assert_eq!(
            source.list().unwrap(),
            Vec::<String>::new(),
            "no directory yet"
        );
        assert!(!source.dir().exists(), "a reader creates nothing");
        let writer = ShardDir::for_run(run.path()).unwrap();
        let first = writer
            .write_shard("w1", &Provenance::default(), &one_position())
            .unwrap();
        let second = writer
            .write_shard("w0", &Provenance::default(), &one_position())
            .unwrap();
        std::fs::write(source.dir().join("notes.txt"), b"not a shard").unwrap();
        std::fs::write(source.dir().join(".partial-w0-1-0.tmp"), b"").unwrap();
        let names = source.list().unwrap();
        let file_name = |p: &Path| p.file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(names, [file_name(&first.path), file_name(&second.path)]);
        let shard = source.open(&names[1]).unwrap();
        assert_eq!(shard.path(), second.path);
        assert_eq!(shard.len(), 1);
        assert_eq!(source.location(), source.dir().display().to_string());
    }

    #[test]
    fn names_that_are_not_shard_names_are_refused_before_touching_the_disk() {
        let root = tempfile::tempdir().unwrap();
        let shards = root.path().join("shards");
        std::fs::create_dir(&shards).unwrap();
        // Valid shards outside the directory, reachable by path tricks.
        let outside = ShardDir::open(root.path()).unwrap();
        let escaped = outside
            .write_shard("w0", &Provenance::default(), &one_position())
            .unwrap();
        let escaped_name = escaped.path.file_name().unwrap().to_str().unwrap();
        let source = LocalShardDir::new(&shards);
        for name in [
            "../x".to_string(),
            "a/b".to_string(),
            format!("../{escaped_name}"),
            format!("./{escaped_name}"),
            escaped.path.display().to_string(),
            String::new(),
            "..".to_string(),
        ] {
            match source.open(&name) {
                Err(ShardError::BadShardName(refused)) => assert_eq!(refused, name),
                other => panic!("{name:?}: {other:?}"),
            }
        }
        // A well-formed name that is not there is an I/O error naming the file.
        let missing = source.open(escaped_name).unwrap_err();
        assert!(matches!(missing, ShardError::Io { .. }), "{missing}");
    }
}
