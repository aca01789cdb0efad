//! Scripted protocol sessions driven through the library, garbage included.
//!
//! The garbage is data: `data/engine/hostile-lines.txt` (format in `data/README.md`) holds the
//! input lines the engine must refuse, so that one is added without writing Rust; each must be
//! answered with one error line and change nothing, and a refused `go` must still answer a
//! legal `bestmove` (a match runner waits for it). A file without lines or with an unknown
//! escape fails, naming the file and line.

use std::time::{Duration, Instant};

use koshogi_engine::{Engine, EngineSettings, Flow, Output};
use koshogi_rules::notation::{format_hodges, parse_canonical};
use koshogi_rules::{Color, Game, Piece, PieceKind, Position, RulesOptions, Square};

fn engine() -> (Engine, koshogi_engine::CapturedLines) {
    let (output, lines) = Output::capture();
    (Engine::new(output, EngineSettings::default()), lines)
}

fn feed(engine: &mut Engine, script: &[&str]) {
    for line in script {
        assert_eq!(engine.handle_line(line), Flow::Continue, "{line}");
    }
    engine.wait();
}

fn bestmove(lines: &[String]) -> &str {
    let found: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("bestmove "))
        .collect();
    assert_eq!(found.len(), 1, "expected one bestmove in {lines:#?}");
    found[0].strip_prefix("bestmove ").unwrap()
}

fn errors(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .count()
}

#[test]
fn identification_lists_every_option_and_ends_with_koshogiok() {
    let (mut engine, lines) = engine();
    feed(&mut engine, &["koshogi", "isready"]);
    let lines = lines.lines();
    assert!(lines[0].starts_with("id name koshogi-zero"));
    assert!(lines[1].starts_with("id author "));
    for option in ["model", "simulations", "threads", "rules"] {
        let prefix = format!("option name {option} type ");
        assert!(
            lines.iter().any(|l| l.starts_with(&prefix)),
            "no {option} in {lines:#?}"
        );
    }
    let ok = lines.iter().position(|l| l == "koshogiok").unwrap();
    assert!(lines[..ok]
        .iter()
        .all(|l| l.starts_with("id ") || l.starts_with("option ")));
    assert_eq!(lines.last().unwrap(), "readyok");
}

#[test]
fn go_with_a_visit_limit_plays_a_legal_move_and_reports_it_as_the_pv_head() {
    let (mut engine, lines) = engine();
    feed(&mut engine, &["position startpos", "go visits 24"]);
    let lines = lines.lines();
    let best = bestmove(&lines).to_string();
    let game = Game::new(RulesOptions::default());
    let legal = game.legal_moves();
    let mv = parse_canonical(game.position(), &legal, &best).expect("bestmove is a legal move");
    assert_eq!(mv.to_string(), best, "bestmove is written canonically");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info visits "))
        .expect("an info line");
    let words: Vec<&str> = info.split_whitespace().collect();
    let visits: u32 = words[2].parse().unwrap();
    assert!(visits >= 24, "{info}");
    let value: f32 = words[words.iter().position(|&w| w == "value").unwrap() + 1]
        .parse()
        .unwrap();
    assert!((-1.0..=1.0).contains(&value));
    let pv = words.iter().position(|&w| w == "pv").unwrap();
    assert_eq!(words[pv + 1], best, "{info}");
}

#[test]
fn moves_are_accepted_in_hodges_and_canonical_notation() {
    let mut expected = Game::new(RulesOptions::default());
    let first = expected.legal_moves()[5];
    let hodges = format_hodges(expected.position(), &expected.legal_moves(), &first);
    expected.play(first);
    let second = expected.legal_moves()[9];
    expected.play(second);
    let (mut engine, lines) = engine();
    let command = format!("position startpos moves {hodges} {second}");
    feed(&mut engine, &[&command]);
    assert_eq!(errors(&lines.lines()), 0, "{:#?}", lines.lines());
    assert_eq!(engine.game().position().hash(), expected.position().hash());
    assert_eq!(engine.game().plies_played(), 2);
    // The same from a KSFEN start.
    let ksfen = Position::startpos().to_ksfen(true);
    let command = format!("position ksfen {ksfen} moves {first} {second}");
    feed(&mut engine, &[&command]);
    assert_eq!(errors(&lines.lines()), 0);
    assert_eq!(engine.game().position().hash(), expected.position().hash());
}

