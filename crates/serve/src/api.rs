//! The transport-free core of the server: [`ApiRequest`] in, [`ApiResponse`] out, and [`App`],
//! the shared state with the route table. The HTTP layer ([`crate::server`]) only converts to and
//! from these, so every handler is tested by building requests in memory.

use std::path::PathBuf;
use std::sync::Mutex;

use koshogi_nn::RuntimeConfig;
use koshogi_rules::RulesOptions;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::api_play::PlaySessions;
use crate::error::{ApiError, ServeError};
use crate::network_worker::NetworkWorker;
use crate::run_dir::RunDir;
use crate::{api_games, api_network, api_play, api_training, assets};

/// Largest request body accepted (moves and settings are a few hundred bytes).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Other,
}

/// One request: method, decoded path, query parameters (percent-decoded), body.
#[derive(Clone, Debug)]
pub struct ApiRequest {
    pub method: Method,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl ApiRequest {
    /// A request for `url` (`/path?a=1&b=x%20y`) with an empty body.
    pub fn new(method: Method, url: &str) -> ApiRequest {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let query = query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (percent_decode(name), percent_decode(value))
            })
            .collect();
        ApiRequest {
            method,
            path: percent_decode(path),
            query,
            body: Vec::new(),
        }
    }

    pub fn get(url: &str) -> ApiRequest {
        ApiRequest::new(Method::Get, url)
    }

    /// A POST of a JSON value (how the page sends moves and settings).
    pub fn post_json(url: &str, body: &serde_json::Value) -> ApiRequest {
        let mut request = ApiRequest::new(Method::Post, url);
        request.body = body.to_string().into_bytes();
        request
    }

    /// The first value of a query parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn required(&self, name: &str) -> Result<&str, ApiError> {
        self.param(name)
            .ok_or_else(|| ApiError::bad_request(format!("missing query parameter `{name}`")))
    }

    /// A query parameter parsed as `T` (`None` when absent).
    pub fn parsed<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ApiError> {
        self.param(name)
            .map(|text| {
                text.parse::<T>().map_err(|_| {
                    ApiError::bad_request(format!("query parameter `{name}`: cannot read {text:?}"))
                })
            })
            .transpose()
    }

    /// The body as JSON of type `T`.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| ApiError::bad_request(format!("request body: {e}")))
    }
}

