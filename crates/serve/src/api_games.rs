//! The games page's data: the run's game records, one record's moves, and the board at any ply.
//!
//! * `GET /api/games` → `{games: [GameEntry…]}` (newest first).
//! * `GET /api/game?name=NAME` → tags, result and every move (Hodges and canonical notation,
//!   legs and shots).
//! * `GET /api/game/position?name=NAME&ply=N` → the board after `N` plies ([`BoardView`], with
//!   the move that led there highlighted); `ply` defaults to the end.

use koshogi_rules::game_record::GameRecord;
use koshogi_rules::Game;
use serde_json::{json, Value};

use crate::app::App;
use crate::board_view::{played_moves, BoardView};
use crate::error::ApiError;
use crate::request::ApiRequest;

pub fn list(app: &App) -> Result<Value, ApiError> {
    Ok(json!({ "games": app.run.list_games() }))
}

/// Reads and replays a record named by the page.
pub(crate) fn load_record(app: &App, name: &str) -> Result<GameRecord, ApiError> {
    let path = app.run.game_path(name)?;
    // A file that is not a record (not UTF-8, over the size bound, not parsable) is the
    // named file's problem (422); only a failing read is the server's (500).
    let text = koshogi_rules::game_record::read_record_file(&path).map_err(|e| {
        let message = format!("reading {name}: {e}");
        match e.kind() {
            std::io::ErrorKind::InvalidData => ApiError::unprocessable(message),
            _ => ApiError::internal(message),
        }
    })?;
    GameRecord::parse(&text, app.rules)
        .map_err(|e| ApiError::unprocessable(format!("{name} is not a readable game record: {e}")))
}

pub fn game(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let name = request.required("name")?;
    let record = load_record(app, name)?;
    let start = Game::from_position(record.start.clone(), app.rules);
    let moves = played_moves(start, &record.moves);
    let (result, termination) = match &record.result {
        Some(r) => (r.score_text(), r.termination.clone()),
        None => ("*", String::new()),
    };
    Ok(json!({
        "name": name,
        "tags": record.tags,
        "start": record.start.to_ksfen(true),
        "result": result,
        "termination": termination,
        "plies": record.moves.len(),
        "moves": moves,
    }))
}

/// The game of record `name` after `ply` plies (the end by default), checked against its length.
pub(crate) fn game_at(app: &App, name: &str, ply: Option<usize>) -> Result<Game, ApiError> {
    let record = load_record(app, name)?;
    let plies = record.moves.len();
    let ply = ply.unwrap_or(plies);
    if ply > plies {
        return Err(ApiError::bad_request(format!(
            "{name} has {plies} plies; ply {ply} is beyond its end"
        )));
    }
    record
        .replay(app.rules, Some(ply))
        .map_err(|e| ApiError::internal(format!("replaying {name}: {e}")))
}

pub fn position(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let name = request.required("name")?;
    let ply = request.parsed::<usize>("ply")?;
    let game = game_at(app, name, ply)?;
    let view = BoardView::of_game(&game);
    serde_json::to_value(view).map_err(|e| ApiError::internal(e.to_string()))
}