/// A match runner resends the whole game before each move; the engine plays only the new
/// moves onto its game, which must give the game a fresh replay gives, and anything else (a
/// different history, other rules, a bad move) must still be read from the start.
#[test]
fn a_resent_game_gives_the_same_position_as_a_fresh_replay() {
    let history = |plies: usize, stride: usize| {
        let mut game = Game::new(RulesOptions::default());
        let mut texts = Vec::new();
        for ply in 0..plies {
            let legal = game.legal_moves();
            let mv = legal[((ply + 1) * stride) % legal.len()];
            texts.push(mv.to_string());
            game.play(mv);
        }
        texts
    };
    let texts = history(12, 31);
    let fresh = |moves: &[String], rules: &str| {
        let (mut engine, _) = engine();
        feed(
            &mut engine,
            &[
                &format!("setoption name rules value {rules}"),
                &format!("position startpos moves {}", moves.join(" ")),
            ],
        );
        (
            engine.game().position().to_ksfen(true),
            engine.game().plies_played(),
        )
    };
    let (mut engine, lines) = engine();
    let state = |engine: &Engine| {
        (
            engine.game().position().to_ksfen(true),
            engine.game().plies_played(),
        )
    };
    for n in 1..=texts.len() {
        let prefix = &texts[..n];
        feed(
            &mut engine,
            &[&format!("position startpos moves {}", prefix.join(" "))],
        );
        assert_eq!(state(&engine), fresh(prefix, "default"), "{n} moves");
    }
    // A bad move after a good prefix changes nothing.
    let bad = format!("position startpos moves {} 1a-1b", texts.join(" "));
    feed(&mut engine, &[&bad]);
    assert_eq!(errors(&lines.lines()), 1);
    assert_eq!(state(&engine), fresh(&texts, "default"));
    // A history that differs early, then other rules: each read from the start.
    let other = history(4, 13);
    assert_ne!(other[0], texts[0]);
    feed(
        &mut engine,
        &[&format!("position startpos moves {}", other.join(" "))],
    );
    let expected = fresh(&other, "default");
    assert_eq!(state(&engine), expected);
    let rules = r#"{"allow_pass": false}"#;
    feed(
        &mut engine,
        &[
            &format!("setoption name rules value {rules}"),
            &format!("position startpos moves {}", texts[..6].join(" ")),
        ],
    );
    assert!(!engine.game().options().allow_pass);
    assert_eq!(state(&engine), fresh(&texts[..6], rules));
}

/// A game handed over by `set_game` carries its own history; a `position` from its current
/// position starts a fresh game rather than continuing that history.
#[test]
fn a_position_after_set_game_is_read_afresh() {
    let mut game = Game::new(RulesOptions::default());
    for _ in 0..4 {
        let mv = game.legal_moves()[0];
        game.play(mv);
    }
    let ksfen = game.position().to_ksfen(true);
    let (mut engine, lines) = engine();
    engine.set_game(game);
    assert_eq!(engine.game().plies_played(), 4);
    feed(&mut engine, &[&format!("position ksfen {ksfen}")]);
    assert_eq!(errors(&lines.lines()), 0);
    assert_eq!(engine.game().plies_played(), 0);
    assert_eq!(engine.game().position().to_ksfen(true), ksfen);
}

/// `raw` with its escapes replaced: `\\` a backslash, `\u{HEX}` that character.
fn unescape(raw: &str, at: &str) -> String {
    let mut out = String::new();
    let mut rest = raw;
    while let Some(escape) = rest.find('\\') {
        out.push_str(&rest[..escape]);
        rest = &rest[escape + 1..];
        if let Some(after) = rest.strip_prefix('\\') {
            out.push('\\');
            rest = after;
        } else if let Some(after) = rest.strip_prefix("u{") {
            let (hex, after) = after
                .split_once('}')
                .unwrap_or_else(|| panic!("{at}: `\\u{{` without its `}}`"));
            let c = Some(hex)
                .filter(|hex| (1..=6).contains(&hex.len()))
                .filter(|hex| hex.chars().all(|c| c.is_ascii_hexdigit()))
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .and_then(char::from_u32)
                .unwrap_or_else(|| panic!("{at}: \\u{{{hex}}} is not a character"));
            out.push(c);
            rest = after;
        } else {
            match rest.chars().next() {
                Some(c) => panic!("{at}: unknown escape `\\{c}`"),
                None => panic!("{at}: a `\\` at the end of the line"),
            }
        }
    }
    out.push_str(rest);
    out
}