/// `%XX` escapes and `+` (a space in query strings); malformed escapes are kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What to send back.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiResponse {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl ApiResponse {
    pub fn json(value: &impl Serialize) -> ApiResponse {
        match serde_json::to_vec(value) {
            Ok(body) => ApiResponse {
                status: 200,
                content_type: "application/json",
                body,
            },
            Err(e) => ApiResponse::error(&ApiError::internal(format!("encoding JSON: {e}"))),
        }
    }

    /// `{"error": "<message>"}` with the error's status.
    pub fn error(error: &ApiError) -> ApiResponse {
        ApiResponse {
            status: error.status,
            content_type: "application/json",
            body: serde_json::json!({ "error": error.message })
                .to_string()
                .into_bytes(),
        }
    }

    /// The body parsed as JSON (tests and clients).
    pub fn json_value(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Everything the server needs to know about the run it shows.
#[derive(Clone, Debug)]
pub struct AppConfig {
    pub run_dir: PathBuf,
    /// The run's rules (its `config.toml` `[rules]`): records are read and games played under them.
    pub rules: RulesOptions,
    /// How networks run (the run's `[inference]`).
    pub runtime: RuntimeConfig,
    /// libtorch intra-op threads of the network thread.
    pub threads: u32,
    /// Self-play's ply cap (`[selfplay] max_plies`): part of the network's input, so the
    /// network's view of a position is the one it had in self-play.
    pub max_plies: Option<u32>,
}

/// The server's state, shared by all request threads.
pub struct App {
    pub(crate) run: RunDir,
    pub(crate) rules: RulesOptions,
    pub(crate) max_plies: Option<u32>,
    pub(crate) network: NetworkWorker,
    pub(crate) sessions: Mutex<PlaySessions>,
}

impl App {
    /// Checks the run directory and starts the network thread (no model is loaded yet).
    pub fn new(config: AppConfig) -> Result<App, ServeError> {
        let run = RunDir::open(&config.run_dir)?;
        let network = NetworkWorker::spawn(config.runtime, config.threads, config.rules)?;
        Ok(App {
            run,
            rules: config.rules,
            max_plies: config.max_plies,
            network,
            sessions: Mutex::new(PlaySessions::default()),
        })
    }

    pub fn run_dir(&self) -> &RunDir {
        &self.run
    }

    /// Answers one request; every failure becomes a JSON error response.
    pub fn handle(&self, request: &ApiRequest) -> ApiResponse {
        match self.route(request) {
            Ok(response) => response,
            Err(error) => ApiResponse::error(&error),
        }
    }

    fn route(&self, request: &ApiRequest) -> Result<ApiResponse, ApiError> {
        use Method::{Get, Post};
        let path = request.path.as_str();
        if !path.starts_with("/api/") {
            return match request.method {
                Get => assets::response(path),
                _ => Err(ApiError::method_not_allowed(format!(
                    "{path} only answers GET"
                ))),
            };
        }
        let json =
            |value: Result<serde_json::Value, ApiError>| value.map(|v| ApiResponse::json(&v));
        match (request.method, path) {
            (Get, "/api/run") => json(Ok(self.run_summary())),
            (Get, "/api/games") => json(api_games::list(self)),
            (Get, "/api/game") => json(api_games::game(self, request)),
            (Get, "/api/game/position") => json(api_games::position(self, request)),
            (Get, "/api/checkpoints") => json(api_network::checkpoints(self)),
            (Get, "/api/analyze") => json(api_network::analyze(self, request)),
            (Post, "/api/play/new") => json(api_play::new_game(self, request)),
            (Get, "/api/play/state") => json(api_play::state(self, request)),
            (Get, "/api/play/legal") => json(api_play::legal(self, request)),
            (Post, "/api/play/move") => json(api_play::play_move(self, request)),
            (Post, "/api/play/undo") => json(api_play::undo(self, request)),
            (Get, "/api/training") => json(api_training::training(self)),
            (Get, api_training::PICTURE_ROUTE) => api_training::picture(self),
            (
                _,
                "/api/run"
                | "/api/games"
                | "/api/game"
                | "/api/game/position"
                | "/api/checkpoints"
                | "/api/analyze"
                | "/api/play/state"
                | "/api/play/legal"
                | "/api/training"
                | api_training::PICTURE_ROUTE,
            ) => Err(ApiError::method_not_allowed(format!(
                "{path} only answers GET"
            ))),
            (_, "/api/play/new" | "/api/play/move" | "/api/play/undo") => Err(
                ApiError::method_not_allowed(format!("{path} only answers POST")),
            ),
            _ => Err(ApiError::not_found(format!("no API route {path}"))),
        }
    }

    fn run_summary(&self) -> serde_json::Value {
        serde_json::json!({
            "run_dir": self.run.root().display().to_string(),
            "geometry": crate::board_view::Geometry::of_viewer(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_split_into_a_decoded_path_and_query() {
        let request = ApiRequest::get("/api/game?name=games%2Fgame-1.txt&ply=12&x=a+b&flag");
        assert_eq!(request.path, "/api/game");
        assert_eq!(request.param("name"), Some("games/game-1.txt"));
        assert_eq!(request.parsed::<usize>("ply").unwrap(), Some(12));
        assert_eq!(request.param("x"), Some("a b"));
        assert_eq!(request.param("flag"), Some(""));
        assert_eq!(request.param("missing"), None);
        assert_eq!(request.required("missing").unwrap_err().status, 400);
        assert_eq!(request.parsed::<usize>("x").unwrap_err().status, 400);
    }

    #[test]
    fn malformed_escapes_are_kept_as_written() {
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%2e%2E%2f"), "../");
        assert_eq!(percent_decode("%E7%8E%89"), "玉");
    }
}
