//! The HTTP transport: a [`tiny_http`] server on a socket bound here (so a bad address is a clear
//! error and port 0 picks a free port), a few request threads (so a page keeps loading while the
//! engine thinks for another request), each converting requests to [`ApiRequest`] and
//! [`ApiResponse`]s back.

use std::io::Read;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::api::{ApiRequest, ApiResponse, App, Method, MAX_BODY_BYTES};
use crate::error::{ApiError, ServeError};

/// `koshogi serve`'s default port.
pub const DEFAULT_PORT: u16 = 8610;
/// Request threads: enough for a page's parallel loads while one request waits on the engine.
const REQUEST_THREADS: usize = 4;

/// A started server; [`RunningServer::wait`] serves until the process ends.
pub struct RunningServer {
    server: Arc<tiny_http::Server>,
    address: SocketAddr,
    threads: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// Binds `bind:port` (port 0 = any free port) and starts answering with `app`.
    pub fn start(app: App, bind: IpAddr, port: u16) -> Result<RunningServer, ServeError> {
        let requested = SocketAddr::new(bind, port);
        let bind_error = |message: String| ServeError::Bind {
            address: requested.to_string(),
            message,
        };
        let listener = TcpListener::bind(requested).map_err(|e| bind_error(e.to_string()))?;
        let address = listener
            .local_addr()
            .map_err(|e| bind_error(e.to_string()))?;
        let server = tiny_http::Server::from_listener(listener, None)
            .map_err(|e| bind_error(e.to_string()))?;
        let server = Arc::new(server);
        let app = Arc::new(app);
        let mut threads = Vec::with_capacity(REQUEST_THREADS);
        for index in 0..REQUEST_THREADS {
            let server = server.clone();
            let app = app.clone();
            let thread = std::thread::Builder::new()
                .name(format!("koshogi-serve-http-{index}"))
                .spawn(move || {
                    while let Ok(request) = server.recv() {
                        answer(&app, address, request);
                    }
                })
                .map_err(|e| ServeError::Worker(e.to_string()))?;
            threads.push(thread);
        }
        Ok(RunningServer {
            server,
            address,
            threads,
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

    /// Serves until [`RunningServer::shutdown`] is called from elsewhere or the process ends.
    pub fn wait(self) {
        for thread in self.threads {
            let _ = thread.join();
        }
    }

    /// Stops accepting requests and joins the request threads.
    pub fn shutdown(self) {
        for _ in &self.threads {
            self.server.unblock();
        }
        self.wait();
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

fn answer(app: &App, bound: SocketAddr, mut request: tiny_http::Request) {
    let method = match request.method() {
        tiny_http::Method::Get | tiny_http::Method::Head => Method::Get,
        tiny_http::Method::Post => Method::Post,
        _ => Method::Other,
    };
    let mut api_request = ApiRequest::new(method, request.url());
    let foreign = foreign_request(bound, method, |name| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_string())
    });
    let mut body = Vec::new();
    let read = match foreign {
        Some(_) => Ok(0),
        None => request
            .as_reader()
            .take(MAX_BODY_BYTES as u64 + 1)
            .read_to_end(&mut body),
    };
    let response = match read {
        _ if foreign.is_some() => ApiResponse::error(foreign.as_ref().expect("checked")),
        Err(e) => ApiResponse::error(&ApiError::bad_request(format!("reading the body: {e}"))),
        Ok(_) if body.len() > MAX_BODY_BYTES => ApiResponse::error(&ApiError {
            status: 413,
            message: format!("request body over {MAX_BODY_BYTES} bytes"),
        }),
        Ok(_) => {
            api_request.body = body;
            // A bug in a handler must not take a request thread down with it.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| app.handle(&api_request)))
                .unwrap_or_else(|_| {
                    ApiResponse::error(&ApiError::internal(format!(
                        "internal error while answering {}",
                        api_request.path
                    )))
                })
        }
    };
    if response.status >= 400 {
        tracing::debug!(
            "{} {} -> {}",
            request.method(),
            request.url(),
            response.status
        );
    }
    let headers = [
        ("Content-Type", response.content_type),
        ("Cache-Control", "no-store"),
    ]
    .into_iter()
    .filter_map(|(name, value)| tiny_http::Header::from_bytes(name, value).ok());
    let mut reply = tiny_http::Response::from_data(response.body).with_status_code(response.status);
    for header in headers {
        reply.add_header(header);
    }
    // A client that went away is nobody's problem.
    let _ = request.respond(reply);
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
}
