//! Errors of the store, worded for the person who has to fix the bucket, the credentials or
//! the network (never with the credentials themselves).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("`{url}` is not a run location: {reason}")]
    BadUrl { url: String, reason: String },
    #[error(
        "{url}: access denied ({action} `{key}`): check the credentials in the environment \
         ({hint}) and the bucket's permissions: {detail}"
    )]
    Denied {
        url: String,
        action: &'static str,
        key: String,
        hint: &'static str,
        /// The store's answer, shortened (servers repeat their XML bodies at length).
        detail: String,
    },
    #[error(
        "{url}: the bucket (or container) does not exist or cannot be reached ({action} `{key}`); \
         create it first, or check the URL and the endpoint: {detail}"
    )]
    NoBucket {
        url: String,
        action: &'static str,
        key: String,
        detail: String,
    },
    #[error("{url}: {action} `{key}` failed: {source}")]
    Store {
        url: String,
        action: &'static str,
        key: String,
        source: Box<object_store::Error>,
    },
    #[error("{url}: {action} `{key}`: no answer within {seconds} s")]
    TimedOut {
        url: String,
        action: &'static str,
        key: String,
        seconds: u64,
    },
    /// A transient failure that lasted longer than the handle's patience
    /// ([`crate::RemoteRun::with_patience`]).
    #[error(
        "{url}: the store has not answered for {waited_seconds} s, longer than this process \
         waits (its store patience): {last}"
    )]
    GaveUp {
        url: String,
        waited_seconds: u64,
        last: Box<StoreError>,
    },
    #[error("{url}: `{key}` is not a valid key inside a run: {reason}")]
    BadKey {
        url: String,
        key: String,
        reason: String,
    },
    #[error("{url}: `{key}` is unusable: {reason}")]
    BadObject {
        url: String,
        key: String,
        reason: String,
    },
    #[error("{action} {path}: {source}")]
    Local {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The process was stopped while waiting for `key` to appear in the store.
    #[error("stopped while waiting for {url}/{key}")]
    Stopped { url: String, key: String },
    /// A new run's trainer found checkpoints in the store.
    #[error(
        "{url} already holds checkpoints: pass --resume to continue that run, or use a new URL"
    )]
    NotResumed { url: String },
    #[error("starting the store's I/O runtime: {0}")]
    Runtime(std::io::Error),
}

impl StoreError {
    /// Whether the failure may go away by itself: the store was unreachable, stalled, or
    /// answered with a server error (5xx, 408, 429). Access denied, a missing bucket, a refused
    /// request (other 4xx), a bad key or object, a local error and a patience already spent
    /// are not.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::TimedOut { .. } => true,
            StoreError::Store { source, .. } => !is_refused_request(&source.to_string()),
            _ => false,
        }
    }

    pub(crate) fn local(
        action: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.to_path_buf();
        move |source| StoreError::Local {
            action,
            path,
            source,
        }
    }
}

/// Whether an error's text carries an HTTP status that retrying cannot change: a 4xx other
/// than 408 (request timeout) and 429 (too many requests). `object_store` keeps the status in
/// an error type it does not export, but its message always says `status code: NNN`.
fn is_refused_request(text: &str) -> bool {
    let Some(at) = text.find("status code: ") else {
        return false;
    };
    let code: String = text[at + "status code: ".len()..].chars().take(3).collect();
    match code.parse::<u16>() {
        Ok(status) => (400..500).contains(&status) && status != 408 && status != 429,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_client_errors_that_retrying_cannot_fix_are_refusals() {
        let refused = "Error performing PUT http://x in 2ms - Server returned non-2xx status code: 400 Bad Request: <Error/>";
        assert!(is_refused_request(refused));
        for transient in [
            "Server returned non-2xx status code: 503 Service Unavailable: slow down",
            "Server returned non-2xx status code: 429 Too Many Requests",
            "Server returned non-2xx status code: 408 Request Timeout",
            "error sending request: connection refused",
            "status code: abc",
        ] {
            assert!(!is_refused_request(transient), "{transient}");
        }
    }
}
