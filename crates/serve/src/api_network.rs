//! The network's view of a position: a checkpoint's raw policy (its most probable moves, drawn
//! on the board by the page as arrows with their probabilities) and value (win/draw/loss).
//!
//! * `GET /api/checkpoints` → `{checkpoints: [{name, step}…]}` (by step).
//! * `GET /api/analyze?checkpoint=step-N&game=NAME&ply=P` or `…&session=ID` → `{checkpoint,
//!   side_to_move, wdl: [win, draw, loss] for the side to move, black_wdl, top: [{probability,
//!   canonical, hodges, origin, legs, shots, …}…], legal_moves}`; `top=K` (default 10, at most 100).

use serde::Serialize;
use serde_json::{json, Value};

use crate::app::App;
use crate::board_view::{color_name, MoveView};
use crate::error::ApiError;
use crate::request::ApiRequest;

const DEFAULT_TOP: usize = 10;
const MAX_TOP: usize = 100;

#[derive(Serialize)]
struct RankedMove {
    probability: f32,
    #[serde(flatten)]
    mv: MoveView,
}

pub fn checkpoints(app: &App) -> Result<Value, ApiError> {
    Ok(json!({ "checkpoints": app.run.list_checkpoints() }))
}

pub fn analyze(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let checkpoint = request.required("checkpoint")?;
    let top = request.parsed::<usize>("top")?.unwrap_or(DEFAULT_TOP);
    if !(1..=MAX_TOP).contains(&top) {
        return Err(ApiError::bad_request(format!(
            "top must be from 1 to {MAX_TOP}, got {top}"
        )));
    }
    let game = match (request.param("game"), request.param("session")) {
        (Some(name), None) => {
            crate::api_games::game_at(app, name, request.parsed::<usize>("ply")?)?
        }
        (None, Some(_)) => crate::api_play::session_game(app, request)?,
        _ => {
            return Err(ApiError::bad_request(
                "name the position with either `game` (and `ply`) or `session`",
            ))
        }
    };
    // The cap is an input of the network (plies left before adjudication), as in self-play.
    let game = game.with_max_plies(app.max_plies);
    let card = app.run.checkpoint_card(checkpoint)?;
    // A checkpoint that does not load is the request's problem (422), not the server's.
    app.network
        .load(&card)
        .map_err(|e| ApiError::unprocessable(format!("{checkpoint}: {e}")))?;
    let legal = game.legal_moves();
    if legal.is_empty() {
        return Err(ApiError::conflict(
            "the game is over: there are no moves to evaluate",
        ));
    }
    let evaluation = app
        .network
        .evaluate(&card, &game)
        .map_err(ApiError::internal)?;
    let mut order: Vec<usize> = (0..legal.len()).collect();
    order.sort_by(|&a, &b| evaluation.policy[b].total_cmp(&evaluation.policy[a]));
    let position = game.position();
    let ranked: Vec<RankedMove> = order
        .iter()
        .take(top)
        .map(|&i| RankedMove {
            probability: evaluation.policy[i],
            mv: MoveView::new(position, &legal, &legal[i]),
        })
        .collect();
    let side = position.side_to_move();
    let [win, draw, loss] = evaluation.wdl;
    let black_wdl = match side {
        koshogi_rules::Color::Black => [win, draw, loss],
        koshogi_rules::Color::White => [loss, draw, win],
    };
    Ok(json!({
        "checkpoint": checkpoint,
        "side_to_move": color_name(side),
        "wdl": evaluation.wdl,
        "black_wdl": black_wdl,
        "top": ranked,
        "legal_moves": legal.len(),
    }))
}
