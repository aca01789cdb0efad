//! A run in object storage, behind a small blocking API.
//!
//! The rest of the system is threads, not async tasks, so each [`RemoteRun`] owns a one-thread
//! tokio runtime and blocks on it. Keys are relative to the run's prefix and checked, so no
//! key from a listing or a file name can address anything outside the run.
//!
//! Store outages are weather, not errors. Each request is retried twice over: briefly by
//! `object_store` itself ([`retry_config`]: a dropped connection, one 5xx), and then, while
//! the failure stays transient ([`StoreError::is_transient`]: unreachable, stalled, 5xx), by
//! [`RemoteRun`] with exponential backoff and jitter for as long as the handle's patience
//! allows ([`RemoteRun::with_patience`], [`DEFAULT_PATIENCE`] unless the role's setting says
//! otherwise). An outage is logged once when it starts and once when the store answers again,
//! however many requests and threads wait through it; what still fails after the patience
//! is [`StoreError::GaveUp`]. An [`RemoteRun::impatient`] handle does not wait: a caller with
//! local work to go on with (the trainer reading shards) gets the error at once.
use std::fmt;
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig};

use crate::location::SCHEMES;
use crate::StoreError;
use koshogi_files::atomic::write_atomic;

/// The largest object a run reads into memory (checkpoints of the largest networks fit).
pub const MAX_OBJECT_BYTES: u64 = 4 << 30;

/// One object of a listing: its key relative to the run, and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectEntry {
    pub key: String,
    pub size: u64,
}

/// How long a request waits for a store that does not answer before it fails, unless set
/// otherwise ([`RemoteRun::with_patience`]): long enough for a restart of the store or a
/// network blip, short enough that a store gone for good stops the process the same hour.
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(30 * 60);
/// The longest one attempt of an [`RemoteRun::impatient`] handle may take (a stalled store
/// holds a request until the client's timeout, minutes).
const IMPATIENT_DEADLINE: Duration = Duration::from_secs(30);
/// Backoff between attempts while the store does not answer: doubling from the first to the
/// last, each pause drawn in its upper half (jitter, so that many processes waiting for one
/// store do not knock all at once).
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const LONGEST_PAUSE: Duration = Duration::from_secs(30);

/// A run in object storage: the store, the run's prefix in it, and the runtime its requests
/// run on. Cheap to clone (shared); clones share the patience and the outage state.
#[derive(Clone)]
pub struct RemoteRun {
    inner: Arc<Inner>,
    /// Give up after one attempt (see [`RemoteRun::impatient`]).
    impatient: bool,
}

struct Inner {
    /// As the user wrote it (credentials are refused in URLs, so this is safe to print).
    url: String,
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    /// Which environment variables hold this store's credentials, for error messages.
    credentials_hint: &'static str,
    runtime: tokio::runtime::Runtime,
    /// How long requests wait through an outage, in milliseconds.
    patience_ms: AtomicU64,
    /// When the current outage began (its first failed request), if the store is away.
    outage: Mutex<Option<Instant>>,
}

impl fmt::Debug for RemoteRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteRun")
            .field("url", &self.inner.url)
            .finish()
    }
}

/// `object_store`'s own retries of a request: a few quick ones (backoff 100 ms to 2 s, 20 s
/// at most) for a dropped connection or a single 5xx. Longer outages are waited out by
/// [`RemoteRun`] itself, which logs them once and knows the process's patience.
pub fn retry_config() -> RetryConfig {
    RetryConfig {
        backoff: object_store::BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: 3,
        retry_timeout: Duration::from_secs(20),
    }
}

fn client_options() -> ClientOptions {
    ClientOptions::new()
        .with_connect_timeout(Duration::from_secs(10))
        .with_timeout(Duration::from_secs(300))
}

fn bad_url(url: &str, reason: impl Into<String>) -> StoreError {
    StoreError::BadUrl {
        url: url.to_string(),
        reason: reason.into(),
    }
}

