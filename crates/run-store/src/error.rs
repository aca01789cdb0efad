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
    #[error("{url}: {action} `{key}` failed (after retries): {source}")]
    Store {
        url: String,
        action: &'static str,
        key: String,
        source: Box<object_store::Error>,
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
    #[error("starting the store's I/O runtime: {0}")]
    Runtime(std::io::Error),
}

impl StoreError {
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
