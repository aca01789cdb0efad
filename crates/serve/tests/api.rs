//! The API handlers on a small run directory built here (a recorded game, a tiny random
//! checkpoint, TensorBoard logs, a ladder table), called in memory through `App::handle`: the
//! JSON of a game and of its positions, the legal moves of a point, the network's view, a game
//! against a checkpoint, the training curves, and bad input of every kind answered with a 4xx
//! JSON error (never a panic), including game names that try to leave the run directory.

mod common;

use std::path::Path;

use common::app;
use koshogi_nn::fixtures::save_tiny_checkpoint;
use koshogi_rules::fixtures::capped_selfplay_record;
use koshogi_rules::{Game, Move, RulesOptions, Square};
use koshogi_serve::{ApiRequest, ApiResponse};
use serde_json::{json, Value};

const RECORD_NAME: &str = "games/game-0000000000000001.txt";
const CHECKPOINT: &str = "step-000000010";

/// The recorded game's plies.
const RECORD_PLIES: usize = 8;

/// The moves of the recorded game ([`capped_selfplay_record`]).
fn recorded_moves() -> Vec<Move> {
    capped_selfplay_record(RECORD_PLIES).moves
}

fn write_run(root: &Path) {
    let rules = RulesOptions::default();
    std::fs::create_dir_all(root.join("games")).unwrap();
    let record = capped_selfplay_record(RECORD_PLIES);
    std::fs::write(root.join(RECORD_NAME), record.to_text(rules).unwrap()).unwrap();
    std::fs::write(root.join("secret.txt"), "not a record").unwrap();

    let checkpoint = root.join("checkpoints").join(CHECKPOINT);
    save_tiny_checkpoint(&checkpoint, 10, 7, serde_json::to_value(rules).unwrap());

    let mut trainer = koshogi_metrics::EventWriter::create(&root.join("tb")).unwrap();
    trainer
        .add_scalars(5, &[("loss/total", 4.5), ("loss/policy", 4.0)])
        .unwrap();
    trainer.add_scalars(10, &[("loss/total", 4.25)]).unwrap();
    let mut arena = koshogi_metrics::EventWriter::create(&root.join("tb/arena")).unwrap();
    arena.add_scalars(10, &[("arena/elo", 12.5)]).unwrap();
    std::fs::create_dir_all(root.join("arena")).unwrap();
    std::fs::write(
        root.join("arena/ladder.csv"),
        "name,step,elo,stderr,games,points\nstep-000000000,0,0.0,0.0,4,2\nstep-000000010,10,12.5,40.0,4,2\ngreedy,,250.0,60.0,8,7\n",
    )
    .unwrap();
}

fn ok(response: ApiResponse) -> Value {
    let value = response.json_value();
    assert_eq!(response.status, 200, "{value}");
    assert_eq!(response.content_type, "application/json");
    value
}

fn error(response: &ApiResponse) -> (u16, String) {
    assert_eq!(response.content_type, "application/json");
    let value = response.json_value();
    let message = value["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message in {value}"))
        .to_string();
    (response.status, message)
}

fn enc(text: &str) -> String {
    text.replace('/', "%2F")
}

