//! Playing against a checkpoint from the page. Each game is a session held by the server (the
//! page only sends clicks' results), so the rules are applied in one place: the page asks for the
//! legal moves of the piece the user clicked and sends back the move it assembled step by step.
//!
//! * `POST /api/play/new` `{opponent: "step-N" | "material", simulations, color: "black"|"white"}`
//!   → the session's state (the engine has already opened when the user plays White); a
//!   checkpoint that does not load is refused here with 422.
//! * `GET /api/play/state?id=ID` → `{id, human, opponent, simulations, your_turn, board, moves,
//!   engine}`.
//! * `GET /api/play/legal?id=ID&square=10m` → `{square, moves: [MoveView…]}`: the legal moves of
//!   the piece on that point (empty when it has none).
//! * `POST /api/play/move` `{id, move}` (canonical or Hodges notation) → the state after the move
//!   and the engine's reply. Both are applied together or not at all.
//! * `POST /api/play/undo` `{id}` → back to the user's previous turn.

use koshogi_rules::notation::parse_move;
use koshogi_rules::{Color, Game, Square};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::App;
use crate::board_view::{color_name, played_moves, BoardView, MoveView};
use crate::error::ApiError;
use crate::network_worker::Opponent;
use crate::play_sessions::Session;
pub use crate::play_sessions::{PlaySessions, MAX_SESSIONS};
use crate::request::ApiRequest;

/// Most simulations per engine move the page may ask for (keeps a click from costing minutes).
pub const MAX_SIMULATIONS: u32 = 2_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    opponent: String,
    #[serde(default)]
    simulations: u32,
    #[serde(default = "default_color")]
    color: String,
}

