//! The HTTP transport: [`hyper`] (HTTP/1.1) on a one-thread tokio runtime, listening on a socket
//! bound here (so a bad address is a clear error and port 0 picks a free port). Each request
//! becomes an [`ApiRequest`], answered by [`App::handle`] on one of a few blocking threads (so a
//! page keeps loading while the engine thinks for another request), and the [`ApiResponse`] goes
//! back as it is.
//!
//! Nothing a client declares sizes an allocation or holds a thread: a body declared or sent
//! beyond [`MAX_BODY_BYTES`] is refused with 413 before it is read (tiny_http, used before,
//! allocated whatever `Content-Length` said and aborted the process, issue #18), a request's
//! head and body must arrive within short deadlines, and a handler thread is only taken once
//! the whole body is in.
//!
//! Nor can many connections keep the user waiting (issue #34: 300 trickling sockets delayed a
//! GET by 25 s, 10,000 idle ones by over a minute, while they waited for places). The accept
//! loop takes every connection at once and never waits; [`Connections`] keeps the number open
//! bounded, in all and per peer address, by closing the connection that has waited longest for
//! a request (idle, silent or trickling) to make room for a new one. A connection whose
//! request is being answered is never closed for room; when there is none to close, the new
//! connection is.
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::oneshot;

use crate::app::App;
use crate::error::{ApiError, ServeError};
use crate::request::{ApiRequest, ApiResponse, Method, MAX_BODY_BYTES};

/// `koshogi serve`'s default port.
pub const DEFAULT_PORT: u16 = 8610;
/// Request threads: enough for a page's parallel loads while one request waits on the engine.
const REQUEST_THREADS: usize = 4;
/// How long stopping waits for requests being answered (the engine may be thinking).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// Deadlines and caps, so slow, stalled or numerous clients cannot pile up resources.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// A request's head must arrive within this; it also closes idle keep-alive connections.
    /// A browser sends a head in one piece, so this can be short.
    pub header: Duration,
    /// A request's body (at most [`MAX_BODY_BYTES`]) must arrive within this, or 408.
    pub body: Duration,
    /// A connection older than this is closed once its current request is answered, and
    /// `close_grace` later in any case (a client that never reads its reply).
    pub lifetime: Duration,
    pub close_grace: Duration,
    /// Connections open at once; a new one beyond it takes the place of the one that has
    /// waited longest for a request (see [`Connections`]).
    pub connections: usize,
    /// Connections open at once from one peer address, likewise (a browser opens about six).
    pub per_peer: usize,
}

impl Limits {
    pub(crate) const DEFAULT: Limits = Limits {
        header: Duration::from_secs(10),
        body: Duration::from_secs(15),
        lifetime: Duration::from_secs(600),
        close_grace: Duration::from_secs(120),
        connections: 512,
        per_peer: 128,
    };
}

/// A started server; [`RunningServer::wait`] serves until the process ends. Dropping it stops
/// the server without waiting.
pub struct RunningServer {
    address: SocketAddr,
    /// Sending (or dropping) it stops accepting connections.
    stop: oneshot::Sender<()>,
    thread: JoinHandle<()>,
}

impl RunningServer {
    /// Binds `bind:port` (port 0 = any free port) and starts answering with `app`.
    pub fn start(app: App, bind: IpAddr, port: u16) -> Result<RunningServer, ServeError> {
        RunningServer::start_with(app, bind, port, Limits::DEFAULT)
    }

