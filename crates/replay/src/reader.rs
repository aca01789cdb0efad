//! Reading shards back: listing a directory in creation order, opening and verifying one shard
//! (from a file or from bytes fetched elsewhere), and skipping (with a warning naming the file) any shard that fails verification.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufReader, Cursor, Read, Seek};
use std::path::{Path, PathBuf};

use koshogi_files::digest::hex;

use crate::error::ShardError;
use crate::format::{
    shard_checksum, ShardMeta, CHECKSUM_MEMBER, FORMAT_NAME, FORMAT_VERSION, META_MEMBER,
};
use crate::naming::{parse_shard_file_name, ShardFile};
use crate::npy::{Dtype, NpyArray};
use crate::npz::{entry_name, read_npz};
use crate::training_positions::{Record, ShardArrays};

/// The members of one shard may not claim more than this uncompressed in all. It guards against
/// a corrupted size field or a decompression bomb (a few MB of zip can claim gigabytes): reading
/// a shard holds its members, then their decoded columns (a `uint8` move index becomes a `u32`)
/// and a per-position check of the policy, about 7× this at worst (measured: 1.6 GB for a
/// crafted 230 MiB shard, docs/fuzzing.md). Real shards are far smaller: ~420 bytes a position
/// uncompressed (`cpu.toml`'s shards of ~2,100 positions hold 0.9 MB), and self-play writes at
/// most `MAX_POSITIONS_PER_SHARD` (`koshogi-selfplay`'s config) = 16,384 positions, under
/// 80 MB even with a thousand policy entries each.
pub const MAX_SHARD_BYTES: u64 = 256 << 20;

/// The finished shards in `dir`, oldest first. Temporary and unrelated files are ignored; a
/// missing directory holds no shards.
pub fn list_shards(dir: &Path) -> Result<Vec<ShardFile>, ShardError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ShardError::io(dir, e)),
    };
    let mut shards = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| ShardError::io(dir, e))?;
        if let Some((sequence, writer_id)) =
            entry.file_name().to_str().and_then(parse_shard_file_name)
        {
            shards.push(ShardFile {
                sequence,
                writer_id,
                path: entry.path(),
            });
        }
    }
    shards.sort();
    Ok(shards)
}

/// One verified shard in memory.
#[derive(Debug, Clone)]
pub struct Shard {
    path: PathBuf,
    file_size: u64,
    meta: ShardMeta,
    arrays: ShardArrays,
}

impl Shard {
    /// Reads and verifies a shard: zip structure and CRCs, the SHA-256 checksum, the format
    /// version, and the consistency of all columns.
    pub fn open(path: &Path) -> Result<Shard, ShardError> {
        let file = File::open(path).map_err(|e| ShardError::io(path, e))?;
        let file_size = file.metadata().map_err(|e| ShardError::io(path, e))?.len();
        Self::read_verified(path, BufReader::new(file), file_size)
    }

    /// [`Shard::open`] for a shard already in memory (fetched from object storage): bytes from
    /// the network deserve the same checks and bounds as a file. `origin` (a path, or a URL
    /// without credentials) is what errors name and [`Shard::path`] returns.
    pub fn from_bytes(origin: &Path, bytes: &[u8]) -> Result<Shard, ShardError> {
        Self::read_verified(origin, Cursor::new(bytes), bytes.len() as u64)
    }