fn default_color() -> String {
    "black".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    id: u64,
    #[serde(rename = "move")]
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionRequest {
    id: u64,
}

fn lock(app: &App) -> std::sync::MutexGuard<'_, PlaySessions> {
    app.sessions.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn new_game(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let settings: NewGame = request.json()?;
    let human = match settings.color.as_str() {
        "black" => Color::Black,
        "white" => Color::White,
        other => {
            return Err(ApiError::bad_request(format!(
                "color must be black or white, got {other:?}"
            )))
        }
    };
    if settings.simulations > MAX_SIMULATIONS {
        return Err(ApiError::bad_request(format!(
            "simulations must be at most {MAX_SIMULATIONS}"
        )));
    }
    let opponent = if settings.opponent == "material" {
        if settings.simulations == 0 {
            return Err(ApiError::bad_request(
                "the material evaluator needs at least one simulation",
            ));
        }
        Opponent::Material
    } else {
        // Loaded now: a broken checkpoint is refused here (422) instead of making a session
        // whose first move fails.
        let card = app.run.checkpoint_card(&settings.opponent)?;
        app.network
            .load(&card)
            .map_err(|e| ApiError::unprocessable(format!("{}: {e}", settings.opponent)))?;
        Opponent::Network(card)
    };
    let mut session = Session {
        game: Game::new(app.rules),
        human,
        opponent,
        opponent_name: settings.opponent,
        simulations: settings.simulations,
        last_used: 0,
        last_engine: None,
    };
    if human == Color::White {
        let reply = app
            .network
            .choose_move(&session.opponent, &session.game, session.simulations)
            .map_err(ApiError::internal)?;
        session.game.play(reply.mv);
        session.last_engine = Some((reply, 1));
    }
    let mut sessions = lock(app);
    let id = sessions.insert(session);
    let session = sessions.get(id)?;
    Ok(state_json(id, session))
}

pub fn state(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let id = session_id(request)?;
    let mut sessions = lock(app);
    let session = sessions.get(id)?;
    Ok(state_json(id, session))
}

fn session_id(request: &ApiRequest) -> Result<u64, ApiError> {
    request
        .parsed::<u64>("id")?
        .or(request.parsed::<u64>("session")?)
        .ok_or_else(|| ApiError::bad_request("missing query parameter `id`"))
}

/// The current game of the session named by `session` (or `id`), for the network's view.
pub(crate) fn session_game(app: &App, request: &ApiRequest) -> Result<Game, ApiError> {
    let id = session_id(request)?;
    let mut sessions = lock(app);
    Ok(sessions.get(id)?.game.clone())
}

pub fn legal(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let id = session_id(request)?;
    let text = request.required("square")?;
    let square: Square = text.parse().map_err(|_| {
        ApiError::bad_request(format!(
            "square must be a point such as 10m (file 1-19, rank a-s), got {text:?}"
        ))
    })?;
    let mut sessions = lock(app);
    let session = sessions.get(id)?;
    let position = session.game.position();
    let legal = if position.side_to_move() == session.human {
        session.game.legal_moves()
    } else {
        Vec::new()
    };
    let moves: Vec<MoveView> = legal
        .iter()
        .filter(|m| m.origin() == square)
        .map(|m| MoveView::new(position, &legal, m))
        .collect();
    Ok(json!({ "square": square.to_string(), "moves": moves }))
}

pub fn play_move(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let body: MoveRequest = request.json()?;
    // Work on a copy so the engine thinks without the sessions locked; commit if unchanged.
    let (mut game, opponent, simulations, plies_before) = {
        let mut sessions = lock(app);
        let session = sessions.get(body.id)?;
        if session.game.outcome().is_some() {
            return Err(ApiError::conflict("the game is over"));
        }
        if session.game.position().side_to_move() != session.human {
            return Err(ApiError::conflict("it is not your turn"));
        }
        (
            session.game.clone(),
            session.opponent.clone(),
            session.simulations,
            session.game.plies_played(),
        )
    };
    let mv = parse_move(&game, body.text.trim())
        .map_err(|e| ApiError::bad_request(format!("illegal move {:?}: {e}", body.text)))?;
    game.play(mv);
    let reply = if game.outcome().is_none() {
        let reply = app
            .network
            .choose_move(&opponent, &game, simulations)
            .map_err(ApiError::internal)?;
        game.play(reply.mv);
        Some(reply)
    } else {
        None
    };
    let mut sessions = lock(app);
    let session = sessions.get(body.id)?;
    if session.game.plies_played() != plies_before {
        return Err(ApiError::conflict(
            "the game changed while the engine was thinking; reload it",
        ));
    }
    session.game = game;
    if let Some(reply) = reply {
        session.last_engine = Some((reply, session.game.plies_played() as usize));
    }
    Ok(state_json(body.id, session))
}

pub fn undo(app: &App, request: &ApiRequest) -> Result<Value, ApiError> {
    let body: SessionRequest = request.json()?;
    let mut sessions = lock(app);
    let session = sessions.get(body.id)?;
    // The last earlier ply at which the user was to move.
    let mut replay = Game::new(*session.game.options());
    let moves: Vec<_> = session.game.moves().copied().collect();
    let mut target = None;
    for (ply, &mv) in moves.iter().enumerate() {
        if replay.position().side_to_move() == session.human {
            target = Some(ply);
        }
        replay.play(mv);
    }
    let Some(target) = target else {
        return Err(ApiError::conflict("there is no move of yours to take back"));
    };
    while session.game.plies_played() as usize > target {
        session.game.undo();
    }
    session.last_engine = None;
    Ok(state_json(body.id, session))
}

fn state_json(id: u64, session: &Session) -> Value {
    let start = Game::new(*session.game.options());
    let moves: Vec<_> = session.game.moves().copied().collect();
    let board = BoardView::of_game(&session.game);
    let your_turn =
        session.game.outcome().is_none() && session.game.position().side_to_move() == session.human;
    let engine = session.last_engine.as_ref().map(|(reply, ply)| {
        json!({
            "ply": ply,
            "canonical": reply.mv.to_string(),
            "wdl": reply.wdl,
            "visits": reply.visits,
        })
    });
    json!({
        "id": id,
        "human": color_name(session.human),
        "opponent": session.opponent_name,
        "simulations": session.simulations,
        "your_turn": your_turn,
        "board": board,
        "moves": played_moves(start, &moves),
        "engine": engine,
    })
}