#[test]
fn a_recorded_game_is_listed_and_stepped_through_ply_by_ply() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let app = app(dir.path());
    let moves = recorded_moves();

    let games = ok(app.handle(&ApiRequest::get("/api/games")));
    assert_eq!(games["games"].as_array().unwrap().len(), 1);
    assert_eq!(games["games"][0]["name"], RECORD_NAME);
    assert_eq!(games["games"][0]["plies"], 8);
    assert_eq!(games["games"][0]["result"], "1/2-1/2");

    let game = ok(app.handle(&ApiRequest::get(&format!(
        "/api/game?name={}",
        enc(RECORD_NAME)
    ))));
    assert_eq!(game["plies"], 8);
    assert_eq!(game["termination"], "max plies");
    let listed: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["canonical"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = moves.iter().map(Move::to_string).collect();
    assert_eq!(listed, expected);
    assert_eq!(game["moves"][1]["color"], "white");

    let mut previous_svg = String::new();
    let mut replay = Game::new(RulesOptions::default());
    for ply in 0..=moves.len() {
        let view = ok(app.handle(&ApiRequest::get(&format!(
            "/api/game/position?name={}&ply={ply}",
            enc(RECORD_NAME)
        ))));
        assert_eq!(view["ply"], ply);
        assert_eq!(view["ksfen"], replay.position().to_ksfen(true));
        let svg = view["svg"].as_str().unwrap().to_string();
        assert!(svg.starts_with("<svg"));
        assert_ne!(svg, previous_svg, "ply {ply} looks like the ply before");
        previous_svg = svg;
        if ply == 0 {
            assert!(view["last_move"].is_null());
        } else {
            assert_eq!(view["last_move"]["canonical"], moves[ply - 1].to_string());
        }
        if ply < moves.len() {
            replay.play(moves[ply]);
        }
    }
    // Without `ply`: the final position.
    let end = ok(app.handle(&ApiRequest::get(&format!(
        "/api/game/position?name={}",
        enc(RECORD_NAME)
    ))));
    assert_eq!(end["ply"], 8);

    let (status, message) = error(&app.handle(&ApiRequest::get(&format!(
        "/api/game/position?name={}&ply=9",
        enc(RECORD_NAME)
    ))));
    assert_eq!(status, 400);
    assert!(message.contains("beyond its end"), "{message}");
}

#[test]
fn names_leaving_the_run_and_malformed_requests_get_4xx_json_errors() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let app = app(dir.path());
    for name in [
        "..%2Fsecret.txt",
        "games%2F..%2F..%2Fsecret.txt",
        "%2Fetc%2Fpasswd",
        "secret.txt",
        "games%2F%2E%2E%2Fsecret.txt",
    ] {
        for route in ["/api/game", "/api/game/position"] {
            let (status, message) =
                error(&app.handle(&ApiRequest::get(&format!("{route}?name={name}"))));
            assert_eq!(status, 400, "{route} {name}: {message}");
            assert!(message.contains("invalid game name"), "{message}");
        }
    }
    let cases: Vec<(ApiRequest, u16)> = vec![
        (ApiRequest::get("/api/game"), 400),
        (ApiRequest::get("/api/game?name=games%2Fnone.txt"), 404),
        (
            ApiRequest::get(&format!(
                "/api/game/position?name={}&ply=-1",
                enc(RECORD_NAME)
            )),
            400,
        ),
        (ApiRequest::get("/api/nothing"), 404),
        (ApiRequest::get("/nothing.html"), 404),
        (ApiRequest::post_json("/api/games", &json!({})), 405),
        (ApiRequest::get("/api/play/new"), 405),
        (
            ApiRequest::post_json("/api/play/new", &json!({"opponent": 3})),
            400,
        ),
        (
            ApiRequest::post_json("/api/play/new", &json!({"opponent": "step-999"})),
            404,
        ),
        (
            ApiRequest::post_json("/api/play/new", &json!({"opponent": "../x"})),
            400,
        ),
        (
            ApiRequest::post_json(
                "/api/play/new",
                &json!({"opponent": CHECKPOINT, "color": "green"}),
            ),
            400,
        ),
        (
            ApiRequest::post_json(
                "/api/play/new",
                &json!({"opponent": CHECKPOINT, "simulations": 1_000_000}),
            ),
            400,
        ),
        (
            ApiRequest::post_json("/api/play/new", &json!({"opponent": "material"})),
            400,
        ),
        (ApiRequest::get("/api/play/state?id=12345"), 404),
        (ApiRequest::get("/api/play/state?id=x"), 400),
        (
            ApiRequest::post_json("/api/play/move", &json!({"id": 1})),
            400,
        ),
        (
            ApiRequest::post_json("/api/play/move", &json!({"id": 99, "move": "10m-10l"})),
            404,
        ),
        (ApiRequest::get("/api/analyze?game=games%2Fx.txt"), 400),
        (
            ApiRequest::get(&format!(
                "/api/analyze?checkpoint=step-5&game={}",
                enc(RECORD_NAME)
            )),
            404,
        ),
        (
            ApiRequest::get(&format!(
                "/api/analyze?checkpoint={CHECKPOINT}&game={}&top=0",
                enc(RECORD_NAME)
            )),
            400,
        ),
        (
            ApiRequest::get(&format!("/api/analyze?checkpoint={CHECKPOINT}")),
            400,
        ),
    ];
    for (request, expected) in cases {
        let response = app.handle(&request);
        let (status, message) = error(&response);
        assert_eq!(
            status, expected,
            "{} {:?}: {message}",
            request.path, request.query
        );
    }
    // A body that is not JSON at all.
    let mut request = ApiRequest::post_json("/api/play/move", &json!({}));
    request.body = b"\xff\xfe not json".to_vec();
    assert_eq!(error(&app.handle(&request)).0, 400);
}

