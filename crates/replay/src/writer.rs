//! Writing shards so that a crash can never leave a readable partial one.
//!
//! Each shard is built in a temporary file in the shard directory, fsynced, renamed to its final
//! name and the directory fsynced. Rename is atomic on POSIX file systems, so a reader sees either
//! the complete, checksummed file or nothing. Temporary files left by a killed process are removed
//! the next time a [`ShardDir`] is opened.
//!
//! The temporary name is this crate's (`naming`: it carries the writer's pid, for that clean-up)
//! and the final name is only chosen at the rename, when the sequence number is taken; the rename
//! and directory sync are `koshogi_files::atomic::rename_into_place`, the workspace's one
//! implementation of atomic writes.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use koshogi_files::atomic::rename_into_place;

use crate::board::BOARD_ENCODING_VERSION;
use crate::error::ShardError;
use crate::format::{
    shard_checksum, Provenance, ShardMeta, AUX_FIELDS, CHECKSUM_MEMBER, FORMAT_NAME,
    FORMAT_VERSION, META_MEMBER,
};
use crate::naming::{
    parse_shard_file_name, parse_temp_file_pid, shard_file_name, shards_dir, temp_file_name,
    validate_writer_id, ShardFile,
};
use crate::npy::NpyArray;
use crate::npz::{entry_name, write_npz};
use crate::training_positions::{PositionRecord, ShardArrays};

/// Deflate level 6 (zlib's default). Measured with the `shard_size` example (32 random games of
/// 300 plies): 24.8 bytes/position, against 24.4 at level 9 and 44.7 at level 1.
const DEFLATE_LEVEL: i64 = 6;

/// A directory that shards are written to; share one per process (`Arc`) among all writers so
/// sequence numbers are handed out in the order shards become visible.
#[derive(Debug)]
pub struct ShardDir {
    dir: PathBuf,
    next_sequence: Mutex<u64>,
    temp_counter: AtomicU64,
}

impl ShardDir {
    /// Opens (creating if needed) `dir` for writing and removes temporary files abandoned by
    /// processes that no longer run.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Arc<ShardDir>, ShardError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|e| ShardError::io(&dir, e))?;
        remove_abandoned_temp_files(&dir)?;
        let next = highest_sequence(&dir)?.map_or(0, |s| s + 1);
        Ok(Arc::new(ShardDir {
            dir,
            next_sequence: Mutex::new(next),
            temp_counter: AtomicU64::new(0),
        }))
    }

    /// Opens `<run_dir>/shards`.
    pub fn for_run(run_dir: &Path) -> Result<Arc<ShardDir>, ShardError> {
        Self::open(shards_dir(run_dir))
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `arrays` as one shard and makes it visible atomically. Returns the new shard.
    pub fn write_shard(
        &self,
        writer_id: &str,
        provenance: &Provenance,
        arrays: &ShardArrays,
    ) -> Result<ShardFile, ShardError> {
        validate_writer_id(writer_id)?;
        let meta = ShardMeta {
            format: FORMAT_NAME.to_string(),
            format_version: FORMAT_VERSION,
            board_encoding_version: BOARD_ENCODING_VERSION,
            provenance: provenance.clone(),
            created_unix_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            writer_id: writer_id.to_string(),
            num_positions: arrays.len() as u64,
            num_games: arrays.game_count() as u64,
            aux_fields: AUX_FIELDS.iter().map(|s| s.to_string()).collect(),
        };
        let counter = self.temp_counter.fetch_add(1, Ordering::Relaxed);
        let temp_path = self
            .dir
            .join(temp_file_name(writer_id, std::process::id(), counter));
        let written = write_shard_file(&temp_path, &meta, arrays).and_then(|()| {
            // Allocate the sequence number and rename under one lock: shards of this process
            // become visible in sequence order, so "everything up to N" is a valid cursor.
            let mut next = self
                .next_sequence
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            // Another process writing to the same directory may have moved ahead.
            let sequence = (*next).max(highest_sequence(&self.dir)?.map_or(0, |s| s + 1));
            let path = self.dir.join(shard_file_name(sequence, writer_id));
            rename_into_place(&temp_path, &path).map_err(|e| ShardError::io(&path, e))?;
            *next = sequence + 1;
            Ok(ShardFile {
                sequence,
                writer_id: writer_id.to_string(),
                path,
            })
        });
        if written.is_err() {
            let _ = fs::remove_file(&temp_path);
        }
        written
    }
}