/// Whether the S3 endpoint in the environment is plain HTTP (a local MinIO or moto).
fn endpoint_is_http() -> bool {
    ["AWS_ENDPOINT_URL", "AWS_ENDPOINT", "AWS_ENDPOINT_URL_S3"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .any(|value| value.starts_with("http://"))
}

impl RemoteRun {
    /// Opens the store a URL names. Credentials and endpoints come from the environment only
    /// (`AWS_*`, `GOOGLE_*`, `AZURE_*`); no request is made yet.
    pub fn open(text: &str) -> Result<RemoteRun, StoreError> {
        let url = url::Url::parse(text).map_err(|e| bad_url(text, e.to_string()))?;
        let scheme = url.scheme();
        if !SCHEMES.contains(&scheme) {
            return Err(bad_url(
                text,
                format!(
                    "unknown scheme `{scheme}://` (use one of {})",
                    SCHEMES.join(", ")
                ),
            ));
        }
        if !url.username().is_empty() || url.password().is_some() || url.query().is_some() {
            let mut shown = url.clone();
            let _ = shown.set_username("");
            let _ = shown.set_password(None);
            shown.set_query(None);
            return Err(bad_url(
                shown.as_str(),
                "credentials and options go in the environment (AWS_ACCESS_KEY_ID, ...), never in the URL",
            ));
        }
        let host = url.host_str().unwrap_or("");
        let segments: Vec<&str> = url.path().split('/').filter(|s| !s.is_empty()).collect();
        let build_error = |e: object_store::Error| bad_url(text, e.to_string());
        let (store, prefix_segments, credentials_hint): (Arc<dyn ObjectStore>, Vec<&str>, _) =
            match scheme {
                "file" => {
                    if !(host.is_empty() || host == "localhost") {
                        return Err(bad_url(
                            text,
                            "a file URL names an absolute path: file:///path/to/run",
                        ));
                    }
                    let path = url
                        .to_file_path()
                        .map_err(|()| bad_url(text, "not a local path"))?;
                    crate::location::refuse_filesystem_root(&path, text)?;
                    std::fs::create_dir_all(&path)
                        .map_err(StoreError::local("creating the run directory", &path))?;
                    let store = object_store::local::LocalFileSystem::new_with_prefix(&path)
                        .map_err(build_error)?
                        .with_automatic_cleanup(true);
                    (Arc::new(store), Vec::new(), "file permissions")
                }
                "memory" => (
                    Arc::new(object_store::memory::InMemory::new()),
                    std::iter::once(host)
                        .chain(segments.iter().copied())
                        .collect(),
                    "none",
                ),
                _ if host.is_empty() => {
                    return Err(bad_url(
                        text,
                        "no bucket or container name after the scheme",
                    ))
                }
                "s3" | "s3a" => {
                    let mut builder = object_store::aws::AmazonS3Builder::from_env()
                        .with_bucket_name(host)
                        .with_retry(retry_config())
                        .with_client_options(client_options());
                    if endpoint_is_http() {
                        builder = builder.with_allow_http(true);
                    }
                    let store = builder.build().map_err(build_error)?;
                    (
                        Arc::new(store),
                        segments,
                        "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_ENDPOINT_URL, AWS_REGION",
                    )
                }
                "gs" => {
                    let store = object_store::gcp::GoogleCloudStorageBuilder::from_env()
                        .with_bucket_name(host)
                        .with_retry(retry_config())
                        .with_client_options(client_options())
                        .build()
                        .map_err(build_error)?;
                    (
                        Arc::new(store),
                        segments,
                        "GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_SERVICE_ACCOUNT",
                    )
                }
                _ => {
                    let store = object_store::azure::MicrosoftAzureBuilder::from_env()
                        .with_container_name(host)
                        .with_retry(retry_config())
                        .with_client_options(client_options())
                        .build()
                        .map_err(build_error)?;
                    (
                        Arc::new(store),
                        segments,
                        "AZURE_STORAGE_ACCOUNT_NAME, AZURE_STORAGE_ACCOUNT_KEY",
                    )
                }
            };
        let prefix = checked_path(&prefix_segments).map_err(|reason| bad_url(text, reason))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("store-io")
            .enable_all()
            .build()
            .map_err(StoreError::Runtime)?;
        Ok(RemoteRun {
            inner: Arc::new(Inner {
                url: text.trim_end_matches('/').to_string(),
                store,
                prefix,
                credentials_hint,
                runtime,
                patience_ms: AtomicU64::new(DEFAULT_PATIENCE.as_millis() as u64),
                outage: Mutex::new(None),
            }),
            impatient: false,
        })
    }

    /// Sets how long requests (of this handle and every clone) wait through an outage before
    /// they fail with [`StoreError::GaveUp`]; zero fails at the first transient error.
    pub fn with_patience(self, patience: Duration) -> RemoteRun {
        let millis = u64::try_from(patience.as_millis()).unwrap_or(u64::MAX);
        self.inner.patience_ms.store(millis, Ordering::SeqCst);
        self
    }

    /// How long requests wait through an outage.
    pub fn patience(&self) -> Duration {
        if self.impatient {
            return Duration::ZERO;
        }
        Duration::from_millis(self.inner.patience_ms.load(Ordering::SeqCst))
    }

    /// A handle on the same store and outage state whose requests do not wait out an outage:
    /// one attempt (with `object_store`'s brief retries) of at most 30 s, then the error.
    /// For a caller that has local work to go on with meanwhile: the trainer trains on the
    /// shards it has while the store is away, instead of stopping to wait for new ones.
    pub fn impatient(&self) -> RemoteRun {
        RemoteRun {
            inner: self.inner.clone(),
            impatient: true,
        }
    }

    /// Runs one request (`attempt` makes a fresh future each time) until it succeeds, fails
    /// for good, or has failed transiently for longer than the patience. Records the outage:
    /// its start and its end are each logged once, whoever meets them.
    fn request<T, F, Fut>(
        &self,
        action: &'static str,
        key: &str,
        attempt: F,
    ) -> Result<T, StoreError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, object_store::Error>>,
    {
        let mut failing_since: Option<Instant> = None;
        let mut pause = FIRST_PAUSE;
        loop {
            let outcome =
                if self.impatient {
                    match self.inner.runtime.block_on(async {
                        tokio::time::timeout(IMPATIENT_DEADLINE, attempt()).await
                    }) {
                        Ok(result) => result.map_err(|e| self.classify(action, key, e)),
                        Err(_) => Err(StoreError::TimedOut {
                            url: self.url().to_string(),
                            action,
                            key: key.to_string(),
                            seconds: IMPATIENT_DEADLINE.as_secs(),
                        }),
                    }
                } else {
                    self.inner
                        .runtime
                        .block_on(attempt())
                        .map_err(|e| self.classify(action, key, e))
                };
            let error = match outcome {
                Ok(value) => {
                    self.answered();
                    return Ok(value);
                }
                Err(error) if !error.is_transient() => {
                    if !matches!(error, StoreError::Local { .. } | StoreError::BadKey { .. }) {
                        // The store answered, if only to refuse.
                        self.answered();
                    }
                    return Err(error);
                }
                Err(error) => error,
            };
            self.unreachable(&error);
            let since = *failing_since.get_or_insert_with(Instant::now);
            let patience = self.patience();
            let waited = since.elapsed();
            if waited >= patience {
                if patience.is_zero() {
                    return Err(error);
                }
                return Err(StoreError::GaveUp {
                    url: self.url().to_string(),
                    waited_seconds: waited.as_secs(),
                    last: Box::new(error),
                });
            }
            std::thread::sleep(jittered(pause).min(patience - waited));
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    }

    /// Notes a transient failure: the first one of an outage is logged.
    fn unreachable(&self, error: &StoreError) {
        let mut outage = self.inner.outage.lock().unwrap_or_else(|p| p.into_inner());
        if outage.is_none() {
            *outage = Some(Instant::now());
            let patience = Duration::from_millis(self.inner.patience_ms.load(Ordering::SeqCst));
            tracing::warn!(
                "the store does not answer ({error}); working locally meanwhile and retrying with \
                 backoff, for up to {} s per request",
                patience.as_secs()
            );
        }
    }

    /// Notes an answer: the end of an outage, if there was one, is logged.
    fn answered(&self) {
        let mut outage = self.inner.outage.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(since) = outage.take() {
            tracing::info!(
                "{}: the store answers again, after {:.0} s",
                self.url(),
                since.elapsed().as_secs_f64()
            );
        }
    }

    /// The URL as given (without a trailing `/`).
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The object path of `key` (relative to the run), refusing anything that could leave it.
    fn object_path(&self, key: &str) -> Result<ObjectPath, StoreError> {
        let parts: Vec<&str> = key.split('/').collect();
        let relative = checked_path(&parts).map_err(|reason| StoreError::BadKey {
            url: self.url().to_string(),
            key: key.to_string(),
            reason,
        })?;
        if parts.is_empty() || key.is_empty() {
            return Err(StoreError::BadKey {
                url: self.url().to_string(),
                key: key.to_string(),
                reason: "empty".into(),
            });
        }
        Ok(self.inner.prefix.parts().chain(relative.parts()).collect())
    }

    fn classify(&self, action: &'static str, key: &str, source: object_store::Error) -> StoreError {
        let url = self.url().to_string();
        let key = key.to_string();
        let text = source.to_string();
        // The first line, at most 300 characters: enough to see the server's error code.
        let detail: String = text
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(300)
            .collect();
        let boxed = Box::new(source);
        match *boxed {
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => StoreError::Denied {
                url,
                action,
                key,
                hint: self.inner.credentials_hint,
                detail: detail.clone(),
            },
            _ if text.contains("NoSuchBucket")
                || text.contains("ContainerNotFound")
                || text.contains("The specified bucket does not exist") =>
            {
                StoreError::NoBucket {
                    url,
                    action,
                    key,
                    detail: detail.clone(),
                }
            }
            _ if text.contains("AccessDenied")
                || text.contains("InvalidAccessKeyId")
                || text.contains("SignatureDoesNotMatch")
                || text.contains("403 Forbidden") =>
            {
                StoreError::Denied {
                    url,
                    action,
                    key,
                    hint: self.inner.credentials_hint,
                    detail: detail.clone(),
                }
            }
            _ => StoreError::Store {
                url,
                action,
                key,
                source: boxed,
            },
        }
    }

    /// One request that tells early whether the bucket exists and the credentials can read it.
    /// A store that does not answer yet is waited for, as any request waits.
    pub fn probe(&self) -> Result<(), StoreError> {
        let store = &self.inner.store;
        let prefix = &self.inner.prefix;
        self.request("listing", "", || async move {
            store.list_with_delimiter(Some(prefix)).await.map(|_| ())
        })
    }

    /// The object at `key`, or `None` if there is none. Objects over `max_bytes` are refused
    /// before they are read.
    pub fn get(&self, key: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.object_path(key)?;
        let (store, path) = (&self.inner.store, &path);
        let result = self.request("reading", key, || async move {
            let got = match store.get(path).await {
                Ok(got) => got,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(e),
            };
            if got.meta.size > max_bytes {
                return Ok(Some(Err(got.meta.size)));
            }
            Ok(Some(Ok(got.bytes().await?.to_vec())))
        });
        match result? {
            None => Ok(None),
            Some(Ok(bytes)) => Ok(Some(bytes)),
            Some(Err(size)) => Err(StoreError::BadObject {
                url: self.url().to_string(),
                key: key.to_string(),
                reason: format!("{size} bytes, more than the {max_bytes} allowed"),
            }),
        }
    }

    /// Writes `bytes` at `key` in one request: readers see the old object or the new one,
    /// never a part.
    pub fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let path = self.object_path(key)?;
        let (store, path) = (&self.inner.store, &path);
        // `Bytes` inside: a retry clones a reference, not the data.
        let payload = PutPayload::from(bytes);
        self.request("writing", key, || {
            let payload = payload.clone();
            async move { store.put(path, payload).await.map(|_| ()) }
        })
    }

    /// Uploads a local file to `key`; returns its size.
    pub fn put_file(&self, key: &str, file: &Path) -> Result<u64, StoreError> {
        let bytes = std::fs::read(file).map_err(StoreError::local("reading", file))?;
        let size = bytes.len() as u64;
        self.put(key, bytes)?;
        Ok(size)
    }

    /// Downloads `key` to `dest` atomically (temporary file, fsync, rename); `false` if there is
    /// no such object.
    pub fn download(&self, key: &str, dest: &Path) -> Result<bool, StoreError> {
        let Some(bytes) = self.get(key, MAX_OBJECT_BYTES)? else {
            return Ok(false);
        };
        write_atomic(dest, &bytes).map_err(StoreError::local("writing", dest))?;
        Ok(true)
    }

    /// Every object under `dir` (relative to the run; `""` for all), keys relative to the run,
    /// sorted. Keys that could not be addressed again (odd characters) are left out.
    pub fn list(&self, dir: &str) -> Result<Vec<ObjectEntry>, StoreError> {
        let path = if dir.is_empty() {
            self.inner.prefix.clone()
        } else {
            self.object_path(dir)?
        };
        let (store, path) = (&self.inner.store, &path);
        let metas: Vec<object_store::ObjectMeta> = self.request("listing", dir, || async move {
            store.list(Some(path)).try_collect().await
        })?;
        let skip = self.inner.prefix.parts().count();
        let mut entries: Vec<ObjectEntry> = metas
            .into_iter()
            .filter_map(|meta| {
                let parts: Vec<String> = meta
                    .location
                    .parts()
                    .skip(skip)
                    .map(|p| p.as_ref().to_string())
                    .collect();
                let key = parts.join("/");
                self.object_path(&key).ok()?;
                Some(ObjectEntry {
                    key,
                    size: meta.size,
                })
            })
            .collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(entries)
    }

    /// Removes `key` (already gone is fine).
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.object_path(key)?;
        let (store, path) = (&self.inner.store, &path);
        self.request("deleting", key, || async move {
            match store.delete(path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(e),
            }
        })
    }
}