#[test]
fn arbitrary_requests_never_panic_and_errors_are_json() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let app = app(dir.path());
    let paths = [
        "/api/game",
        "/api/game/position",
        "/api/analyze",
        "/api/play/legal",
        "/api/play/state",
        "/api/play/move",
        "/api/play/new",
        "/api/play/undo",
        "/api/games",
        "/api/training",
        "/api/training/elo.svg",
        "/",
    ];
    let values = [
        "",
        "%",
        "%zz",
        "..",
        "games%2F..",
        "-1",
        "18446744073709551616",
        "0",
        "10m",
        "zz",
        "%00",
        "games%2Fgame-0000000000000001.txt",
        "step-000000010",
        "\u{7389}",
    ];
    let params = [
        "name",
        "ply",
        "id",
        "square",
        "checkpoint",
        "game",
        "session",
        "top",
    ];
    // A seeded linear congruential sequence picks the combinations.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize % n
    };
    for _ in 0..300 {
        let path = paths[next(paths.len())];
        let query: Vec<String> = (0..next(4))
            .map(|_| {
                format!(
                    "{}={}",
                    params[next(params.len())],
                    values[next(values.len())]
                )
            })
            .collect();
        let url = format!("{path}?{}", query.join("&"));
        let request = if next(2) == 0 {
            ApiRequest::get(&url)
        } else {
            let mut request = ApiRequest::post_json(&url, &json!({}));
            request.body = values[next(values.len())].as_bytes().to_vec();
            request
        };
        let response = app.handle(&request);
        assert!((200..600).contains(&response.status), "{url}");
        if response.status >= 400 {
            error(&response);
            assert!(response.status < 500, "{url}: {:?}", response.json_value());
        }
    }
}

#[test]
fn the_network_view_ranks_legal_moves_by_probability() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let app = app(dir.path());
    let checkpoints = ok(app.handle(&ApiRequest::get("/api/checkpoints")));
    assert_eq!(checkpoints["checkpoints"][0]["name"], CHECKPOINT);
    assert_eq!(checkpoints["checkpoints"][0]["step"], 10);

    let view = ok(app.handle(&ApiRequest::get(&format!(
        "/api/analyze?checkpoint={CHECKPOINT}&game={}&ply=3&top=5",
        enc(RECORD_NAME)
    ))));
    let mut game = Game::new(RulesOptions::default());
    for &mv in &recorded_moves()[..3] {
        game.play(mv);
    }
    let legal: Vec<String> = game.legal_moves().iter().map(Move::to_string).collect();
    assert_eq!(view["legal_moves"], legal.len());
    assert_eq!(view["side_to_move"], "white");
    let top = view["top"].as_array().unwrap();
    assert_eq!(top.len(), 5);
    let probabilities: Vec<f64> = top
        .iter()
        .map(|m| m["probability"].as_f64().unwrap())
        .collect();
    assert!(
        probabilities.windows(2).all(|w| w[0] >= w[1]),
        "{probabilities:?}"
    );
    assert!(probabilities.iter().all(|&p| (0.0..=1.0).contains(&p)));
    assert!(probabilities.iter().sum::<f64>() <= 1.0 + 1e-4);
    for m in top {
        assert!(
            legal.contains(&m["canonical"].as_str().unwrap().to_string()),
            "{m}"
        );
    }
    let wdl: Vec<f64> = view["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-3, "{wdl:?}");
    // White to move: Black's win is White's loss.
    assert_eq!(view["black_wdl"][0], view["wdl"][2]);
}