    pub(crate) fn start_with(
        app: App,
        bind: IpAddr,
        port: u16,
        limits: Limits,
    ) -> Result<RunningServer, ServeError> {
        let requested = SocketAddr::new(bind, port);
        let bind_error = |message: String| ServeError::Bind {
            address: requested.to_string(),
            message,
        };
        // Bound synchronously, so the caller gets the error and the chosen port.
        let listener = TcpListener::bind(requested).map_err(|e| bind_error(e.to_string()))?;
        let address = listener
            .local_addr()
            .map_err(|e| bind_error(e.to_string()))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| bind_error(e.to_string()))?;
        // One thread does all the socket work; handlers run on the blocking pool.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .max_blocking_threads(REQUEST_THREADS)
            .thread_name("koshogi-serve-request")
            .build()
            .map_err(|e| ServeError::Http(e.to_string()))?;
        let listener = {
            let _context = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(|e| bind_error(e.to_string()))?
        };
        let shared = Arc::new(Shared {
            app,
            bound: address,
            limits,
        });
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("koshogi-serve-http".into())
            .spawn(move || {
                runtime.block_on(accept(listener, shared, stopped));
                runtime.shutdown_timeout(SHUTDOWN_WAIT);
            })
            .map_err(|e| ServeError::Http(e.to_string()))?;
        Ok(RunningServer {
            address,
            stop,
            thread,
        })
    }

    /// The address actually bound (with the chosen port when 0 was asked for).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// `http://<address>/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// Serves until the process ends.
    pub fn wait(self) {
        let RunningServer { stop, thread, .. } = self;
        let _ = thread.join();
        drop(stop);
    }

    /// Stops accepting, closes the connections and waits (a few seconds at most) for requests
    /// being answered.
    pub fn shutdown(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}

/// What every connection needs.
struct Shared {
    app: App,
    bound: SocketAddr,
    limits: Limits,
}

/// The open connections: whether each waits for a request (and since when) or is being
/// answered, so that a new connection can take the place of the one that has waited longest.
#[derive(Default)]
pub(crate) struct Connections {
    /// Numbers connections and orders waits (a counter, not a clock: no two are equal).
    tick: u64,
    open: HashMap<u64, OpenConnection>,
    per_peer: HashMap<IpAddr, usize>,
}

struct OpenConnection {
    peer: IpAddr,
    /// When the connection began waiting for a request (its head or its body), or `None`
    /// while one is being answered.
    waiting_since: Option<u64>,
    /// Closes the connection (its task ends and drops the socket).
    close: Option<oneshot::Sender<()>>,
}

impl Connections {
    /// Registers a new connection from `peer`, closing the longest-waiting one of that peer
    /// (at the per-peer cap) or of the peer with the most connections (at the global cap).
    /// `None` if no connection could make room: the new one is to be closed.
    fn admit(&mut self, peer: IpAddr, limits: &Limits) -> Option<(u64, oneshot::Receiver<()>)> {
        if self.per_peer.get(&peer).copied().unwrap_or(0) >= limits.per_peer
            && !self.close_longest_waiting(|p| p == peer)
        {
            return None;
        }
        if self.open.len() >= limits.connections {
            let busiest = self
                .per_peer
                .iter()
                .max_by_key(|(_, n)| **n)
                .map(|(p, _)| *p);
            let made_room = busiest.is_some_and(|b| self.close_longest_waiting(|p| p == b))
                || self.close_longest_waiting(|_| true);
            if !made_room {
                return None;
            }
        }
        self.tick += 1;
        let id = self.tick;
        let (close, closed) = oneshot::channel();
        self.open.insert(
            id,
            OpenConnection {
                peer,
                waiting_since: Some(id),
                close: Some(close),
            },
        );
        *self.per_peer.entry(peer).or_default() += 1;
        Some((id, closed))
    }

    /// Closes the connection of a matching peer that has waited longest for a request.
    fn close_longest_waiting(&mut self, matches: impl Fn(IpAddr) -> bool) -> bool {
        let oldest = self
            .open
            .iter()
            .filter(|(_, c)| matches(c.peer))
            .filter_map(|(id, c)| c.waiting_since.map(|since| (since, *id)))
            .min();
        let Some((_, id)) = oldest else {
            return false;
        };
        self.remove(id);
        true
    }

    /// Forgets a connection (closing it if it is still open).
    fn remove(&mut self, id: u64) {
        if let Some(mut gone) = self.open.remove(&id) {
            if let Some(close) = gone.close.take() {
                let _ = close.send(());
            }
            if let Some(n) = self.per_peer.get_mut(&gone.peer) {
                *n -= 1;
                if *n == 0 {
                    self.per_peer.remove(&gone.peer);
                }
            }
        }
    }

