//! The route table of the server: which handler of the pages' data ([`crate::api_games`],
//! [`crate::api_network`], [`crate::api_play`], [`crate::api_training`]) or which embedded asset
//! answers a request to [`App`]. Why apart from the types: the handlers take the request types
//! ([`crate::request`]) and the state ([`crate::app`]) from their own files, so they and the
//! route table do not import each other. The types are re-exported here (`api::App`, …).

use crate::{api_games, api_network, api_play, api_training, assets};

pub use crate::app::{App, AppConfig};
use crate::error::ApiError;
pub use crate::request::{ApiRequest, ApiResponse, Method, MAX_BODY_BYTES};

/// The route table: which handler answers which method and path.
impl App {
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
