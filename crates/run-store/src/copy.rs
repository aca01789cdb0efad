//! Whole runs between a local directory and a store: `koshogi store push` continues a run that
//! `koshogi run` started on one machine as distributed roles, and `koshogi store pull` brings a
//! stored run back for the commands that read a local directory (eval, serve, export).

use std::collections::HashMap;
use std::path::Path;

use crate::layout::{
    accepted_key, parse_checkpoint_dir_name, RunLayout, ARENA_DIR, CONFIG_FILE, EVAL_DIR,
    GAMES_DIR, SHARDS_DIR, TENSORBOARD_DIR,
};
use crate::remote_checkpoints;
use crate::{RemoteRun, StoreError};

/// Directories copied file by file (checkpoints are published or fetched whole instead).
const PLAIN_DIRS: [&str; 5] = [SHARDS_DIR, GAMES_DIR, ARENA_DIR, TENSORBOARD_DIR, EVAL_DIR];

/// What a copy moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    pub files: usize,
    pub checkpoints: usize,
}

/// Copies a local run into the store: files missing there (or of another size), then every
/// complete checkpoint not yet published, oldest first, so the latest pointer ends on the
/// newest. Refuses a store that holds a different `config.toml`.
pub fn push_run(local: &Path, remote: &RemoteRun) -> Result<Copied, StoreError> {
    let mut copied = Copied::default();
    let config = RunLayout::new(local).config_file();
    if config.is_file() {
        let text = std::fs::read(&config).map_err(StoreError::local("reading", &config))?;
        match remote.get(CONFIG_FILE, 1 << 20)? {
            Some(stored) if stored != text => {
                return Err(StoreError::BadObject {
                    url: remote.url().to_string(),
                    key: CONFIG_FILE.into(),
                    reason: format!(
                        "differs from {}: the store holds another run",
                        config.display()
                    ),
                })
            }
            Some(_) => {}
            None => {
                remote.put(CONFIG_FILE, text)?;
                copied.files += 1;
            }
        }
    }
    let stored: HashMap<String, u64> = remote
        .list("")?
        .into_iter()
        .map(|e| (e.key, e.size))
        .collect();
    for dir in PLAIN_DIRS {
        let mut files = Vec::new();
        crate::tree::collect_files(&local.join(dir), dir, 0, &mut files)?;
        for (path, key) in files {
            let size = std::fs::metadata(&path).map(|m| m.len()).ok();
            if size.is_some() && stored.get(&key).copied() == size {
                continue;
            }
            remote.put_file(&key, &path)?;
            copied.files += 1;
        }
    }
    let (published, _) = remote_checkpoints::list(remote)?;
    let mut steps: Vec<(u64, std::path::PathBuf)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(RunLayout::new(local).checkpoints_dir()) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(step) = parse_checkpoint_dir_name(&name) {
                if entry.path().is_dir() {
                    steps.push((step, entry.path()));
                }
            }
        }
    }
    steps.sort();
    for (step, dir) in steps {
        if !published.contains(&step) {
            remote_checkpoints::publish(remote, &dir, step)?;
            copied.checkpoints += 1;
        }
    }
    let accepted = RunLayout::new(local).accepted_file();
    if accepted.is_file() {
        remote.put_file(&accepted_key(), &accepted)?;
        copied.files += 1;
    }
    Ok(copied)
}

/// Copies a stored run into a local directory (files missing or of another size, and every
/// published checkpoint not there yet).
pub fn pull_run(remote: &RemoteRun, local: &Path) -> Result<Copied, StoreError> {
    let mut copied = Copied::default();
    std::fs::create_dir_all(local).map_err(StoreError::local("creating", local))?;
    if remote.download(CONFIG_FILE, &RunLayout::new(local).config_file())? {
        copied.files += 1;
    }
    for dir in PLAIN_DIRS {
        copied.files += crate::tree::pull(remote, dir, local, |_| false)?;
    }
    let local_checkpoints = RunLayout::new(local).checkpoints_dir();
    std::fs::create_dir_all(&local_checkpoints)
        .map_err(StoreError::local("creating", &local_checkpoints))?;
    let (published, _) = remote_checkpoints::list(remote)?;
    for step in published {
        let exists = local_checkpoints
            .join(crate::layout::checkpoint_dir_name(step))
            .is_dir();
        if !exists {
            remote_checkpoints::fetch(remote, step, &local_checkpoints)?;
            copied.checkpoints += 1;
        }
    }
    if remote.download(&accepted_key(), &RunLayout::new(local).accepted_file())? {
        copied.files += 1;
    }
    Ok(copied)
}
