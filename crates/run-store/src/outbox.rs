//! Files a process makes for others (replay shards, game records): each is sent with one
//! atomic put and then deleted locally, so the local directory only ever holds what has not
//! been sent yet. A file sent twice (a crash between the put and the delete) is the same
//! object written again, never a duplicate: names are unique per writer.

use std::path::Path;

use crate::layout::is_temporary;
use crate::{RemoteRun, StoreError};

/// What one pass sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sent {
    pub files: usize,
    pub bytes: u64,
}

/// Sends every finished file directly in `local_dir` (those `is_finished` accepts by name,
/// never temporary ones) to `key_dir/<name>`, deleting each local copy once it is stored.
/// An absent directory sends nothing.
pub fn send_and_remove(
    remote: &RemoteRun,
    local_dir: &Path,
    key_dir: &str,
    is_finished: impl Fn(&str) -> bool,
) -> Result<Sent, StoreError> {
    let entries = match std::fs::read_dir(local_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Sent::default()),
        Err(e) => return Err(StoreError::local("listing", local_dir)(e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(StoreError::local("listing", local_dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && !is_temporary(&name) && is_finished(&name) {
            names.push(name);
        }
    }
    // Oldest names first: shards carry their sequence number, so they arrive in order.
    names.sort();
    let mut sent = Sent::default();
    for name in names {
        let path = local_dir.join(&name);
        sent.bytes += remote.put_file(&format!("{key_dir}/{name}"), &path)?;
        std::fs::remove_file(&path).map_err(StoreError::local("removing", &path))?;
        sent.files += 1;
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_files_are_sent_once_and_leave_the_local_directory() {
        let remote = RemoteRun::open("memory://b/run").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shard-000000001-w0.npz"), b"a").unwrap();
        std::fs::write(dir.path().join("shard-000000000-w0.npz"), b"bb").unwrap();
        std::fs::write(dir.path().join(".partial-w0-1-0.tmp"), b"in progress").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"not a shard").unwrap();
        let is_shard = |name: &str| name.starts_with("shard-");
        let sent = send_and_remove(&remote, dir.path(), "shards", is_shard).unwrap();
        assert_eq!(sent, Sent { files: 2, bytes: 3 });
        let keys: Vec<String> = remote
            .list("shards")
            .unwrap()
            .into_iter()
            .map(|e| e.key)
            .collect();
        assert_eq!(
            keys,
            [
                "shards/shard-000000000-w0.npz",
                "shards/shard-000000001-w0.npz"
            ]
        );
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        assert_eq!(
            send_and_remove(&remote, dir.path(), "shards", is_shard).unwrap(),
            Sent::default()
        );
        let absent = dir.path().join("none");
        assert_eq!(
            send_and_remove(&remote, &absent, "x", is_shard).unwrap(),
            Sent::default()
        );
    }
}