/// The input lines of `data/engine/hostile-lines.txt` with their line numbers, escapes
/// replaced; at least one.
fn hostile_lines() -> Vec<(usize, String)> {
    let path = koshogi_test_support::data_path("engine/hostile-lines.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .filter(|(_, raw)| !raw.trim().is_empty() && !raw.starts_with('#'))
        .map(|(index, raw)| {
            let at = format!("hostile-lines.txt:{}", index + 1);
            (index + 1, unescape(raw, &at))
        })
        .collect();
    assert!(!lines.is_empty(), "{}: no input lines", path.display());
    lines
}

#[test]
fn garbage_gets_one_error_line_each_and_changes_nothing() {
    let (mut engine, lines) = engine();
    let game = Game::new(RulesOptions::default());
    let first = game.legal_moves()[0].to_string();
    let setup = format!("position startpos moves {first}");
    feed(&mut engine, &[&setup]);
    let before = engine.game().position().hash();
    let after_setup = engine.game().clone();
    let mut failures = Vec::new();
    let mut refused_gos = 0;
    for (number, line) in hostile_lines() {
        let seen = lines.lines().len();
        feed(&mut engine, &[&line]);
        let output = lines.lines();
        let answer = &output[seen..];
        let at = format!("hostile-lines.txt:{number}: {line:?}");
        let answered: Vec<&str> = answer
            .iter()
            .filter_map(|l| l.strip_prefix("bestmove "))
            .collect();
        // A refused `go` answers one legal move; any other refused line answers none.
        let answered_as_it_should = if line.split_whitespace().next() == Some("go") {
            refused_gos += 1;
            matches!(answered[..], [mv] if parse_canonical(
                after_setup.position(),
                &after_setup.legal_moves(),
                mv
            )
            .is_ok())
        } else {
            answered.is_empty()
        };
        if errors(answer) != 1 || !answered_as_it_should {
            failures.push(format!("{at} answered {answer:?}"));
        }
        if engine.game().position().hash() != before {
            failures.push(format!("{at} changed the position"));
        }
        if engine.settings() != &EngineSettings::default() {
            failures.push(format!("{at} changed the settings"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(refused_gos > 0, "the file has no `go` line");
    // Still alive and playing.
    let seen = lines.lines().len();
    feed(&mut engine, &["go visits 4", "isready"]);
    let output = lines.lines()[seen..].to_vec();
    let legal = {
        let mut g = Game::new(RulesOptions::default());
        g.play(g.legal_moves()[0]);
        g
    };
    assert!(parse_canonical(legal.position(), &legal.legal_moves(), bestmove(&output)).is_ok());
    assert!(output.iter().any(|l| l == "readyok"));
}

#[test]
fn an_error_about_a_huge_line_quotes_only_part_of_it() {
    let (mut engine, lines) = engine();
    let huge = format!("position ksfen {}", "x".repeat(1_000_000));
    let unknown = format!("{} tail", "y".repeat(1_000_000));
    feed(&mut engine, &[&huge, &unknown]);
    let output = lines.lines();
    assert_eq!(errors(&output), 2, "{} lines", output.len());
    for line in &output {
        assert!(
            line.chars().count() < 500,
            "a {}-character reply",
            line.len()
        );
    }
}

#[test]
fn stop_ends_a_long_think_promptly_with_a_move() {
    let (mut engine, lines) = engine();
    let start = Instant::now();
    assert_eq!(engine.handle_line("go movetime 600000"), Flow::Continue);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(engine.handle_line("isready"), Flow::Continue); // answered during the search
    assert_eq!(engine.handle_line("stop"), Flow::Continue);
    assert!(start.elapsed() < Duration::from_secs(60));
    let output = lines.lines();
    let ready = output.iter().position(|l| l == "readyok").unwrap();
    let best = output
        .iter()
        .position(|l| l.starts_with("bestmove "))
        .unwrap();
    assert!(
        ready < best,
        "readyok comes before the stopped search's bestmove"
    );
    assert_ne!(bestmove(&output), "none");
}

#[test]
fn movetime_limits_the_search() {
    let (mut engine, lines) = engine();
    let start = Instant::now();
    feed(&mut engine, &["go movetime 300"]);
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_ne!(bestmove(&lines.lines()), "none");
}

#[test]
fn quit_stops_the_search_and_ends_the_session() {
    let (mut engine, lines) = engine();
    assert_eq!(engine.handle_line("go movetime 600000"), Flow::Continue);
    assert_eq!(engine.handle_line("quit"), Flow::Quit);
    assert_eq!(
        lines
            .lines()
            .iter()
            .filter(|l| l.starts_with("bestmove "))
            .count(),
        1
    );
}

#[test]
fn a_finished_game_answers_bestmove_resign() {
    // Only Black's general is left: White no longer survives (§10.1), the game is over.
    let mut position = Position::empty(Color::White);
    position.set_piece(
        Square::new(10, 19).unwrap(),
        Some(Piece {
            color: Color::Black,
            kind: PieceKind::ALL[0],
            promoted: false,
        }),
    );
    let (mut engine, lines) = engine();
    let command = format!("position ksfen {}", position.to_ksfen(true));
    feed(&mut engine, &[&command, "go visits 10"]);
    let output = lines.lines();
    assert_eq!(errors(&output), 0, "{output:#?}");
    assert!(output
        .iter()
        .any(|l| l.starts_with("info string game over")));
    assert_eq!(bestmove(&output), "resign");
}

#[test]
fn options_take_effect() {
    let (mut engine, lines) = engine();
    feed(
        &mut engine,
        &[
            "setoption name simulations value 7",
            "setoption name Threads value 2",
            "setoption name rules value {\"allow_pass\": false}",
            "go",
        ],
    );
    assert_eq!(errors(&lines.lines()), 0, "{:#?}", lines.lines());
    assert_eq!(engine.settings().simulations, 7);
    assert_eq!(engine.settings().threads, 2);
    assert!(!engine.settings().rules.allow_pass);
    assert!(!engine.game().options().allow_pass);
    let info = lines
        .lines()
        .into_iter()
        .find(|l| l.starts_with("info visits"))
        .unwrap();
    let visits: u32 = info.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!((7..=7 + 4).contains(&visits), "{info}");
}

#[test]
fn a_checkpoint_can_be_loaded_and_played_with() {
    let dir = tempfile::tempdir().unwrap();
    let step = dir.path().join("step-000000007");
    koshogi_nn::fixtures::save_tiny_checkpoint(&step, 7, 1, serde_json::json!({}));
    let (mut engine, lines) = engine();
    let set = format!("setoption name model value {}", step.display());
    feed(&mut engine, &[&set, "isready", "go visits 8"]);
    let output = lines.lines();
    assert_eq!(errors(&output), 0, "{output:#?}");
    assert_eq!(
        engine.settings().model.as_deref(),
        Some(step.join("model.json").as_path())
    );
    let game = Game::new(RulesOptions::default());
    assert!(parse_canonical(game.position(), &game.legal_moves(), bestmove(&output)).is_ok());
    // Back to the material evaluator.
    feed(&mut engine, &["setoption name model value none"]);
    assert_eq!(engine.settings().model, None);
}

#[test]
fn run_reads_until_quit_and_survives_bytes_that_are_not_text() {
    let (mut engine, lines) = engine();
    let input: &[u8] =
        b"\xff\xfe\x00junk\nisready\nposition startpos\ngo visits 3\nquit\nisready\n";
    engine.run(std::io::Cursor::new(input));
    let output = lines.lines();
    assert_eq!(errors(&output), 1, "{output:#?}");
    assert_eq!(
        output.iter().filter(|l| *l == "readyok").count(),
        1,
        "nothing is read after quit"
    );
    assert_eq!(
        output.iter().filter(|l| l.starts_with("bestmove ")).count(),
        1
    );
}
