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
                        answer(&app, request);
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

fn answer(app: &App, mut request: tiny_http::Request) {
    let method = match request.method() {
        tiny_http::Method::Get | tiny_http::Method::Head => Method::Get,
        tiny_http::Method::Post => Method::Post,
        _ => Method::Other,
    };
    let mut api_request = ApiRequest::new(method, request.url());
    let mut body = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY_BYTES as u64 + 1)
        .read_to_end(&mut body);
    let response = match read {
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
