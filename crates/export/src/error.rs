//! The crate's error type: every failure names the file or the input it concerns.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Nn(#[from] koshogi_nn::NnError),
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error("i/o error on {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {reason}")]
    BadFile { path: PathBuf, reason: String },
    #[error("cannot encode the position: {0}")]
    Encoding(String),
    /// The Python side of an export (ONNX) failed; the text says why in one line.
    #[error("python: {0}")]
    Python(String),
}

impl ExportError {
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> ExportError + '_ {
        move |source| ExportError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
