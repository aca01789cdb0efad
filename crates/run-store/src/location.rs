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

/// The scheme of a text that starts like a store URL but lacks its `//` (`file:x`,
/// `s3:bucket/run`): meant as a URL, it would otherwise become a directory named `file:x` in
/// the working directory.
fn scheme_without_slashes(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once(':')?;
    SCHEMES
        .iter()
        .any(|known| known.eq_ignore_ascii_case(scheme))
        .then_some(scheme)
}

/// Refuses the filesystem root as a run directory: a run writes `config.toml`,
/// `checkpoints/`, `tb/` and more into its directory, which must not be `/` (however it is
/// spelled: `/`, `/..`, `file:///`).
pub(crate) fn refuse_filesystem_root(path: &Path, shown: &str) -> Result<(), StoreError> {
    let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if resolved.has_root() && resolved.parent().is_none() {
        return Err(StoreError::BadUrl {
            url: shown.to_string(),
            reason: "the filesystem root cannot hold a run (it would write config.toml, \
                     checkpoints/ and tb/ into it); name a directory for the run, e.g. \
                     runs/r1 or file:///srv/runs/r1"
                .into(),
        });
    }
    Ok(())
}

impl RunTarget {
    /// Parses `--run`: a path stays a path; a URL opens its store (credentials from the
    /// environment; nothing is contacted yet). A store scheme without `//` (`file:x`) and the
    /// filesystem root are refused.
    pub fn parse(run: &Path) -> Result<RunTarget, StoreError> {
        let text = run.to_str();
        if let Some(text) = text.filter(|text| is_store_url(text)) {
            return Ok(RunTarget::Remote(RemoteRun::open(text)?));
        }
        if let Some(scheme) = text.and_then(scheme_without_slashes) {
            let text = text.unwrap_or_default();
            return Err(StoreError::BadUrl {
                url: text.to_string(),
                reason: format!(
                    "a store URL needs `{scheme}://` (file:///absolute/path/to/run, \
                     s3://bucket/prefix); for a local directory with this name, write ./{text}"
                ),
            });
        }
        refuse_filesystem_root(run, &run.display().to_string())?;
        Ok(RunTarget::Local(run.to_path_buf()))
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

    /// `file:x` made a directory `./file:x`; a scheme without `//` is refused, while a
    /// directory spelled as a relative path is still a directory.
    #[test]
    fn a_store_scheme_without_slashes_is_refused_not_made_a_directory() {
        for bad in ["file:x", "file:/tmp/run", "s3:bucket/run", "MEMORY:run"] {
            let error = RunTarget::parse(Path::new(bad)).unwrap_err().to_string();
            assert!(error.contains("needs `"), "{bad}: {error}");
            assert!(error.contains(&format!("./{bad}")), "{bad}: {error}");
        }
        for fine in ["./file:x", "runs/file:x", "notascheme:x"] {
            assert!(
                matches!(RunTarget::parse(Path::new(fine)), Ok(RunTarget::Local(_))),
                "{fine}"
            );
        }
    }

    /// `file:///` wrote config.toml, checkpoints/ and tb/ into `/`.
    #[test]
    fn the_filesystem_root_is_refused_as_a_run() {
        for bad in [
            "file:///",
            "file:///..",
            "file://localhost/",
            "/",
            "/..",
            "//",
        ] {
            let error = RunTarget::parse(Path::new(bad)).unwrap_err().to_string();
            assert!(error.contains("filesystem root"), "{bad}: {error}");
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(RunTarget::parse(dir.path()).is_ok());
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
