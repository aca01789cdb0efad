//! The run configuration of a run in object storage, as bytes: `config.toml` in the store,
//! waited for by roles that may start before the trainer stored it, stored by the first process
//! that names one, and kept in each role's cache. What the text means is the caller's to parse.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::layout::{RunLayout, CONFIG_FILE};
use crate::{RemoteRun, StoreError};

/// The largest `config.toml` read from a store.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The store's `config.toml`, `None` if it has none. With `wait`, a store without one is
/// looked at again every two seconds until it has one, or until `stop` is set
/// ([`StoreError::Stopped`]).
pub fn fetch_stored_config(
    remote: &RemoteRun,
    wait: bool,
    stop: Option<&AtomicBool>,
) -> Result<Option<Vec<u8>>, StoreError> {
    let mut stored = remote.get(CONFIG_FILE, MAX_CONFIG_BYTES)?;
    if stored.is_none() && wait {
        // Workers may start before the trainer has stored the configuration (a job array and
        // the trainer job submitted together).
        tracing::info!(
            "waiting for {}/{CONFIG_FILE} (start the trainer with --config, or give --config here)",
            remote.url()
        );
        while stored.is_none() {
            if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
                return Err(StoreError::Stopped {
                    url: remote.url().to_string(),
                    key: CONFIG_FILE.to_string(),
                });
            }
            std::thread::sleep(Duration::from_secs(2));
            stored = remote.get(CONFIG_FILE, MAX_CONFIG_BYTES)?;
        }
    }
    Ok(stored)
}

/// Records the configuration this process runs with (`text`): stored for every later process
/// when the store had none (`stored`), a warning when it differs from the stored one (it then
/// applies to this process only), and kept in the cache as the run directory's `config.toml`.
pub fn keep_config(
    remote: &RemoteRun,
    cache: &Path,
    stored: Option<&[u8]>,
    text: &str,
) -> Result<(), StoreError> {
    match stored {
        None => remote.put(CONFIG_FILE, text.as_bytes().to_vec())?,
        Some(bytes) if bytes != text.as_bytes() => tracing::warn!(
            "--config differs from {}/{CONFIG_FILE}: this process uses --config, the run keeps its own",
            remote.url()
        ),
        Some(_) => {}
    }
    let kept = RunLayout::new(cache).config_file();
    koshogi_files::atomic::write_atomic(&kept, text.as_bytes())
        .map_err(StoreError::local("writing", &kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_configuration_is_stored_and_kept_in_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let remote =
            RemoteRun::open(&format!("file://{}", dir.path().join("store").display())).unwrap();
        let cache = dir.path().join("cache");
        assert_eq!(fetch_stored_config(&remote, false, None).unwrap(), None);
        keep_config(&remote, &cache, None, "[run]\n").unwrap();
        assert_eq!(
            fetch_stored_config(&remote, true, None).unwrap().as_deref(),
            Some(&b"[run]\n"[..])
        );
        assert_eq!(
            std::fs::read_to_string(RunLayout::new(&cache).config_file()).unwrap(),
            "[run]\n"
        );
        // Another text applies to this process: the store keeps its own.
        keep_config(&remote, &cache, Some(b"[run]\n"), "[train]\n").unwrap();
        assert_eq!(
            fetch_stored_config(&remote, false, None)
                .unwrap()
                .as_deref(),
            Some(&b"[run]\n"[..])
        );
    }

    #[test]
    fn waiting_for_a_configuration_ends_when_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let remote = RemoteRun::open(&format!("file://{}", dir.path().display())).unwrap();
        let stop = AtomicBool::new(true);
        let error = fetch_stored_config(&remote, true, Some(&stop)).unwrap_err();
        assert!(matches!(error, StoreError::Stopped { .. }), "{error}");
        assert!(error.to_string().ends_with("/config.toml"), "{error}");
    }
}
