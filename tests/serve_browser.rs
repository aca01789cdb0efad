//! The web viewer end to end in headless Chromium (Debian's `chromium` and `chromium-driver`,
//! installed by `scripts/setup-chromium.sh`), driven over the W3C WebDriver protocol: open the
//! page, step through a recorded game (the ply counter and the board change), start a game
//! against a checkpoint and play one move by clicking a piece and a marked destination (the
//! engine answers: the move list grows by two), click a piece again to see its legal
//! destinations marked, and save a screenshot as an artifact (`$KOSHOGI_ARTIFACTS` or
//! `<workspace>/target-artifacts/serve-e2e.png`; the path is printed).
//!
//! Without Chromium the test fails (run the set-up script); `KOSHOGI_SKIP_BROWSER_TESTS=1` skips
//! it with a notice.

mod serve_support;

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use koshogi_rules::{Game, Move, Promotion, RulesOptions, Square};
use serde_json::{json, Value};
use serve_support::{http, recorded_moves, write_run, Server, RECORD_NAME, RECORD_PLIES};

/// Flags that let Chromium run here: no sandbox as root, no GPU, and no background
/// networking (on a closed network its connection attempts otherwise break loading pages).
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1500,950",
];
const WAIT: Duration = Duration::from_secs(30);
/// WebDriver's key for an element reference.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