/// `pause` shortened by a random part of up to half of it.
fn jittered(pause: Duration) -> Duration {
    pause.mul_f64(1.0 - 0.5 * rand::random::<f64>())
}

/// Joins key segments after checking each: not empty, not `.` or `..`, no `\`, no control
/// characters.
fn checked_path(segments: &[&str]) -> Result<ObjectPath, String> {
    let mut parts = Vec::with_capacity(segments.len());
    for segment in segments {
        if segment.is_empty() || *segment == "." || *segment == ".." {
            return Err(format!(
                "empty, `.` or `..` path segment in `{}`",
                segments.join("/")
            ));
        }
        if segment.chars().any(|c| c == '\\' || c.is_control()) {
            return Err(format!(
                "`{segment}` has a backslash or a control character"
            ));
        }
        parts.push(
            object_store::path::PathPart::parse(segment)
                .map_err(|e| format!("`{segment}`: {e}"))?,
        );
    }
    Ok(parts.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_round_trip_and_listings_are_relative_to_the_run() {
        let run = RemoteRun::open("memory://bucket/runs/a").unwrap();
        run.put("shards/s1.npz", b"one".to_vec()).unwrap();
        run.put("checkpoints/step-000000002/model.json", b"{}".to_vec())
            .unwrap();
        assert_eq!(run.get("shards/s1.npz", 10).unwrap(), Some(b"one".to_vec()));
        assert_eq!(run.get("shards/none.npz", 10).unwrap(), None);
        let keys: Vec<String> = run.list("").unwrap().into_iter().map(|e| e.key).collect();
        assert_eq!(
            keys,
            ["checkpoints/step-000000002/model.json", "shards/s1.npz"]
        );
        assert_eq!(run.list("shards").unwrap()[0].size, 3);
        run.delete("shards/s1.npz").unwrap();
        run.delete("shards/s1.npz").unwrap();
        assert!(run.list("shards").unwrap().is_empty());
    }

    #[test]
    fn keys_cannot_leave_the_run_and_big_objects_are_refused() {
        let run = RemoteRun::open("memory://bucket/run").unwrap();
        for key in ["../x", "a/../b", "", "a//b", "/a", "a\\b", "a/\u{7}"] {
            assert!(run.put(key, vec![1]).is_err(), "{key:?}");
        }
        run.put("big", vec![0; 100]).unwrap();
        let error = run.get("big", 99).unwrap_err().to_string();
        assert!(error.contains("more than the 99 allowed"), "{error}");
    }

    #[test]
    fn file_urls_put_objects_on_the_local_disk() {
        let dir = tempfile::tempdir().unwrap();
        let run = RemoteRun::open(&format!("file://{}", dir.path().display())).unwrap();
        run.put("games/g1.txt", b"record".to_vec()).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("games/g1.txt")).unwrap(),
            b"record"
        );
        let dest = dir.path().join("copy/g1.txt");
        assert!(run.download("games/g1.txt", &dest).unwrap());
        assert!(!run.download("games/none.txt", &dest).unwrap());
        assert_eq!(std::fs::read(dest).unwrap(), b"record");
    }

    #[test]
    fn a_store_that_is_away_is_waited_for_up_to_the_patience() {
        use std::io::{Read, Write};
        use std::net::TcpListener;
        // The only test here that uses S3 (and so the environment).
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        for (name, value) in [
            ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", "test".into()),
            ("AWS_REGION", "us-east-1".into()),
        ] {
            std::env::set_var(name, value);
        }
        let run = RemoteRun::open("s3://bucket/run")
            .unwrap()
            .with_patience(Duration::from_secs(2));

        // Nobody listens: an impatient handle fails at once, a patient one after its patience.
        let error = run.impatient().get("k", 10).unwrap_err();
        assert!(error.is_transient(), "{error}");
        let started = Instant::now();
        let error = run.get("k", 10).unwrap_err();
        assert!(matches!(error, StoreError::GaveUp { .. }), "{error}");
        assert!(
            started.elapsed() >= Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );

        // The store comes back 3 s into a request: the request waits and gets the object.
        let run = run.with_patience(Duration::from_secs(120));
        let server = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(3));
            let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
            let (mut stream, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap() == 1 {
                head.push(byte[0]);
            }
            let reply = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"e\"\r\n\
                         Last-Modified: Tue, 01 Jan 2030 00:00:00 GMT\r\nConnection: close\r\n\r\nhello";
            stream.write_all(reply.as_bytes()).unwrap();
        });
        let started = Instant::now();
        assert_eq!(run.get("k", 10).unwrap(), Some(b"hello".to_vec()));
        assert!(
            started.elapsed() >= Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        server.join().unwrap();
    }

    #[test]
    fn credentials_in_urls_are_refused() {
        let error = RemoteRun::open("s3://key:secret@bucket/run")
            .unwrap_err()
            .to_string();
        assert!(error.contains("go in the environment"), "{error}");
        assert!(!error.contains("secret"), "{error}");
    }
}
