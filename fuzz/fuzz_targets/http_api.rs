//! The viewer's HTTP API (`koshogi_serve::App::handle`, the transport-free core every request
//! of `koshogi serve` goes through): an arbitrary method, URL (path and query, percent-decoded
//! as the server does) and body, routed and answered on a tiny run directory (one game record,
//! no checkpoint). Input: first byte = method (GET, POST, other), then the URL up to the first
//! newline, then the body. Every request gets a response with an error status or JSON, never
//! a panic (the server turns a panic into a dropped connection; here it is a crash).
//! Play sessions persist across inputs, as on a server; engine replies are asked for at most
//! four simulations so that one input stays fast.
#![no_main]

use std::sync::OnceLock;

use koshogi_nn::RuntimeConfig;
use koshogi_rules::game_record::GameRecord;
use koshogi_rules::{Game, RulesOptions};
use koshogi_serve::api::Method;
use koshogi_serve::{ApiRequest, App, AppConfig};
use libfuzzer_sys::fuzz_target;

fn app() -> &'static App {
    static APP: OnceLock<App> = OnceLock::new();
    APP.get_or_init(|| {
        let run = koshogi_fuzz::scratch_dir().join("run");
        std::fs::create_dir_all(run.join("games")).unwrap();
        let mut game = Game::new(RulesOptions::default());
        let mut moves = Vec::new();
        for _ in 0..6 {
            let legal = game.legal_moves();
            let mv = legal[legal.len() / 3];
            game.play(mv);
            moves.push(mv);
        }
        let record = GameRecord {
            tags: vec![("Event".into(), "fuzz".into())],
            start: koshogi_rules::Position::startpos(),
            moves,
            result: None,
        };
        let text = record.to_text(RulesOptions::default()).unwrap();
        std::fs::write(run.join("games/game-0001.txt"), text).unwrap();
        App::new(AppConfig {
            run_dir: run,
            rules: RulesOptions::default(),
            runtime: RuntimeConfig::default(),
            threads: 1,
            max_plies: Some(300),
        })
        .expect("the fuzz run directory opens")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&method, rest)) = data.split_first() else {
        return;
    };
    let method = match method % 3 {
        0 => Method::Get,
        1 => Method::Post,
        _ => Method::Other,
    };
    let text = String::from_utf8_lossy(rest);
    let (url, body) = text.split_once('\n').unwrap_or((&text, ""));
    if let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(body) {
        if fields
            .get("simulations")
            .and_then(serde_json::Value::as_u64)
            .is_some_and(|n| n > 4)
        {
            return;
        }
    }
    let mut request = ApiRequest::new(method, url);
    request.body = body.as_bytes().to_vec();
    let response = app().handle(&request);
    assert!(
        (200..600).contains(&response.status),
        "status {}",
        response.status
    );
    if response.content_type == "application/json" {
        assert!(
            serde_json::from_slice::<serde_json::Value>(&response.body).is_ok(),
            "a JSON response is JSON"
        );
    }
});
