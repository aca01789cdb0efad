//! Scripted sessions of the classical engine (`koshogi engine --classic`, or `setoption name
//! classic value true`): the same protocol as the network's search, other `info` lines.

use koshogi_baselines::ClassicSpec;
use koshogi_engine::{CapturedLines, Engine, EngineSettings, Flow, Output};
use koshogi_rules::notation::parse_move;
use koshogi_rules::{Game, RulesOptions};

fn classic_engine() -> (Engine, CapturedLines) {
    let (output, lines) = Output::capture();
    let settings = EngineSettings {
        classic: Some(ClassicSpec::default()),
        ..EngineSettings::default()
    };
    (Engine::new(output, settings), lines)
}

fn feed(engine: &mut Engine, script: &[&str]) {
    for line in script {
        assert_eq!(engine.handle_line(line), Flow::Continue, "{line}");
    }
    engine.wait();
}

fn bestmoves(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove ").map(str::to_string))
        .collect()
}

fn assert_legal(game: &Game, text: &str) {
    let mv = parse_move(game, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert!(game.legal_moves().contains(&mv), "{text} is not legal");
}

#[test]
fn go_nodes_reports_iterations_and_answers_a_legal_move() {
    let (mut engine, lines) = classic_engine();
    feed(
        &mut engine,
        &["position startpos moves 10m-10l", "go nodes 3000"],
    );
    let lines = lines.lines();
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth "))
        .collect();
    assert!(!infos.is_empty(), "{lines:#?}");
    assert!(
        infos[0].starts_with("info depth 1 score cp "),
        "{}",
        infos[0]
    );
    assert!(infos
        .iter()
        .all(|l| l.contains(" nodes ") && l.contains(" pv ")));
    let moves = bestmoves(&lines);
    assert_eq!(moves.len(), 1, "{lines:#?}");
    let mut game = Game::new(RulesOptions::default());
    let first = parse_move(&game, "10m-10l").unwrap();
    game.play(first);
    assert_legal(&game, &moves[0]);
}

#[test]
fn a_clock_and_stop_end_the_search_with_a_bestmove() {
    let (mut engine, lines) = classic_engine();
    feed(
        &mut engine,
        &[
            "position startpos",
            "go btime 2000 wtime 2000 binc 0 winc 0",
        ],
    );
    feed(&mut engine, &["go infinite", "stop"]);
    let moves = bestmoves(&lines.lines());
    assert_eq!(moves.len(), 2, "{:#?}", lines.lines());
    let game = Game::new(RulesOptions::default());
    for mv in &moves {
        assert_legal(&game, mv);
    }
}

#[test]
fn the_classic_option_switches_between_the_searches() {
    let (output, lines) = Output::capture();
    let mut engine = Engine::new(output, EngineSettings::default());
    feed(
        &mut engine,
        &[
            "koshogi",
            "setoption name classic value true",
            "position startpos",
            "go nodes 5000",
        ],
    );
    let after_on = lines.lines();
    assert!(after_on
        .iter()
        .any(|l| l == "option name classic type check default false"));
    assert!(after_on.iter().any(|l| l.starts_with("info depth ")));
    assert_eq!(bestmoves(&after_on).len(), 1);
    feed(
        &mut engine,
        &[
            "setoption name classic value maybe",
            "setoption name classic value false",
            "go nodes 8",
        ],
    );
    let all = lines.lines();
    assert!(all
        .iter()
        .any(|l| l.starts_with("info string error: classic: expected true or false")));
    // Back to the tree search: its info lines speak of visits.
    let after_off = &all[after_on.len()..];
    assert!(
        after_off.iter().any(|l| l.starts_with("info visits ")),
        "{after_off:#?}"
    );
    assert_eq!(bestmoves(after_off).len(), 1);
}
