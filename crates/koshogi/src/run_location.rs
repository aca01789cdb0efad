//! `--run` and `--config`, the two flags of every command that works on a run directory, and
//! how they resolve to a configuration and a directory (the configuration itself is
//! koshogi-run's [`RunConfig`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Result};
use koshogi_run::{ConfigOverride, RunConfig};
use koshogi_run_store::layout::RunLayout;

/// `--run` and `--config`, shared by the commands that work on a run directory.
#[derive(Debug, Clone, clap::Args)]
pub struct RunLocation {
    /// Run directory (config.toml, shards/, games/, checkpoints/, tb/); default: run.dir of
    /// the configuration.
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Run configuration (TOML); default: <run>/config.toml if present, else built-in defaults.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Change one key of the configuration, e.g. `--set train.seed=2` (repeatable; the value
    /// is TOML, bare text a string). A new run directory keeps the changed configuration.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<ConfigOverride>,
}

impl RunLocation {
    /// The run in object storage that `--run` names, if it is a URL (the distributed roles);
    /// `None` for a local directory.
    pub fn remote(&self) -> Result<Option<koshogi_run_store::RemoteRun>> {
        let Some(run) = &self.run else {
            return Ok(None);
        };
        match koshogi_run_store::RunTarget::parse(run)? {
            koshogi_run_store::RunTarget::Remote(remote) => Ok(Some(remote)),
            koshogi_run_store::RunTarget::Local(_) => Ok(None),
        }
    }

    /// The configuration, its text (to keep in the run directory) and the run directory. A
    /// store URL is refused: only the distributed roles work on one (see [`Self::remote`]).
    pub fn resolve(&self) -> Result<(RunConfig, String, PathBuf)> {
        if let Some(remote) = self.remote()? {
            koshogi_run_store::RunTarget::Remote(remote).require_local()?;
        }
        let guess = self
            .run
            .clone()
            .unwrap_or_else(|| RunConfig::default().run.dir);
        let (config, text) = RunConfig::resolve(self.config.as_deref(), &guess, &self.overrides)?;
        let run_dir = self.run.clone().unwrap_or_else(|| config.run.dir.clone());
        Ok((config, text, run_dir))
    }

    /// Like [`Self::resolve`], for the one-machine job that starts or resumes a run
    /// (`koshogi run`): the configuration must be named, by `--config` or by the run
    /// directory's kept copy. The built-in defaults would start a run nobody chose, so their
    /// absence is an error, with or without `--set`.
    pub fn resolve_named(&self) -> Result<(RunConfig, String, PathBuf)> {
        match (&self.config, &self.run) {
            (Some(_), _) => {}
            (None, Some(dir)) if RunLayout::new(dir).config_file().exists() => {}
            (None, Some(dir)) => bail!(
                "{} has no config.toml: name a configuration with --config (e.g. \
                 configs/quick.toml)",
                dir.display()
            ),
            (None, None) => bail!("name a configuration with --config (e.g. configs/quick.toml)"),
        }
        self.resolve()
    }

    /// The configuration of a run in object storage, for a distributed role whose local
    /// working directory is `cache` ([`Self::resolve`]'s counterpart): the stored one, or
    /// `--config` (see [`koshogi_run::resolve_stored_config`]). With `wait_until` (self-play
    /// workers, the gate), a store without a configuration yet is waited for until that flag is
    /// set; without it (the trainer, which brings the configuration), that is an error.
    pub fn resolve_stored(
        &self,
        remote: &koshogi_run_store::RemoteRun,
        cache: &Path,
        wait_until: Option<&AtomicBool>,
    ) -> Result<RunConfig> {
        let (config, _) = koshogi_run::resolve_stored_config(
            remote,
            cache,
            self.config.as_deref(),
            &self.overrides,
            wait_until,
        )?;
        Ok(config)
    }
}
