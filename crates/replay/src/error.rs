//! Error types of the replay crate: every way a shard can fail to be written or read.

use std::path::PathBuf;

use crate::npz::NpzError;

/// A malformed `.npy` array (a shard member, or a file koshogi-export reads).
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    #[error("not an .npy array (bad magic bytes)")]
    BadMagic,
    #[error("truncated .npy array")]
    Truncated,
    #[error("unsupported .npy format version {major}.{minor}")]
    UnsupportedVersion { major: u8, minor: u8 },
    #[error(".npy header of {len} bytes is longer than the {max} allowed")]
    HeaderTooLong { len: u64, max: usize },
    #[error("bad .npy header: {0}")]
    BadHeader(String),
    #[error("Fortran-order .npy arrays are not supported")]
    FortranOrder,
    #[error("unsupported .npy element type {0:?}")]
    UnsupportedDtype(String),
    #[error(".npy data has {actual} bytes, the header promises {expected}")]
    DataLength { expected: usize, actual: usize },
}

/// Why a record could not be added to a shard (caught before anything touches the disk).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("board byte {byte} at index {index} is not a point code / side to move")]
    BadBoardByte { index: usize, byte: u8 },
    #[error("played move index {played} is not below the legal move count {legal}")]
    PlayedMoveOutOfRange { played: u32, legal: u32 },
    #[error("policy move index {index} is not below the legal move count {legal}")]
    PolicyMoveOutOfRange { index: u32, legal: u32 },
    #[error("policy move index {0} appears twice")]
    DuplicatePolicyMove(u32),
    #[error("policy weight {0} is negative or not finite")]
    BadPolicyWeight(f32),
    #[error("game result {0} is not -1, 0 or 1")]
    BadResult(i8),
    #[error("search value {0} is outside [-1, 1]")]
    BadSearchValue(f32),
}

/// Any failure to write or read a shard. Reading errors name the file.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a readable zip archive: {source}")]
    Zip {
        path: PathBuf,
        #[source]
        source: zip::result::ZipError,
    },
    #[error("{path}: member {member}: {source}")]
    Npy {
        path: PathBuf,
        member: String,
        #[source]
        source: NpyError,
    },
    #[error("{path}: checksum mismatch (stored {stored}, computed {computed})")]
    Checksum {
        path: PathBuf,
        stored: String,
        computed: String,
    },
    #[error("{path}: {reason}")]
    Invalid { path: PathBuf, reason: String },
    #[error("{path}: format version {found} is newer than this reader understands ({supported})")]
    UnsupportedVersion {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("invalid writer id {0:?}: use 1-32 ASCII letters, digits or '_'")]
    BadWriterId(String),
    /// A shard was asked for by a name that is not a finished shard's (it may come from a saved
    /// cursor or a remote listing; it must never reach a path or key outside the shard store).
    #[error("{0:?} is not a replay shard file name (shard-<sequence>-<writer>.npz)")]
    BadShardName(String),
    #[error("invalid record: {0}")]
    Record(#[from] RecordError),
    /// The shard source cannot be reached right now (an object store that does not answer):
    /// nothing is known about the shard, so a reader tries again later instead of skipping it.
    #[error("{location} is unavailable for now: {reason}")]
    Unavailable { location: String, reason: String },
}

impl ShardError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ShardError {
        ShardError::Io {
            path: path.into(),
            source,
        }
    }

    /// An `.npz` failure of `path`: zip and I/O errors keep their kinds, the bounds are
    /// [`ShardError::Invalid`].
    pub(crate) fn npz(path: impl Into<PathBuf>, error: NpzError) -> ShardError {
        let path = path.into();
        match error {
            NpzError::Io(source) => ShardError::Io { path, source },
            NpzError::Zip(source) => ShardError::Zip { path, source },
            bound => ShardError::Invalid {
                path,
                reason: bound.to_string(),
            },
        }
    }

    pub(crate) fn invalid(path: impl Into<PathBuf>, reason: impl Into<String>) -> ShardError {
        ShardError::Invalid {
            path: path.into(),
            reason: reason.into(),
        }
    }
}
