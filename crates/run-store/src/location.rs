//! `--run` as the user wrote it: a local directory or the URL of a prefix in object storage.

use std::path::{Path, PathBuf};

use crate::{RemoteRun, StoreError};

/// The URL schemes a run can live under (`file://` goes through the store code too, which
/// makes it the quick way to try a multi-process run on one machine).
pub(crate) const SCHEMES: &[&str] = &[
    "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "file", "memory",
];

/// A run directory on this machine, or a run in object storage.
#[derive(Debug, Clone)]
pub enum RunTarget {
    Local(PathBuf),
    Remote(RemoteRun),
}

/// Whether `text` names a store (`scheme://…`) rather than a path. Anything with `://` is
/// meant as a URL, so an unknown scheme is an error rather than a directory named `s4:`.
pub fn is_store_url(text: &str) -> bool {
    text.contains("://")
}

impl RunTarget {
    /// Parses `--run`: a path stays a path; a URL opens its store (credentials from the
    /// environment; nothing is contacted yet).
    pub fn parse(run: &Path) -> Result<RunTarget, StoreError> {
        match run.to_str() {
            Some(text) if is_store_url(text) => Ok(RunTarget::Remote(RemoteRun::open(text)?)),
            _ => Ok(RunTarget::Local(run.to_path_buf())),
        }
    }

    /// The path of a local run, or an error telling the user to copy a stored run first.
    pub fn require_local(self) -> Result<PathBuf, StoreError> {
        match self {
            RunTarget::Local(dir) => Ok(dir),
            RunTarget::Remote(remote) => Err(StoreError::BadUrl {
                url: remote.url().to_string(),
                reason: format!(
                    "this command works on a local run directory; copy the run with \
                     `koshogi store pull {} DIR` first (docs/distributed.md)",
                    remote.url()
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_paths_and_urls_open_stores() {
        match RunTarget::parse(Path::new("runs/a")).unwrap() {
            RunTarget::Local(dir) => assert_eq!(dir, PathBuf::from("runs/a")),
            other => panic!("{other:?}"),
        }
        let dir = tempfile::tempdir().unwrap();
        let url = format!("file://{}", dir.path().display());
        match RunTarget::parse(Path::new(&url)).unwrap() {
            RunTarget::Remote(remote) => assert_eq!(remote.url(), url),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_schemes_and_bad_urls_are_clear_errors() {
        for bad in ["ftp://host/x", "s3://", "gs:///x", "file://relative/x"] {
            let error = RunTarget::parse(Path::new(bad)).unwrap_err().to_string();
            assert!(error.contains("is not a run location"), "{bad}: {error}");
        }
    }

    #[test]
    fn stored_runs_are_refused_by_local_only_commands() {
        let remote = RunTarget::parse(Path::new("memory://run")).unwrap();
        let error = remote.require_local().unwrap_err().to_string();
        assert!(
            error.contains("koshogi store pull memory://run DIR"),
            "{error}"
        );
    }
}