    /// Marks a connection as answering a request (`false`) or waiting for one (`true`).
    fn set_waiting(&mut self, id: u64, waiting: bool) {
        self.tick += 1;
        let tick = self.tick;
        if let Some(open) = self.open.get_mut(&id) {
            open.waiting_since = waiting.then_some(tick);
        }
    }
}

/// The registry's lock; a panic elsewhere while it was held leaves consistent enough data.
fn lock(connections: &Mutex<Connections>) -> std::sync::MutexGuard<'_, Connections> {
    connections.lock().unwrap_or_else(|p| p.into_inner())
}

/// One connection's place in [`Connections`], given up when the connection ends.
struct Place {
    id: u64,
    connections: Arc<Mutex<Connections>>,
}

impl Drop for Place {
    fn drop(&mut self) {
        lock(&self.connections).remove(self.id);
    }
}

/// Marks a connection as answering a request while it lives.
struct Answering<'a>(&'a Place);

impl<'a> Answering<'a> {
    fn start(place: &'a Place) -> Self {
        lock(&place.connections).set_waiting(place.id, false);
        Answering(place)
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        lock(&self.0.connections).set_waiting(self.0.id, true);
    }
}

/// Accepts connections until told to stop, never waiting for room (see [`Connections`]).
async fn accept(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    mut stopped: oneshot::Receiver<()>,
) {
    let connections = Arc::new(Mutex::new(Connections::default()));
    loop {
        let accepted = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                let admitted = lock(&connections).admit(peer.ip(), &shared.limits);
                // Without a place the stream is dropped here: closed at once.
                if let Some((id, closed)) = admitted {
                    let place = Place {
                        id,
                        connections: connections.clone(),
                    };
                    tokio::spawn(connection(stream, shared.clone(), place, closed));
                }
            }
            Err(e) => {
                // Out of file descriptors, say: wait for some to close rather than spin.
                tracing::warn!("accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Serves one connection's requests (HTTP/1.1 keep-alive) within [`Limits`], until `closed`
/// fires (its place was given to a newer connection).
async fn connection(
    stream: tokio::net::TcpStream,
    shared: Arc<Shared>,
    place: Place,
    closed: oneshot::Receiver<()>,
) {
    let _ = stream.set_nodelay(true);
    let limits = shared.limits;
    let place = Arc::new(place);
    let service =
        hyper::service::service_fn(move |request| answer(shared.clone(), place.clone(), request));
    let mut builder = hyper::server::conn::http1::Builder::new();
    // hyper's header deadline only works with a timer.
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header);
    let mut connection = std::pin::pin!(builder.serve_connection(TokioIo::new(stream), service));
    let result = tokio::select! {
        result = connection.as_mut() => result,
        _ = closed => return,
        () = tokio::time::sleep(limits.lifetime) => {
            connection.as_mut().graceful_shutdown();
            match tokio::time::timeout(limits.close_grace, connection).await {
                Ok(result) => result,
                Err(_) => return,
            }
        }
    };
    if let Err(e) = result {
        // A client that went away or sent garbage is nobody's problem.
        tracing::debug!("connection: {e}");
    }
}

/// One request: checked and read here, answered by [`App::handle`] on a blocking thread.
async fn answer(
    shared: Arc<Shared>,
    place: Arc<Place>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let http_method = request.method().clone();
    let method = match http_method {
        hyper::Method::GET | hyper::Method::HEAD => Method::Get,
        hyper::Method::POST => Method::Post,
        _ => Method::Other,
    };
    let uri = request.uri();
    let url = uri
        .path_and_query()
        .map_or(uri.path(), |p| p.as_str())
        .to_string();
    // A connection whose body is still arriving waits like an idle one; once the request is
    // in, it is being answered and keeps its place.
    let response = match receive(&shared, method, &url, request).await {
        Ok(api_request) => {
            let _answering = Answering::start(&place);
            handle(shared, api_request).await
        }
        Err(error) => ApiResponse::error(&error),
    };
    if response.status >= 400 {
        tracing::debug!(
            "{http_method} {} -> {}",
            koshogi_rules::notation::excerpt(&url),
            response.status
        );
    }
    let status = StatusCode::from_u16(response.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type = HeaderValue::from_str(response.content_type)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    let mut reply = Response::new(Full::new(Bytes::from(response.body)));
    *reply.status_mut() = status;
    reply.headers_mut().insert(CONTENT_TYPE, content_type);
    reply
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if response.content_type == crate::api_training::SVG_CONTENT_TYPE {
        // A run's SVG opened on its own is a document of this origin: it may style itself,
        // never run a script or load anything.
        reply.headers_mut().insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
        );
    }
    Ok(reply)
}

/// The [`ApiRequest`] of an acceptable request: not a foreign one, its body within
/// [`MAX_BODY_BYTES`] and in on time.
async fn receive(
    shared: &Shared,
    method: Method,
    url: &str,
    request: Request<Incoming>,
) -> Result<ApiRequest, ApiError> {
    let (head, body) = request.into_parts();
    let header = |name: &'static str| {
        head.headers
            .get(name)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
    };
    if let Some(error) = foreign_request(shared.bound, method, header) {
        return Err(error);
    }
    let mut api_request = ApiRequest::new(method, url);
    api_request.body = read_body(body, shared.limits.body).await?;
    Ok(api_request)
}

/// The body, refused with 413 when its declared length (hyper has checked `Content-Length` is
/// one valid number) is over the limit — before anything is read, so no `100 Continue` is sent
/// and nothing is allocated for it — or when more than the limit arrives (chunked).
async fn read_body(body: Incoming, deadline: Duration) -> Result<Vec<u8>, ApiError> {
    let too_large = || ApiError {
        status: 413,
        message: format!("request body over {MAX_BODY_BYTES} bytes"),
    };
    if body.size_hint().lower() > MAX_BODY_BYTES as u64 {
        return Err(too_large());
    }
    match tokio::time::timeout(deadline, Limited::new(body, MAX_BODY_BYTES).collect()).await {
        Err(_) => Err(ApiError {
            status: 408,
            message: format!(
                "the request body did not arrive within {} s",
                deadline.as_secs()
            ),
        }),
        Ok(Err(e)) if e.is::<LengthLimitError>() => Err(too_large()),
        Ok(Err(e)) => Err(ApiError::bad_request(format!("reading the body: {e}"))),
        Ok(Ok(collected)) => Ok(collected.to_bytes().to_vec()),
    }
}

/// [`App::handle`] on a blocking thread (it may wait for the engine).
async fn handle(shared: Arc<Shared>, request: ApiRequest) -> ApiResponse {
    let path = request.path.clone();
    let answered = tokio::task::spawn_blocking(move || {
        // A bug in a handler must not take a request thread down with it.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.app.handle(&request))).ok()
    })
    .await;
    match answered {
        Ok(Some(response)) => response,
        _ => ApiResponse::error(&ApiError::internal(format!(
            "internal error while answering {}",
            koshogi_rules::notation::excerpt(&path)
        ))),
    }
}

/// Refuses requests another web site could have made the user's browser send: a `Host` that
/// is not this server's (DNS rebinding: a hostile name resolving to 127.0.0.1 reads run data
/// under its own origin), a POST from another `Origin`, or a POST whose body is not declared
/// JSON (a cross-site form can send `text/plain` without asking the server first).
fn foreign_request(
    bound: SocketAddr,
    method: Method,
    header: impl Fn(&'static str) -> Option<String>,
) -> Option<ApiError> {
    let forbidden = |message: String| {
        Some(ApiError {
            status: 403,
            message,
        })
    };
    let host = header("Host");
    if let Some(allowed) = allowed_hosts(bound) {
        match &host {
            Some(host) if allowed.iter().any(|a| a.eq_ignore_ascii_case(host)) => {}
            Some(host) => {
                return forbidden(format!(
                    "Host {:?} is not this server's",
                    koshogi_rules::notation::excerpt(host)
                ))
            }
            None => return forbidden("no Host header".into()),
        }
    }
    if method != Method::Post {
        return None;
    }
    if let (Some(origin), Some(host)) = (header("Origin"), &host) {
        if !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
            return forbidden(format!(
                "cross-origin request from {:?}",
                koshogi_rules::notation::excerpt(&origin)
            ));
        }
    }
    let json = header("Content-Type").is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json {
        return Some(ApiError {
            status: 415,
            message: "a POST body must be sent as Content-Type: application/json".into(),
        });
    }
    None
}

/// The `Host` values a browser sends to this server, or `None` when it listens on every
/// address (then any name may reach it, and the user chose that with `--bind`).
fn allowed_hosts(bound: SocketAddr) -> Option<Vec<String>> {
    let ip = bound.ip();
    if ip.is_unspecified() {
        return None;
    }
    let port = bound.port();
    let mut hosts = vec![bound.to_string()];
    if ip.is_loopback() {
        hosts.extend([
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
        ]);
    }
    if port == 80 {
        hosts.push(match ip {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("[{v6}]"),
        });
    }
    Some(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bound: &str, method: Method, headers: &[(&str, &str)]) -> Option<u16> {
        let bound: SocketAddr = bound.parse().unwrap();
        foreign_request(bound, method, |name| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.to_string())
        })
        .map(|e| e.status)
    }

    const JSON: (&str, &str) = ("Content-Type", "application/json; charset=utf-8");

    #[test]
    fn the_page_and_local_clients_are_served() {
        let local = "127.0.0.1:8610";
        for host in [
            "127.0.0.1:8610",
            "localhost:8610",
            "LOCALHOST:8610",
            "[::1]:8610",
        ] {
            assert_eq!(check(local, Method::Get, &[("Host", host)]), None, "{host}");
        }
        let same_origin = [
            ("Host", "localhost:8610"),
            ("Origin", "http://localhost:8610"),
            JSON,
        ];
        assert_eq!(check(local, Method::Post, &same_origin), None);
        // No Origin (curl, scripts) is fine.
        assert_eq!(check(local, Method::Post, &[("Host", local), JSON]), None);
        // Listening everywhere: any name.
        assert_eq!(
            check("0.0.0.0:80", Method::Get, &[("Host", "box.lan")]),
            None
        );
    }

    #[test]
    fn cross_site_and_rebinding_requests_are_refused() {
        let local = "127.0.0.1:8610";
        // DNS rebinding: a foreign name that resolves here.
        assert_eq!(
            check(local, Method::Get, &[("Host", "evil.example:8610")]),
            Some(403)
        );
        assert_eq!(
            check(local, Method::Get, &[("Host", "127.0.0.1:9999")]),
            Some(403)
        );
        assert_eq!(check(local, Method::Get, &[]), Some(403));
        // A POST from another site's page.
        let cross = [("Host", local), ("Origin", "http://evil.example"), JSON];
        assert_eq!(check(local, Method::Post, &cross), Some(403));
        // A form-style body that needs no preflight.
        let plain = [("Host", local), ("Content-Type", "text/plain")];
        assert_eq!(check(local, Method::Post, &plain), Some(415));
        assert_eq!(check(local, Method::Post, &[("Host", local)]), Some(415));
    }

    #[test]
    fn error_messages_quote_at_most_an_excerpt() {
        let long = "x".repeat(1_000_000);
        let bound: SocketAddr = "127.0.0.1:8610".parse().unwrap();
        let error = foreign_request(bound, Method::Get, |_| Some(long.clone())).unwrap();
        assert!(error.message.len() < 200, "{}", error.message.len());
    }

    /// The deadlines, on a real socket with short [`Limits`].
    mod deadlines {
        use std::io::{Read, Write};
        use std::net::{Ipv4Addr, TcpStream};
        use std::time::Instant;

        use super::*;
        use crate::app::AppConfig;

        const QUICK: Limits = Limits {
            header: Duration::from_millis(800),
            body: Duration::from_millis(800),
            lifetime: Duration::from_secs(60),
            close_grace: Duration::from_secs(1),
            connections: 256,
            per_peer: 256,
        };

        fn start(limits: Limits) -> (tempfile::TempDir, RunningServer) {
            let dir = tempfile::tempdir().unwrap();
            let app = App::new(AppConfig {
                run_dir: dir.path().to_path_buf(),
                rules: koshogi_rules::RulesOptions::default(),
                runtime: koshogi_nn::RuntimeConfig::default(),
                threads: 1,
                max_plies: None,
            })
            .unwrap();
            let localhost = IpAddr::V4(Ipv4Addr::LOCALHOST);
            let server = RunningServer::start_with(app, localhost, 0, limits).unwrap();
            (dir, server)
        }

        /// Everything the server sends until it closes the connection (a reset counts as
        /// closing), and how long that took; fails after 20 s.
        fn until_closed(stream: &mut TcpStream) -> (String, Duration) {
            let started = Instant::now();
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            let mut received = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                match stream.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => received.extend_from_slice(&buffer[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                    Err(e) => panic!("the server kept the connection open: {e}"),
                }
            }
            (
                String::from_utf8_lossy(&received).into_owned(),
                started.elapsed(),
            )
        }

        fn get(address: SocketAddr, keep_alive: bool) -> String {
            let connection = if keep_alive { "keep-alive" } else { "close" };
            format!("GET /api/run HTTP/1.1\r\nHost: {address}\r\nConnection: {connection}\r\n\r\n")
        }

        #[test]
        fn a_body_that_does_not_arrive_in_time_is_a_408() {
            let (_dir, server) = start(QUICK);
            let address = server.address();
            let mut stream = TcpStream::connect(address).unwrap();
            let head = format!(
                "POST /api/play/new HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"a\":"
            );
            stream.write_all(head.as_bytes()).unwrap();
            let (reply, took) = until_closed(&mut stream);
            assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
            assert!(took >= Duration::from_millis(700), "{took:?}");
            server.shutdown();
        }

        #[test]
        fn silent_slow_and_idle_clients_are_disconnected() {
            let (_dir, server) = start(QUICK);
            let address = server.address();
            // Connects and says nothing.
            let mut silent = TcpStream::connect(address).unwrap();
            // Starts a request and stops (slowloris).
            let mut slow = TcpStream::connect(address).unwrap();
            slow.write_all(b"GET / HTTP/1.1\r\nHost: 127").unwrap();
            // Asks once, keeps the connection and asks nothing more.
            let mut idle = TcpStream::connect(address).unwrap();
            idle.write_all(get(address, true).as_bytes()).unwrap();
            for (what, stream) in [("silent", &mut silent), ("slow", &mut slow)] {
                let (reply, _) = until_closed(stream);
                assert!(!reply.contains(" 200 "), "{what}: {reply}");
            }
            let (reply, _) = until_closed(&mut idle);
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
            server.shutdown();
        }

        #[test]
        fn an_old_connection_is_closed_once_answered() {
            let limits = Limits {
                header: Duration::from_secs(60),
                lifetime: Duration::from_millis(500),
                ..QUICK
            };
            let (_dir, server) = start(limits);
            let address = server.address();
            let mut stream = TcpStream::connect(address).unwrap();
            stream.write_all(get(address, true).as_bytes()).unwrap();
            let (reply, took) = until_closed(&mut stream);
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
            assert!(took < Duration::from_secs(10), "{took:?}");
            server.shutdown();
        }

        /// Whether the server has closed `stream` (within `wait`); `false` if it is still open.
        fn closed_by_server(stream: &mut TcpStream, wait: Duration) -> bool {
            stream.set_read_timeout(Some(wait)).unwrap();
            let mut buffer = [0u8; 64];
            match stream.read(&mut buffer) {
                Ok(0) => true,
                Ok(_) => false,
                Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
            }
        }

        /// A connection over the cap takes the place of the one that has waited longest for
        /// a request, instead of waiting for a place (and the accept loop goes on).
        #[test]
        fn a_connection_over_the_cap_takes_the_place_of_the_longest_waiting() {
            let limits = Limits {
                header: Duration::from_secs(60),
                connections: 2,
                ..QUICK
            };
            let (_dir, server) = start(limits);
            let address = server.address();
            let mut oldest = TcpStream::connect(address).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            let mut newer = TcpStream::connect(address).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            let mut third = TcpStream::connect(address).unwrap();
            third.write_all(get(address, false).as_bytes()).unwrap();
            let (reply, took) = until_closed(&mut third);
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
            assert!(took < Duration::from_secs(10), "{took:?}");
            assert!(closed_by_server(&mut oldest, Duration::from_secs(5)));
            assert!(!closed_by_server(&mut newer, Duration::from_millis(300)));
            server.shutdown();
        }

        /// The same through the cap per peer address (every client here is 127.0.0.1).
        #[test]
        fn a_peer_over_its_cap_gives_up_its_longest_waiting_connection() {
            let limits = Limits {
                header: Duration::from_secs(60),
                per_peer: 1,
                ..QUICK
            };
            let (_dir, server) = start(limits);
            let address = server.address();
            let mut first = TcpStream::connect(address).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            let mut second = TcpStream::connect(address).unwrap();
            second.write_all(get(address, false).as_bytes()).unwrap();
            let (reply, _) = until_closed(&mut second);
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
            assert!(closed_by_server(&mut first, Duration::from_secs(5)));
            server.shutdown();
        }

        /// Raises this process's open-file limit to its hard limit (the flood needs a few
        /// thousand descriptors: both ends of every connection are in this process).
        fn raise_file_limit() {
            // SAFETY: getrlimit/setrlimit with a pointer to a local struct.
            unsafe {
                let mut limit = std::mem::zeroed::<libc::rlimit>();
                if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
                    limit.rlim_cur = limit.rlim_max;
                    libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                }
            }
        }

        fn count_from_env(name: &str, default: usize) -> usize {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        }

        /// Issue #34: with 1,000 idle connections and 300 that trickle a request head a byte
        /// a second, a normal request on a new connection is answered at once, with the
        /// default limits. (KOSHOGI_FLOOD_IDLE and KOSHOGI_FLOOD_SLOW change the numbers.)
        #[test]
        fn a_request_is_answered_promptly_under_a_flood_of_idle_and_slow_connections() {
            raise_file_limit();
            let idle_count = count_from_env("KOSHOGI_FLOOD_IDLE", 1_000);
            let slow_count = count_from_env("KOSHOGI_FLOOD_SLOW", 300);
            let (_dir, server) = start(Limits::DEFAULT);
            let address = server.address();
            let idle: Vec<TcpStream> = (0..idle_count)
                .map(|_| TcpStream::connect(address).unwrap())
                .collect();
            let mut slow: Vec<TcpStream> = (0..slow_count)
                .map(|_| TcpStream::connect(address).unwrap())
                .collect();
            let head = format!("GET /api/run HTTP/1.1\r\nHost: {address}\r\nX-Pad: ");
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let trickling = {
                let done = done.clone();
                std::thread::spawn(move || {
                    let mut sent = 0;
                    while !done.load(std::sync::atomic::Ordering::SeqCst) {
                        let byte = head.as_bytes().get(sent).copied().unwrap_or(b'x');
                        for stream in &mut slow {
                            // Closed by the server (for room, or at its deadline): fine.
                            let _ = stream.write_all(&[byte]);
                        }
                        sent += 1;
                        std::thread::sleep(Duration::from_secs(1));
                    }
                    slow
                })
            };
            std::thread::sleep(Duration::from_millis(1500));
            let started = Instant::now();
            let mut user = TcpStream::connect(address).unwrap();
            user.write_all(get(address, false).as_bytes()).unwrap();
            let (reply, _) = until_closed(&mut user);
            let took = started.elapsed();
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            let slow = trickling.join().unwrap();
            eprintln!(
                "with {} idle and {} slow connections: GET answered in {:.1} ms",
                idle.len(),
                slow.len(),
                took.as_secs_f64() * 1000.0
            );
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
            assert!(took < Duration::from_secs(5), "{took:?}");
            server.shutdown();
        }
    }
}
