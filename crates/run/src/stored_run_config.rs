//! The run configuration of a run in object storage (docs/distributed.md): its `config.toml`,
//! or `--config` when the store has none yet (then stored for every later process). A
//! `--config` that differs from the stored one applies to this process only, as in a local run.
//! `--set` overrides apply to whichever of the two is used. The text is kept in the role's
//! cache too.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use koshogi_run_store::layout::CONFIG_FILE;
use koshogi_run_store::stored_config::{fetch_stored_config, keep_config};
use koshogi_run_store::RemoteRun;

use crate::{ConfigOverride, RunConfig, RunError};

/// The stored run's configuration and its text. With `wait_until` (self-play workers, the
/// gate), a store without a configuration is waited for until that flag is set, instead of
/// being an error.
pub fn resolve_stored_config(
    remote: &RemoteRun,
    cache: &Path,
    config: Option<&Path>,
    overrides: &[ConfigOverride],
    wait_until: Option<&AtomicBool>,
) -> Result<(RunConfig, String), RunError> {
    let wait = wait_until.is_some() && config.is_none();
    let stored = fetch_stored_config(remote, wait, wait_until)?;
    let (parsed, text) = match (config, &stored) {
        (Some(path), _) => RunConfig::load_with(path, overrides)?,
        (None, Some(bytes)) => {
            let text = String::from_utf8(bytes.clone()).map_err(|_| RunError::NotText {
                url: remote.url().to_string(),
                file: CONFIG_FILE,
            })?;
            let place = format!("{}/{CONFIG_FILE}", remote.url());
            RunConfig::from_text(&text, &place, overrides)?
        }
        (None, None) => {
            return Err(RunError::NoStoredConfig {
                url: remote.url().to_string(),
                file: CONFIG_FILE,
            })
        }
    };
    keep_config(remote, cache, stored.as_deref(), &text)?;
    Ok((parsed, text))
}
