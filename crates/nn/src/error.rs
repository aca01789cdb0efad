//! The one error type of the crate: every bad input (config, checkpoint, move) becomes a clear
//! message rather than a panic inside libtorch.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum NnError {
    #[error("invalid network configuration: {0}")]
    InvalidConfig(String),
    #[error("device unavailable: {0}")]
    DeviceUnavailable(String),
    #[error("move cannot be encoded: {0}")]
    UnencodableMove(String),
    #[error("bad batch: {0}")]
    BadBatch(String),
    #[error("checkpoint {path}: {reason}")]
    Checkpoint { path: PathBuf, reason: String },
    #[error("checkpoint {path} is incompatible: {reason}")]
    IncompatibleCheckpoint { path: PathBuf, reason: String },
    #[error("i/o error on {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
}

/// The encoding's failures keep the variants (and so the messages) they had when the encoding
/// lived in this crate.
impl From<koshogi_encoding::EncodingError> for NnError {
    fn from(error: koshogi_encoding::EncodingError) -> Self {
        match error {
            koshogi_encoding::EncodingError::UnencodableMove(reason) => {
                NnError::UnencodableMove(reason)
            }
            koshogi_encoding::EncodingError::BadBatch(reason) => NnError::BadBatch(reason),
        }
    }
}