#[test]
fn a_game_against_a_checkpoint_is_played_by_legal_moves_of_a_point() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let app = app(dir.path());
    let state = ok(app.handle(&ApiRequest::post_json(
        "/api/play/new",
        &json!({"opponent": CHECKPOINT, "simulations": 0, "color": "black"}),
    )));
    let id = state["id"].as_u64().unwrap();
    assert_eq!(state["your_turn"], true);
    assert_eq!(state["moves"].as_array().unwrap().len(), 0);

    let game = Game::new(RulesOptions::default());
    let legal = game.legal_moves();
    // A point with several legal moves, and one with none (an empty point in the middle).
    let origin = legal[0].origin();
    let expected: Vec<String> = legal
        .iter()
        .filter(|m| m.origin() == origin)
        .map(Move::to_string)
        .collect();
    let from_point = ok(app.handle(&ApiRequest::get(&format!(
        "/api/play/legal?id={id}&square={origin}"
    ))));
    let mut listed: Vec<String> = from_point["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["canonical"].as_str().unwrap().to_string())
        .collect();
    listed.sort();
    let mut expected_sorted = expected.clone();
    expected_sorted.sort();
    assert_eq!(listed, expected_sorted);
    let empty = Square::new(10, 10).unwrap();
    assert!(game.position().piece_at(empty).is_none());
    let none = ok(app.handle(&ApiRequest::get(&format!(
        "/api/play/legal?id={id}&square={empty}"
    ))));
    assert_eq!(none["moves"].as_array().unwrap().len(), 0);
    let (status, _) = error(&app.handle(&ApiRequest::get(&format!(
        "/api/play/legal?id={id}&square=20a"
    ))));
    assert_eq!(status, 400);

    // An illegal move is refused and changes nothing.
    let (status, message) = error(&app.handle(&ApiRequest::post_json(
        "/api/play/move",
        &json!({"id": id, "move": "10j-10a"}),
    )));
    assert_eq!(status, 400, "{message}");
    let unchanged = ok(app.handle(&ApiRequest::get(&format!("/api/play/state?id={id}"))));
    assert_eq!(unchanged["moves"].as_array().unwrap().len(), 0);

    let ours = &expected[0];
    let after = ok(app.handle(&ApiRequest::post_json(
        "/api/play/move",
        &json!({"id": id, "move": ours}),
    )));
    let moves = after["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    assert_eq!(&moves[0]["canonical"], ours);
    // The engine's reply is legal after our move, and it is our turn again.
    let mut replay = game.clone();
    replay.play(*legal.iter().find(|m| &m.to_string() == ours).unwrap());
    let reply = moves[1]["canonical"].as_str().unwrap();
    assert!(replay.legal_moves().iter().any(|m| m.to_string() == reply));
    assert_eq!(after["engine"]["canonical"], reply);
    assert_eq!(after["your_turn"], true);
    assert_eq!(after["board"]["ply"], 2);

    // Analyse the session's position, then take the move back.
    let view = ok(app.handle(&ApiRequest::get(&format!(
        "/api/analyze?checkpoint={CHECKPOINT}&session={id}&top=3"
    ))));
    assert_eq!(view["side_to_move"], "black");
    let undone = ok(app.handle(&ApiRequest::post_json("/api/play/undo", &json!({"id": id}))));
    assert_eq!(undone["moves"].as_array().unwrap().len(), 0);
    let (status, _) =
        error(&app.handle(&ApiRequest::post_json("/api/play/undo", &json!({"id": id}))));
    assert_eq!(status, 409);
}

#[test]
fn playing_white_against_the_material_engine_lets_it_open() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let app = app(dir.path());
    let state = ok(app.handle(&ApiRequest::post_json(
        "/api/play/new",
        &json!({"opponent": "material", "simulations": 2, "color": "white"}),
    )));
    assert_eq!(state["human"], "white");
    assert_eq!(state["moves"].as_array().unwrap().len(), 1);
    assert_eq!(state["moves"][0]["color"], "black");
    assert_eq!(state["your_turn"], true);
    let id = state["id"].as_u64().unwrap();
    // Only the engine has moved: nothing of ours to take back.
    let (status, _) =
        error(&app.handle(&ApiRequest::post_json("/api/play/undo", &json!({"id": id}))));
    assert_eq!(status, 409);
}

