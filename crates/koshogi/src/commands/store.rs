//! `koshogi store`: whole runs between a local directory and object storage, and what a
//! stored run holds. `push` continues a run that `koshogi run` started on one machine as
//! distributed roles; `pull` brings a stored run back for eval, serve and export.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::{Args, Subcommand};
use koshogi_run_store::layout::{CONFIG_FILE, SHARDS_DIR};
use koshogi_run_store::{copy, remote_checkpoints, RemoteRun, RunTarget};

#[derive(Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
}

#[derive(Subcommand)]
pub enum StoreCommand {
    /// Copy a local run directory into a store (files missing there, then its checkpoints,
    /// published oldest first). Refuses a store that holds another run's config.toml.
    Push { dir: PathBuf, url: String },
    /// Copy a stored run into a local directory (published checkpoints only).
    Pull { url: String, dir: PathBuf },
    /// What a stored run holds: configuration, checkpoints, shards, bytes.
    Ls { url: String },
}

/// How long `koshogi store` waits for a store that does not answer.
const STORE_COMMAND_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

fn open(url: &str) -> Result<RemoteRun> {
    match RunTarget::parse(std::path::Path::new(url))? {
        RunTarget::Remote(remote) => {
            // Someone is waiting at the terminal: a store that does not answer for a minute is
            // an error here, not an outage to wait out as the roles do.
            let remote = remote.with_patience(STORE_COMMAND_PATIENCE);
            remote.probe()?;
            Ok(remote)
        }
        RunTarget::Local(_) => Err(anyhow!(
            "`{url}` is not a store URL (s3://bucket/prefix, gs://…, az://…, file:///path)"
        )),
    }
}

pub fn run(args: StoreArgs) -> Result<()> {
    match args.command {
        StoreCommand::Push { dir, url } => {
            if !dir.is_dir() {
                return Err(anyhow!("{} is not a run directory", dir.display()));
            }
            let remote = open(&url)?;
            let copied = copy::push_run(&dir, &remote)?;
            println!(
                "sent {} files and {} checkpoints from {} to {}",
                copied.files,
                copied.checkpoints,
                dir.display(),
                remote.url()
            );
        }
        StoreCommand::Pull { url, dir } => {
            let remote = open(&url)?;
            let copied = copy::pull_run(&remote, &dir)?;
            println!(
                "fetched {} files and {} checkpoints from {} to {}",
                copied.files,
                copied.checkpoints,
                remote.url(),
                dir.display()
            );
        }
        StoreCommand::Ls { url } => {
            let remote = open(&url)?;
            let entries = remote.list("")?;
            let (published, incomplete) = remote_checkpoints::list(&remote)?;
            let shards = koshogi_replay::finished_shard_names(
                entries
                    .iter()
                    .filter_map(|e| e.key.strip_prefix(SHARDS_DIR)?.strip_prefix('/')),
            );
            let bytes: u64 = entries.iter().map(|e| e.size).sum();
            let has_config = entries.iter().any(|e| e.key == CONFIG_FILE);
            println!("{}", remote.url());
            println!("  {CONFIG_FILE}: {}", if has_config { "yes" } else { "no" });
            println!(
                "  checkpoints: {} published{}, latest {}",
                published.len(),
                if incomplete.is_empty() {
                    String::new()
                } else {
                    format!(" ({} incomplete)", incomplete.len())
                },
                remote_checkpoints::latest(&remote)?
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "none".into())
            );
            let writers: std::collections::BTreeSet<String> = shards
                .iter()
                .filter_map(|n| koshogi_replay::parse_shard_file_name(n).map(|(_, w)| w))
                .collect();
            println!("  shards: {} from {} writers", shards.len(), writers.len());
            println!("  objects: {}, {} bytes", entries.len(), bytes);
        }
    }
    Ok(())
}