/// Serialises the members, zips them into `path` (a new file) and fsyncs it.
fn write_shard_file(path: &Path, meta: &ShardMeta, arrays: &ShardArrays) -> Result<(), ShardError> {
    let meta_json = serde_json::to_vec(meta).expect("ShardMeta always serialises");
    let mut members: Vec<(&str, Vec<u8>)> = arrays
        .to_members()
        .into_iter()
        .map(|(name, array)| (name, array.to_npy_bytes()))
        .collect();
    members.push((
        META_MEMBER,
        NpyArray::from_elements(vec![meta_json.len()], &meta_json).to_npy_bytes(),
    ));
    let entries: Vec<String> = members.iter().map(|(name, _)| entry_name(name)).collect();
    let checksum = shard_checksum(
        entries
            .iter()
            .zip(&members)
            .map(|(entry, (_, bytes))| (entry.as_str(), bytes.as_slice())),
    );
    members.push((
        CHECKSUM_MEMBER,
        NpyArray::from_elements(vec![32], &checksum).to_npy_bytes(),
    ));

    let file = File::options()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| ShardError::io(path, e))?;
    let members = members
        .iter()
        .map(|(name, bytes)| (*name, bytes.as_slice()));
    let file = write_npz(file, members, DEFLATE_LEVEL).map_err(|e| ShardError::npz(path, e))?;
    file.sync_all().map_err(|e| ShardError::io(path, e))
}

fn highest_sequence(dir: &Path) -> Result<Option<u64>, ShardError> {
    let mut highest = None;
    for entry in fs::read_dir(dir).map_err(|e| ShardError::io(dir, e))? {
        let entry = entry.map_err(|e| ShardError::io(dir, e))?;
        if let Some((sequence, _)) = entry.file_name().to_str().and_then(parse_shard_file_name) {
            highest = highest.max(Some(sequence));
        }
    }
    Ok(highest)
}

/// Whether a process with this id is running. Without `/proc` we cannot tell and say yes, which
/// only means an abandoned temporary file lingers (readers ignore it anyway).
fn process_is_alive(pid: u32) -> bool {
    let proc_root = Path::new("/proc");
    !proc_root.join("self").exists() || proc_root.join(pid.to_string()).exists()
}

fn remove_abandoned_temp_files(dir: &Path) -> Result<(), ShardError> {
    for entry in fs::read_dir(dir).map_err(|e| ShardError::io(dir, e))? {
        let entry = entry.map_err(|e| ShardError::io(dir, e))?;
        let Some(pid) = entry.file_name().to_str().and_then(parse_temp_file_pid) else {
            continue;
        };
        if pid != std::process::id() && !process_is_alive(pid) {
            let path = entry.path();
            match fs::remove_file(&path) {
                Ok(()) => tracing::info!(file = %path.display(), "removed abandoned partial shard"),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(ShardError::io(path, e)),
            }
        }
    }
    Ok(())
}

/// Collects whole games from one self-play worker and writes a shard whenever enough positions
/// have accumulated. A game is never split across shards.
///
/// Dropping a writer flushes what is pending (a failure is logged); call [`ShardWriter::flush`]
/// to see the error instead.
#[derive(Debug)]
pub struct ShardWriter {
    dir: Arc<ShardDir>,
    writer_id: String,
    provenance: Provenance,
    positions_per_shard: usize,
    pending: ShardArrays,
}

impl ShardWriter {
    /// `positions_per_shard`: write once at least this many positions are pending.
    pub fn new(
        dir: Arc<ShardDir>,
        writer_id: impl Into<String>,
        provenance: Provenance,
        positions_per_shard: usize,
    ) -> Result<ShardWriter, ShardError> {
        let writer_id = writer_id.into();
        validate_writer_id(&writer_id)?;
        Ok(ShardWriter {
            dir,
            writer_id,
            provenance,
            positions_per_shard: positions_per_shard.max(1),
            pending: ShardArrays::new(),
        })
    }

    /// Records which checkpoint plays from now on. Pending games keep their shard together with
    /// later ones; flush first if they must be attributed exactly.
    pub fn set_model_step(&mut self, model_step: u64) {
        self.provenance.model_step = model_step;
    }

    pub fn pending_positions(&self) -> usize {
        self.pending.len()
    }

    /// Adds one finished game (all records or none, if one is invalid) and writes a shard if the
    /// threshold is reached.
    pub fn add_game(
        &mut self,
        records: &[PositionRecord],
    ) -> Result<Option<ShardFile>, ShardError> {
        let mut game = ShardArrays::new();
        for record in records {
            game.push(record)?;
        }
        self.pending.append(&game);
        if self.pending.len() >= self.positions_per_shard {
            self.flush()
        } else {
            Ok(None)
        }
    }

    /// Writes everything pending as one shard (nothing if nothing is pending).
    pub fn flush(&mut self) -> Result<Option<ShardFile>, ShardError> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let shard = self
            .dir
            .write_shard(&self.writer_id, &self.provenance, &self.pending)?;
        self.pending = ShardArrays::new();
        Ok(Some(shard))
    }
}

impl Drop for ShardWriter {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::warn!("lost {} pending positions: {e}", self.pending.len());
        }
    }
}