    /// The one implementation of reading a shard, whatever holds its bytes.
    fn read_verified<R: Read + Seek>(
        path: &Path,
        reader: R,
        file_size: u64,
    ) -> Result<Shard, ShardError> {
        let mut raw = read_npz(reader, MAX_SHARD_BYTES).map_err(|e| ShardError::npz(path, e))?;

        // Taken out of the map (the checksum covers every member but itself), and the meta
        // below too once verified: what stays are the columns, whose bytes become the arrays'
        // data (no second copy of the shard).
        let stored = raw
            .remove(&entry_name(CHECKSUM_MEMBER))
            .ok_or_else(|| ShardError::invalid(path, "no checksum member"))
            .and_then(|bytes| decode_member(path, CHECKSUM_MEMBER, bytes))?;
        if stored.dtype != Dtype::U8 || stored.shape != [32] {
            return Err(ShardError::invalid(
                path,
                "checksum member is not uint8[32]",
            ));
        }
        let computed = shard_checksum(raw.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
        if stored.data != computed {
            return Err(ShardError::Checksum {
                path: path.to_path_buf(),
                stored: hex(&stored.data),
                computed: hex(&computed),
            });
        }

        let meta_bytes = raw
            .remove(&entry_name(META_MEMBER))
            .ok_or_else(|| ShardError::invalid(path, "no meta member"))
            .and_then(|bytes| decode_member(path, META_MEMBER, bytes))?;
        let meta: ShardMeta = serde_json::from_slice(&meta_bytes.data)
            .map_err(|e| ShardError::invalid(path, format!("bad meta JSON: {e}")))?;
        if meta.format != FORMAT_NAME {
            return Err(ShardError::invalid(
                path,
                format!("not a replay shard ({:?})", meta.format),
            ));
        }
        if meta.format_version > FORMAT_VERSION {
            return Err(ShardError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: meta.format_version,
                supported: FORMAT_VERSION,
            });
        }

        let mut members = BTreeMap::new();
        for (entry, bytes) in raw {
            if let Some(member) = entry.strip_suffix(".npy") {
                members.insert(member.to_string(), decode_member(path, member, bytes)?);
            }
        }
        let arrays = ShardArrays::from_members(members, meta.format_version)
            .map_err(|reason| ShardError::invalid(path, reason))?;
        if arrays.len() as u64 != meta.num_positions {
            return Err(ShardError::invalid(
                path,
                format!(
                    "meta says {} positions, the arrays hold {}",
                    meta.num_positions,
                    arrays.len()
                ),
            ));
        }
        Ok(Shard {
            path: path.to_path_buf(),
            file_size,
            meta,
            arrays,
        })
    }

    /// Like [`Shard::open`], but a shard that fails is logged with `tracing::warn!` (naming the
    /// file and the reason) and skipped, as training must go on past one bad file.
    pub fn open_or_skip(path: &Path) -> Option<Shard> {
        match Shard::open(path) {
            Ok(shard) => Some(shard),
            Err(error) => {
                tracing::warn!(
                    file = %path.display(),
                    "skipping unreadable replay shard {}: {error}",
                    path.display()
                );
                None
            }
        }
    }

    /// The file it was read from, or the origin given to [`Shard::from_bytes`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file (or of the bytes given to [`Shard::from_bytes`]), in bytes.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    pub fn meta(&self) -> &ShardMeta {
        &self.meta
    }

    pub fn arrays(&self) -> &ShardArrays {
        &self.arrays
    }

    pub fn into_arrays(self) -> ShardArrays {
        self.arrays
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.arrays.len()
    }

    pub fn is_empty(&self) -> bool {
        self.arrays.is_empty()
    }

    pub fn records(&self) -> impl ExactSizeIterator<Item = Record<'_>> + '_ {
        self.arrays.iter()
    }
}

/// Opens every readable shard in `dir`, oldest first, skipping (and warning about) bad ones.
pub fn read_all_shards(dir: &Path) -> Result<Vec<Shard>, ShardError> {
    Ok(list_shards(dir)?
        .iter()
        .filter_map(|file| Shard::open_or_skip(&file.path))
        .collect())
}

fn decode_member(path: &Path, member: &str, bytes: Vec<u8>) -> Result<NpyArray, ShardError> {
    NpyArray::from_npy_vec(bytes).map_err(|source| ShardError::Npy {
        path: path.to_path_buf(),
        member: member.to_string(),
        source,
    })
}