#[test]
fn the_training_curves_come_from_tensorboard_and_the_ladder() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let app = app(dir.path());
    let training = ok(app.handle(&ApiRequest::get("/api/training")));
    assert_eq!(
        training["runs"][""]["loss/total"],
        json!([[5, 4.5], [10, 4.25]])
    );
    assert_eq!(training["runs"][""]["loss/policy"], json!([[5, 4.0]]));
    assert_eq!(training["runs"]["arena"]["arena/elo"], json!([[10, 12.5]]));
    assert_eq!(training["ladder"][1]["elo"], 12.5);
    assert_eq!(training["ladder"][1]["step"], 10);
    // A baseline of the ladder has no step.
    assert_eq!(training["ladder"][2]["name"], "greedy");
    assert!(training["ladder"][2]["step"].is_null());
    assert_eq!(training["ladder"][2]["elo"], 250.0);

    // No picture of progress yet: none is offered, and asking for it is a JSON 404.
    assert!(training["picture"].is_null());
    let (status, message) = error(&app.handle(&ApiRequest::get("/api/training/elo.svg")));
    assert_eq!(status, 404);
    assert!(message.contains("koshogi arena --ladder"), "{message}");

    // Once the ladder has drawn one, the page is told where it is and gets it as SVG.
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><text>greedy (+250)</text></svg>";
    std::fs::write(dir.path().join("arena/elo.svg"), svg).unwrap();
    let training = ok(app.handle(&ApiRequest::get("/api/training")));
    assert_eq!(training["picture"], "/api/training/elo.svg");
    let picture = app.handle(&ApiRequest::get("/api/training/elo.svg"));
    assert_eq!(picture.status, 200);
    assert_eq!(picture.content_type, "image/svg+xml");
    assert_eq!(picture.body, svg.as_bytes());
    let (status, _) =
        error(&app.handle(&ApiRequest::post_json("/api/training/elo.svg", &json!({}))));
    assert_eq!(status, 405);

    // A run without logs has empty curves, not an error.
    let empty = tempfile::tempdir().unwrap();
    let training = ok(self::app(empty.path()).handle(&ApiRequest::get("/api/training")));
    assert_eq!(training["runs"], json!({}));
    assert!(training["ladder"].is_null());
    assert!(training["picture"].is_null());
}

#[test]
fn the_page_and_its_assets_are_served_from_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    for (path, content_type, needle) in [
        ("/", "text/html; charset=utf-8", "<html"),
        ("/app.js", "text/javascript; charset=utf-8", "/api/games"),
        ("/style.css", "text/css; charset=utf-8", "body"),
    ] {
        let response = app.handle(&ApiRequest::get(path));
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.content_type, content_type);
        assert!(
            String::from_utf8_lossy(&response.body).contains(needle),
            "{path}"
        );
    }
    let run = ok(app.handle(&ApiRequest::get("/api/run")));
    assert_eq!(run["geometry"]["cell"], koshogi_viewer::CELL);
}

