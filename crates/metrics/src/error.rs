//! Errors of the metrics crate.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("corrupt event file {path}: {reason}")]
    Corrupt { path: PathBuf, reason: String },
}

impl MetricsError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> MetricsError {
        MetricsError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, reason: impl Into<String>) -> MetricsError {
        MetricsError::Corrupt {
            path: path.into(),
            reason: reason.into(),
        }
    }
}