fn browser_binary() -> Option<PathBuf> {
    // Debian's /usr/bin/chromium is a wrapper script around the real binary.
    ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// chromedriver on a free port; killed when dropped.
struct Driver {
    child: Child,
    address: String,
}

impl Driver {
    fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting chromedriver (scripts/setup-chromium.sh installs it)");
        let driver = Driver {
            child,
            address: format!("127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + WAIT;
        while std::net::TcpStream::connect(&driver.address).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not start listening"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser session; closed (browser quit) when dropped.
struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl<'a> Session<'a> {
    fn new(driver: &'a Driver, profile: &Path) -> Session<'a> {
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": browser_binary().unwrap(),
                "args": args,
            },
        }}});
        let (status, body) = http(
            &driver.address,
            "POST",
            "/session",
            Some(&capabilities.to_string()),
        );
        assert_eq!(status, 200, "cannot start Chromium: {body}");
        let reply: Value = serde_json::from_str(&body).unwrap();
        let id = reply["value"]["sessionId"].as_str().unwrap().to_string();
        Session { driver, id }
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string());
        let (status, text) = http(
            &self.driver.address,
            method,
            &format!("/session/{}{path}", self.id),
            body.as_deref(),
        );
        let reply: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert_eq!(status, 200, "WebDriver {method} {path}: {text}");
        reply["value"].clone()
    }

    fn go(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })));
    }

    fn script(&self, script: &str, args: Value) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    fn find(&self, css: &str) -> String {
        let found = self.command(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        found[ELEMENT_KEY].as_str().unwrap().to_string()
    }

    fn click(&self, css: &str) {
        let element = self.find(css);
        self.command(
            "POST",
            &format!("/element/{element}/click"),
            Some(json!({})),
        );
    }

    /// Polls `script` (a function body returning a value) until `accept` takes its result.
    fn wait_for(&self, what: &str, script: &str, accept: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let value = self.script(script, json!([]));
            if accept(&value) {
                return value;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; last value {value}; page status: {}",
                self.script(
                    "const s = document.getElementById('play-status'); return s ? s.textContent : null;",
                    json!([])
                )
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn text(&self, css: &str) -> String {
        self.script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
            json!([css]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    fn screenshot(&self, path: &Path) {
        let encoded = self.command("GET", "/screenshot", None);
        let png = base64_decode(encoded.as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| {
            http(
                &self.driver.address,
                "DELETE",
                &format!("/session/{}", self.id),
                None,
            )
        });
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    for chunk in clean.chunks(4) {
        let digits: Vec<u8> = chunk.iter().copied().filter(|&c| c != b'=').collect();
        let mut bits = 0u32;
        for (i, &c) in digits.iter().enumerate() {
            bits |= value(c) << (18 - 6 * i);
        }
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..digits.len()]);
    }
    out
}

fn artifact_path(name: &str) -> PathBuf {
    match std::env::var_os("KOSHOGI_ARTIFACTS") {
        Some(dir) => PathBuf::from(dir).join(name),
        None => koshogi_test_support::workspace_root()
            .join("target-artifacts")
            .join(name),
    }
}

/// A first move whose first click (the destination) already decides it: one leg, no shot, no
/// promotion choice, and no other move of that piece starting with the same leg.
fn a_one_click_move(game: &Game) -> Move {
    let legal = game.legal_moves();
    legal
        .iter()
        .copied()
        .find(|mv| {
            mv.legs().len() == 1
                && mv.shots().is_empty()
                && mv.promotion() == Promotion::None
                && legal
                    .iter()
                    .filter(|other| {
                        other.origin() == mv.origin() && other.legs().first() == mv.legs().first()
                    })
                    .count()
                    == 1
        })
        .expect("a simple opening move")
}

/// The click target of a point on the play board.
fn point(square: Square) -> String {
    format!("#play-board .hit[data-square='{square}']")
}

/// The canonical moves in the play page's move list, once there are `count` of them.
fn wait_for_moves(browser: &Session<'_>, count: usize) -> Vec<String> {
    let moves = browser.wait_for(
        &format!("{count} moves in the play list"),
        "return Array.from(document.querySelectorAll('#play-moves li')).map(e => e.title);",
        |v| v.as_array().is_some_and(|a| a.len() == count),
    );
    moves
        .as_array()
        .unwrap()
        .iter()
        .map(|title| {
            let title = title.as_str().unwrap();
            title
                .split_once(": ")
                .map_or(title, |(_, mv)| mv)
                .to_string()
        })
        .collect()
}

/// The game on the play page, replayed under the rules (each move must be legal).
fn page_game(browser: &Session<'_>) -> Game {
    let moves = browser.script(
        "return Array.from(document.querySelectorAll('#play-moves li')).map(e => e.title.split(': ')[1]);",
        json!([]),
    );
    let mut game = Game::new(RulesOptions::default());
    for text in moves.as_array().unwrap() {
        let text = text.as_str().unwrap();
        let mv = koshogi_rules::notation::parse_move(&game, text)
            .unwrap_or_else(|e| panic!("{text} on the page is not legal: {e}"));
        game.play(mv);
    }
    game
}

/// The points marked after clicking `origin` are exactly the first legs of its legal moves.
fn assert_marks_match_the_rules(browser: &Session<'_>, game: &Game, origin: Square) {
    let expected: BTreeSet<String> = game
        .legal_moves()
        .iter()
        .filter(|m| m.origin() == origin)
        .filter_map(|m| m.legs().first().map(ToString::to_string))
        .collect();
    assert!(!expected.is_empty(), "{origin} has no legal move");
    let marked = browser.wait_for(
        "legal destinations",
        "return Array.from(document.querySelectorAll('#play-board .mark-leg')).map(e => e.dataset.square);",
        |v| v.as_array().is_some_and(|a| !a.is_empty()),
    );
    let marked: BTreeSet<String> = marked
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(marked, expected, "marks for {origin}");
}

#[test]
fn the_viewer_steps_through_a_game_and_plays_a_move_in_chromium() {
    if std::env::var_os("KOSHOGI_SKIP_BROWSER_TESTS").is_some() {
        println!("NOTICE: skipped: KOSHOGI_SKIP_BROWSER_TESTS is set");
        return;
    }
    assert!(
        browser_binary().is_some(),
        "Chromium is not installed: run scripts/setup-chromium.sh (or set KOSHOGI_SKIP_BROWSER_TESTS=1)"
    );
    let run = tempfile::tempdir().unwrap();
    write_run(run.path());
    let server = Server::start(run.path());
    let driver = Driver::start();
    let profile = tempfile::tempdir().unwrap();
    let browser = Session::new(&driver, profile.path());

    browser.go(&server.url);
    browser.wait_for(
        "the page to load",
        "return document.body.dataset.ready || null;",
        |v| v.is_string(),
    );
    assert_eq!(
        browser.script("return document.body.dataset.ready;", json!([])),
        "true",
        "the page failed to start: {}",
        browser.text("main")
    );

    // Step through the recorded game.
    browser.click(&format!("#game-list li[data-name='{RECORD_NAME}']"));
    let label = |ply: usize| format!("ply {ply} / {RECORD_PLIES}");
    let label_script = "return document.getElementById('ply-label').textContent;";
    browser.wait_for("the game to open at ply 0", label_script, |v| {
        v.as_str().is_some_and(|t| t.starts_with(&label(0)))
    });
    let picture = "return document.querySelector('#game-board .picture').innerHTML;";
    let start_board = browser.script(picture, json!([]));
    assert!(start_board.as_str().unwrap().contains("<svg"));
    browser.click("#next");
    browser.wait_for("ply 1", label_script, |v| {
        v.as_str().is_some_and(|t| t.starts_with(&label(1)))
    });
    let after_one = browser.script(picture, json!([]));
    assert_ne!(after_one, start_board, "the board did not change at ply 1");
    // The first move is highlighted (the viewer's last-move path) and marked in the move list.
    assert!(after_one.as_str().unwrap().contains("<polyline"));
    assert_eq!(
        browser.script(
            "return document.querySelector('#game-moves li.current').title;",
            json!([])
        ),
        format!("black: {}", recorded_moves()[0])
    );
    browser.click("#last");
    browser.wait_for("the last ply", label_script, |v| {
        v.as_str()
            .is_some_and(|t| t.starts_with(&label(RECORD_PLIES)))
    });
    browser.click("#prev");
    browser.wait_for("one ply back", label_script, |v| {
        v.as_str()
            .is_some_and(|t| t.starts_with(&label(RECORD_PLIES - 1)))
    });

    // The network's view draws the top moves on the board.
    browser.click("#games-network-toggle");
    let arrows = browser.wait_for(
        "the network's top moves",
        "return document.querySelectorAll('#game-board .arrows text[data-move]').length;",
        |v| v.as_u64().is_some_and(|n| n > 0),
    );
    assert!(arrows.as_u64().unwrap() <= 8);

    // Play one move against the checkpoint (4 simulations).
    browser.click("#tab-play");
    browser.script(
        "document.getElementById('play-sims').value = '4';",
        json!([]),
    );
    browser.click("#play-new");
    browser.wait_for(
        "the new game",
        "return document.getElementById('play-status').textContent;",
        |v| v.as_str().is_some_and(|t| t.starts_with("Your move")),
    );
    let game = Game::new(RulesOptions::default());
    let ours = a_one_click_move(&game);
    // The click target of a point lies over the stone the server drew there.
    let (x, y) = koshogi_viewer::point_centre(ours.origin());
    let offset = browser.script(
        "const box = e => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
         const hit = box(document.querySelector(arguments[0]));
         const stone = box(document.querySelector(`#play-board .picture circle[cx='${arguments[1]}'][cy='${arguments[2]}']`));
         return Math.hypot(hit[0] - stone[0], hit[1] - stone[1]);",
        json!([point(ours.origin()), x, y]),
    );
    assert!(
        offset.as_f64().unwrap() < 1.0,
        "click target {offset} px off its stone"
    );
    browser.click(&point(ours.origin()));
    // Every first leg of that piece's legal moves is marked, and nothing else.
    assert_marks_match_the_rules(&browser, &game, ours.origin());
    browser.click(&point(ours.legs()[0]));
    let moves = wait_for_moves(&browser, 2);
    assert_eq!(moves[0], ours.to_string());
    let replayed = page_game(&browser);
    assert_eq!(
        replayed.plies_played(),
        2,
        "the engine's reply is a legal move"
    );
    assert!(browser
        .text("#play-status")
        .starts_with("Your move (black)."));

    // A new game; an optional promotion is asked for, a capture at 19f by the piece on 19n.
    browser.click("#play-new");
    wait_for_moves(&browser, 0);
    let capture = |text: &str| {
        game.legal_moves()
            .into_iter()
            .find(|m| m.to_string() == text)
    };
    assert!(capture("19nx19f+").is_some() && capture("19nx19f=").is_some());
    browser.click(&point("19n".parse().unwrap()));
    browser.click(&point("19f".parse().unwrap()));
    let choices = browser.wait_for(
        "the promotion choice",
        "return Array.from(document.querySelectorAll('#play-choices button')).map(b => b.dataset.choice);",
        |v| v.as_array().is_some_and(|a| a.len() > 1),
    );
    assert_eq!(choices, json!(["promote", "decline", "cancel"]));
    browser.click("#play-choices button[data-choice='decline']");
    let moves = wait_for_moves(&browser, 2);
    assert_eq!(moves[0], "19nx19f=");

    // A move in two legs that may stop after the first: 13s-13r or 13s-13r-13s (there and back).
    let position = page_game(&browser);
    let from_13s: BTreeSet<String> = position
        .legal_moves()
        .iter()
        .filter(|m| m.origin().to_string() == "13s")
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        from_13s,
        BTreeSet::from(["13s-13r".to_string(), "13s-13r-13s".to_string()])
    );
    browser.click(&point("13s".parse().unwrap()));
    browser.click(&point("13r".parse().unwrap()));
    let after_first_leg = browser.wait_for(
        "the second leg and the stop marked",
        "return [document.querySelector('#play-board .mark-stop')?.dataset.square, Array.from(document.querySelectorAll('#play-board .mark-leg')).map(e => e.dataset.square)];",
        |v| v[0].is_string(),
    );
    assert_eq!(after_first_leg, json!(["13r", ["13s"]]));
    // Clicking the piece's point again ends the move there.
    browser.click(&point("13r".parse().unwrap()));
    let moves = wait_for_moves(&browser, 4);
    assert_eq!(moves[2], "13s-13r");
    assert_eq!(page_game(&browser).plies_played(), 4);

    // Select a piece again so the screenshot shows marked destinations, with the network's view.
    browser.click("#play-network-toggle");
    let game = page_game(&browser);
    browser.click(&point(ours.origin()));
    assert_marks_match_the_rules(&browser, &game, ours.origin());
    browser.wait_for(
        "the network's arrows",
        "return document.querySelectorAll('#play-board .arrows text').length;",
        |v| v.as_u64().is_some_and(|n| n > 0),
    );
    let shot = artifact_path("serve-e2e.png");
    browser.screenshot(&shot);
    println!("screenshot: {}", shot.display());

    browser.click("#tab-training");
    browser.wait_for(
        "the training charts",
        "return document.querySelectorAll('#charts .chart polyline').length;",
        |v| v.as_u64().is_some_and(|n| n >= 3),
    );
    let shot = artifact_path("serve-e2e-training.png");
    browser.screenshot(&shot);
    println!("screenshot: {}", shot.display());
}