/// Copies the run's checkpoint directory to `to` (its card and weights); returns the path of
/// the copied weights file.
fn copy_checkpoint(root: &Path, to: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(root.join("checkpoints").join(CHECKPOINT)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    std::fs::read_dir(to)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .expect("a weights file")
}

/// The `name` of each entry of the list `key` in an answer.
fn listed_names(answer: &Value, key: &str) -> Vec<String> {
    answer[key]
        .as_array()
        .unwrap_or_else(|| panic!("no list {key} in {answer}"))
        .iter()
        .map(|entry| entry["name"].as_str().unwrap().to_string())
        .collect()
}

/// A checkpoint directory that is a symbolic link out of the run was listed and loaded by
/// `/api/analyze`; it is neither now, and naming it is a 400.
#[cfg(unix)]
#[test]
fn a_checkpoint_linked_from_outside_the_run_is_not_listed_or_loaded() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let outside = tempfile::tempdir().unwrap();
    copy_checkpoint(dir.path(), outside.path());
    let linked = "step-000000020";
    std::os::unix::fs::symlink(outside.path(), dir.path().join("checkpoints").join(linked))
        .unwrap();
    let app = app(dir.path());
    let listed = ok(app.handle(&ApiRequest::get("/api/checkpoints")));
    assert_eq!(listed_names(&listed, "checkpoints"), [CHECKPOINT]);
    let (status, message) = error(&app.handle(&ApiRequest::get(&format!(
        "/api/analyze?checkpoint={linked}&game={}",
        enc(RECORD_NAME)
    ))));
    assert_eq!(status, 400, "{message}");
    assert!(message.contains("leads out of the run"), "{message}");
    // A weights file linked from outside, in a directory of the run, is refused too.
    let weights = copy_checkpoint(dir.path(), &dir.path().join("checkpoints/step-000000030"));
    std::fs::remove_file(&weights).unwrap();
    let outside_weights = outside.path().join(weights.file_name().unwrap());
    std::os::unix::fs::symlink(&outside_weights, &weights).unwrap();
    let (status, message) = error(&app.handle(&ApiRequest::post_json(
        "/api/play/new",
        &json!({"opponent": "step-000000030", "simulations": 0}),
    )));
    assert_eq!(status, 400, "{message}");
}

/// A play session against a checkpoint that does not load was created (200) and failed on its
/// first move (500); it is refused when it is created, with 422 and the reason.
#[test]
fn a_game_against_a_broken_checkpoint_is_refused_when_it_is_created() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let weights = copy_checkpoint(dir.path(), &dir.path().join("checkpoints/step-000000020"));
    // The card is fine; the weights are not what it says.
    std::fs::write(&weights, b"not weights").unwrap();
    let app = app(dir.path());
    let (status, message) = error(&app.handle(&ApiRequest::post_json(
        "/api/play/new",
        &json!({"opponent": "step-000000020", "simulations": 0, "color": "black"}),
    )));
    assert_eq!(status, 422, "{message}");
    assert!(message.contains("step-000000020"), "{message}");
    let (status, message) = error(&app.handle(&ApiRequest::get(&format!(
        "/api/analyze?checkpoint=step-000000020&game={}",
        enc(RECORD_NAME)
    ))));
    assert_eq!(status, 422, "{message}");
    // The good checkpoint still plays.
    ok(app.handle(&ApiRequest::post_json(
        "/api/play/new",
        &json!({"opponent": CHECKPOINT, "simulations": 0, "color": "black"}),
    )));
}

/// A file in `games/` larger than a record can be answered 500 and stayed listed; it is not
/// listed, and naming it is a 422.
#[test]
fn an_oversized_file_among_the_games_is_not_listed_and_refused_with_422() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let name = "games/game-0000000000000002.txt";
    let file = std::fs::File::create(dir.path().join(name)).unwrap();
    file.set_len(koshogi_rules::game_record::MAX_RECORD_BYTES + 1)
        .unwrap();
    let app = app(dir.path());
    let games = ok(app.handle(&ApiRequest::get("/api/games")));
    assert_eq!(listed_names(&games, "games"), [RECORD_NAME]);
    for url in [
        format!("/api/game?name={}", enc(name)),
        format!("/api/game/position?name={}&ply=0", enc(name)),
    ] {
        let (status, message) = error(&app.handle(&ApiRequest::get(&url)));
        assert_eq!(status, 422, "{url}: {message}");
    }
    // A record-sized file that is not a record is the file's problem too, not the server's.
    std::fs::write(
        dir.path().join(name),
        "[Black \"x\"]\n\nthis is not a move\n",
    )
    .unwrap();
    let (status, message) =
        error(&app.handle(&ApiRequest::get(&format!("/api/game?name={}", enc(name)))));
    assert_eq!(status, 422, "{message}");
}
