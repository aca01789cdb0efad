//! A role's local working directory for a run in object storage (its cache): where it is by
//! default (`$KOSHOGI_RUN_CACHE`, else the user's cache directory, then a readable, hashed name
//! of the run's URL and the role), and the lock that keeps a second process out of it.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use crate::RemoteRun;

/// Why a cache directory could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("creating the cache directory {}", dir.display())]
    Create {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("opening {}", path.display())]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "another process works in {}: give each process of a stored run its own \
         --worker-id or --cache",
        dir.display()
    )]
    Busy { dir: PathBuf },
}

/// A role's local working directory, locked for this process.
pub struct RoleCache {
    pub dir: PathBuf,
    _lock: std::fs::File,
}

impl RoleCache {
    /// Opens (creating) the cache directory of `role` for `remote` — `dir` if given, else the
    /// default one — and locks it.
    pub fn open(
        remote: &RemoteRun,
        role: &str,
        dir: Option<&Path>,
    ) -> Result<RoleCache, CacheError> {
        let dir = match dir {
            Some(dir) => dir.to_path_buf(),
            None => cache_root().join(run_slug(remote.url())).join(role),
        };
        std::fs::create_dir_all(&dir).map_err(|source| CacheError::Create {
            dir: dir.clone(),
            source,
        })?;
        let lock_path = dir.join(".lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|source| CacheError::Lock {
                path: lock_path.clone(),
                source,
            })?;
        // SAFETY: flock on a file descriptor this function owns; no memory is passed.
        let locked = unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if locked != 0 {
            return Err(CacheError::Busy { dir });
        }
        Ok(RoleCache { dir, _lock: lock })
    }
}

fn cache_root() -> PathBuf {
    if let Some(root) = std::env::var_os("KOSHOGI_RUN_CACHE") {
        return PathBuf::from(root);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("koshogi-zero").join("runs")
}

/// A directory name for a run URL: readable, and unique through a hash of the whole URL.
fn run_slug(url: &str) -> String {
    let readable: String = url
        .split("://")
        .nth(1)
        .unwrap_or(url)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(48)
        .collect();
    let hash = koshogi_files::digest::sha256_hex(url.as_bytes());
    format!("{readable}-{}", &hash[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_slugs_are_readable_and_keep_urls_apart() {
        let a = run_slug("s3://bucket/runs/a");
        assert!(a.starts_with("bucket_runs_a-"), "{a}");
        assert_eq!(a.len(), "bucket_runs_a-".len() + 8);
        assert_ne!(a, run_slug("s3://bucket/runs/a/"));
        assert_eq!(a, run_slug("s3://bucket/runs/a"));
    }

    #[test]
    fn a_second_process_is_kept_out_of_a_cache() {
        let dir = tempfile::tempdir().unwrap();
        let remote =
            RemoteRun::open(&format!("file://{}", dir.path().join("store").display())).unwrap();
        let cache = dir.path().join("cache");
        let first = RoleCache::open(&remote, "train", Some(&cache)).unwrap();
        assert_eq!(first.dir, cache);
        let error = RoleCache::open(&remote, "train", Some(&cache))
            .err()
            .unwrap();
        assert!(matches!(error, CacheError::Busy { .. }), "{error}");
        drop(first);
        RoleCache::open(&remote, "train", Some(&cache)).unwrap();
    }
}
