//! The HTTP transport: [`hyper`] (HTTP/1.1) on a one-thread tokio runtime, listening on a socket
//! bound here (so a bad address is a clear error and port 0 picks a free port). Each request
//! becomes an [`ApiRequest`], answered by [`App::handle`] on one of a few blocking threads (so a
//! page keeps loading while the engine thinks for another request), and the [`ApiResponse`] goes
//! back as it is.
//!
//! Nothing a client declares sizes an allocation or holds a thread: a body declared or sent
//! beyond [`MAX_BODY_BYTES`] is refused with 413 before it is read (tiny_http, used before,
//! allocated whatever `Content-Length` said and aborted the process, issue #18), a request's
//! head and body must arrive within deadlines, a handler thread is only taken once the whole
//! body is in, and open connections are capped.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};

use crate::api::{ApiRequest, ApiResponse, App, Method, MAX_BODY_BYTES};
use crate::error::{ApiError, ServeError};

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
    pub header: Duration,
    /// A request's body (at most [`MAX_BODY_BYTES`]) must arrive within this, or 408.
    pub body: Duration,
    /// A connection older than this is closed once its current request is answered, and
    /// `close_grace` later in any case (a client that never reads its reply).
    pub lifetime: Duration,
    pub close_grace: Duration,
    /// Connections open at once; further ones wait in the listen backlog.
    pub connections: usize,
}

impl Limits {
    pub(crate) const DEFAULT: Limits = Limits {
        header: Duration::from_secs(30),
        body: Duration::from_secs(30),
        lifetime: Duration::from_secs(600),
        close_grace: Duration::from_secs(120),
        connections: 256,
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

/// Accepts connections (at most `limits.connections` open) until told to stop.
async fn accept(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    mut stopped: oneshot::Receiver<()>,
) {
    let open = Arc::new(Semaphore::new(shared.limits.connections));
    loop {
        let permit = tokio::select! {
            _ = &mut stopped => return,
            permit = open.clone().acquire_owned() => permit,
        };
        let Ok(permit) = permit else { return };
        let accepted = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                tokio::spawn(connection(stream, shared.clone(), permit));
            }
            Err(e) => {
                // Out of file descriptors, say: wait for some to close rather than spin.
                tracing::warn!("accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Serves one connection's requests (HTTP/1.1 keep-alive) within [`Limits`].
async fn connection(
    stream: tokio::net::TcpStream,
    shared: Arc<Shared>,
    _open: OwnedSemaphorePermit,
) {
    let _ = stream.set_nodelay(true);
    let limits = shared.limits;
    let service = hyper::service::service_fn(move |request| answer(shared.clone(), request));
    let mut builder = hyper::server::conn::http1::Builder::new();
    // hyper's header deadline only works with a timer.
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header);
    let mut connection = std::pin::pin!(builder.serve_connection(TokioIo::new(stream), service));
    let result = tokio::select! {
        result = connection.as_mut() => result,
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
    let response = match receive(&shared, method, &url, request).await {
        Ok(api_request) => handle(shared, api_request).await,
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
        use crate::api::AppConfig;

        const QUICK: Limits = Limits {
            header: Duration::from_millis(800),
            body: Duration::from_millis(800),
            lifetime: Duration::from_secs(60),
            close_grace: Duration::from_secs(1),
            connections: 256,
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

        /// Connections over the cap wait for a free place instead of being refused.
        #[test]
        fn connections_over_the_cap_wait_their_turn() {
            let limits = Limits {
                connections: 2,
                ..QUICK
            };
            let (_dir, server) = start(limits);
            let address = server.address();
            let _held: Vec<TcpStream> = (0..2)
                .map(|_| TcpStream::connect(address).unwrap())
                .collect();
            std::thread::sleep(Duration::from_millis(100));
            let mut third = TcpStream::connect(address).unwrap();
            third.write_all(get(address, false).as_bytes()).unwrap();
            let (reply, took) = until_closed(&mut third);
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
            // Answered once the silent ones reached their header deadline.
            assert!(took >= Duration::from_millis(500), "{took:?}");
            server.shutdown();
        }
    }
}
