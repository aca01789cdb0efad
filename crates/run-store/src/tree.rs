//! Directories copied as they are: TensorBoard events, the arena's tables and games,
//! evaluation reports, `accepted.json`. A file is sent again only when its size or
//! modification time changed; a file is fetched only when the local copy's size differs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::layout::is_temporary;
use crate::{RemoteRun, StoreError};

/// Directory levels followed below a copied directory (the run's trees are shallow; this
/// bounds a walk through a symlink loop or a hostile tree).
const MAX_DEPTH: usize = 6;

/// What has been sent of a local tree, so unchanged files are not sent again.
#[derive(Debug, Default, Clone)]
pub struct SentFiles {
    seen: HashMap<PathBuf, (u64, SystemTime)>,
}

/// Sends the files under `local_root/dir` that are new or changed since the last call with the
/// same `sent` to the same keys under the run; returns how many were sent.
pub fn push_changed(
    remote: &RemoteRun,
    local_root: &Path,
    dir: &str,
    sent: &mut SentFiles,
) -> Result<usize, StoreError> {
    let mut files = Vec::new();
    collect_files(&local_root.join(dir), dir, 0, &mut files)?;
    let mut count = 0;
    for (path, key) in files {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue; // removed meanwhile
        };
        let stamp = (
            meta.len(),
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        );
        if sent.seen.get(&path) == Some(&stamp) {
            continue;
        }
        remote.put_file(&key, &path)?;
        sent.seen.insert(path, stamp);
        count += 1;
    }
    Ok(count)
}

/// The regular files under `dir` (not temporary ones), each with its key `key/…`.
pub(crate) fn collect_files(
    dir: &Path,
    key: &str,
    depth: usize,
    out: &mut Vec<(PathBuf, String)>,
) -> Result<(), StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::local("listing", dir)(e)),
    };
    for entry in entries {
        let entry = entry.map_err(StoreError::local("listing", dir))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if is_temporary(&name) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let child_key = format!("{key}/{name}");
        if kind.is_file() {
            out.push((entry.path(), child_key));
        } else if kind.is_dir() && depth < MAX_DEPTH {
            collect_files(&entry.path(), &child_key, depth + 1, out)?;
        }
    }
    Ok(())
}

/// Fetches every object under `dir` (keys `skip` refuses excepted) into `local_root`, unless
/// a local file of the same size is there; returns how many were fetched.
pub fn pull(
    remote: &RemoteRun,
    dir: &str,
    local_root: &Path,
    skip: impl Fn(&str) -> bool,
) -> Result<usize, StoreError> {
    let mut count = 0;
    for entry in remote.list(dir)? {
        if skip(&entry.key) || entry.key.split('/').any(is_temporary) {
            continue;
        }
        let path = entry
            .key
            .split('/')
            .fold(local_root.to_path_buf(), |path, part| path.join(part));
        if std::fs::metadata(&path).is_ok_and(|m| m.len() == entry.size) {
            continue;
        }
        if remote.download(&entry.key, &path)? {
            count += 1;
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_files_are_sent_again_and_pulled_back() {
        let remote = RemoteRun::open("memory://b/run").unwrap();
        let local = tempfile::tempdir().unwrap();
        let arena = local.path().join("arena");
        std::fs::create_dir_all(arena.join("games")).unwrap();
        std::fs::write(arena.join("ladder.csv"), b"a,b\n").unwrap();
        std::fs::write(arena.join("games/game-000001.txt"), b"record").unwrap();
        std::fs::write(arena.join(".ladder.csv.tmp-1"), b"half").unwrap();
        let mut sent = SentFiles::default();
        assert_eq!(
            push_changed(&remote, local.path(), "arena", &mut sent).unwrap(),
            2
        );
        assert_eq!(
            push_changed(&remote, local.path(), "arena", &mut sent).unwrap(),
            0
        );
        std::fs::write(arena.join("ladder.csv"), b"a,b\n1,2\n").unwrap();
        assert_eq!(
            push_changed(&remote, local.path(), "arena", &mut sent).unwrap(),
            1
        );

        let other = tempfile::tempdir().unwrap();
        assert_eq!(pull(&remote, "arena", other.path(), |_| false).unwrap(), 2);
        assert_eq!(
            std::fs::read(other.path().join("arena/ladder.csv")).unwrap(),
            b"a,b\n1,2\n"
        );
        assert_eq!(pull(&remote, "arena", other.path(), |_| false).unwrap(), 0);
        let skip_games = |key: &str| key.contains("/games/");
        let third = tempfile::tempdir().unwrap();
        assert_eq!(pull(&remote, "arena", third.path(), skip_games).unwrap(), 1);
    }
}
