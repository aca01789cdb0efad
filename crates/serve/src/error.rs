//! Errors: [`ServeError`] for starting the server, [`ApiError`] for one request (always answered
//! as a JSON `{"error": …}` with a 4xx/5xx status, never a panic).

use std::path::PathBuf;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("run directory {0}: no such directory")]
    NoRunDir(PathBuf),
    #[error("cannot listen on {address}: {message}")]
    Bind { address: String, message: String },
    #[error("cannot start the network thread: {0}")]
    Worker(String),
    #[error("cannot start the HTTP server: {0}")]
    Http(String),
}

/// A request that cannot be answered; `status` is the HTTP status to reply with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    /// 400: the request itself is wrong (missing or malformed parameter, illegal move).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    /// 404: names something that does not exist (game, checkpoint, session, route).
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: message.into(),
        }
    }

    /// 405: the route exists but not for this method.
    pub fn method_not_allowed(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 405,
            message: message.into(),
        }
    }

    /// 409: the request conflicts with the state (e.g. a move after the game has ended).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 409,
            message: message.into(),
        }
    }

    /// 422: what the request names exists but cannot be used (a checkpoint that does not
    /// load, a file in `games/` that is not a game record).
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 422,
            message: message.into(),
        }
    }

    /// 500: the server failed (unreadable file, network evaluation error).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 500,
            message: message.into(),
        }
    }
}
