//! The match-play part of the protocol, driven through the library: `go nodes`, the clock,
//! `go infinite` + `stop`, `go ponder` + `ponderhit`, MultiPV, the USI handshake, and input
//! that must neither hang nor exhaust the engine.

use std::time::{Duration, Instant};

use koshogi_engine::{CapturedLines, Engine, EngineSettings, Flow, Output};
use koshogi_rules::notation::parse_canonical;
use koshogi_rules::{Game, RulesOptions};

fn engine() -> (Engine, CapturedLines) {
    let (output, lines) = Output::capture();
    (Engine::new(output, EngineSettings::default()), lines)
}

fn send(engine: &mut Engine, line: &str) {
    assert_eq!(engine.handle_line(line), Flow::Continue, "{line}");
}

fn bestmoves(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(str::to_string)
        .collect()
}

fn errors(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .cloned()
        .collect()
}

/// The number after `key` in an `info` line.
fn field(line: &str, key: &str) -> u64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|&w| w == key).expect(key);
    words[at + 1].parse().unwrap()
}

fn assert_legal_from_start(mv: &str) {
    let game = Game::new(RulesOptions::default());
    assert!(
        parse_canonical(game.position(), &game.legal_moves(), mv).is_ok(),
        "{mv} is not a legal first move"
    );
}

#[test]
fn go_nodes_runs_that_many_simulations() {
    let (mut engine, lines) = engine();
    send(&mut engine, "position startpos moves");
    send(&mut engine, "go nodes 40");
    engine.wait();
    let out = lines.lines();
    assert!(errors(&out).is_empty(), "{out:#?}");
    let info = out.iter().rfind(|l| l.starts_with("info visits ")).unwrap();
    // 40 simulations, the root's own evaluation, and at most one batch of 4 past the limit.
    let visits = field(info, "visits");
    assert!((41..=45).contains(&visits), "{info}");
    assert_legal_from_start(&bestmoves(&out)[0]);
}

/// Under a clock the search uses about its budget, not the whole clock and not nothing: 2 s
/// cannot keep the 10 ms overhead for each of the 300 moves the opening plans for, so the
/// engine spends the increment less the overhead, plus a share of the rest: 96 ms.
#[test]
fn the_clock_sets_the_search_time() {
    let (mut engine, lines) = engine();
    let start = Instant::now();
    send(&mut engine, "go btime 2000 wtime 2000 binc 100 winc 100");
    engine.wait();
    let took = start.elapsed();
    let out = lines.lines();
    assert_eq!(bestmoves(&out).len(), 1, "{out:#?}");
    assert!(took >= Duration::from_millis(90), "{took:?}");
    assert!(took < Duration::from_millis(1_900), "{took:?}");
    let info = out.iter().rfind(|l| l.starts_with("info visits ")).unwrap();
    assert!(field(info, "visits") > 45, "it searched: {info}");
}

/// USI byoyomi: no main time left, 400 ms per move; the engine spends it minus the margin.
#[test]
fn byoyomi_is_spent_but_not_overrun() {
    let (mut engine, lines) = engine();
    send(&mut engine, "setoption name overhead value 100");
    let start = Instant::now();
    send(&mut engine, "go btime 0 wtime 0 byoyomi 400");
    engine.wait();
    let took = start.elapsed();
    assert_eq!(bestmoves(&lines.lines()).len(), 1);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(400), "{took:?}");
}

/// No time left, or a clock too short to keep its reserve: the engine answers at once with a
/// move chosen without searching or evaluating (no `info visits` line), a legal one.
#[test]
fn with_no_time_left_it_still_moves_at_once() {
    for go in ["go btime 0 wtime 0", "go btime 2000 wtime 2000"] {
        let (mut engine, lines) = engine();
        let start = Instant::now();
        send(&mut engine, go);
        engine.wait();
        assert!(start.elapsed() < Duration::from_millis(500), "{go}");
        let out = lines.lines();
        assert!(
            out.iter().all(|l| !l.starts_with("info visits ")),
            "{go}: {out:#?}"
        );
        assert!(
            out.iter()
                .any(|l| l.starts_with("info string no search time")),
            "{go}: {out:#?}"
        );
        assert_legal_from_start(&bestmoves(&out)[0]);
    }
}

#[test]
fn go_infinite_answers_only_after_stop_and_then_at_once() {
    let (mut engine, lines) = engine();
    send(&mut engine, "go infinite");
    std::thread::sleep(Duration::from_millis(400));
    send(&mut engine, "isready");
    assert!(
        bestmoves(&lines.lines()).is_empty(),
        "no bestmove before stop"
    );
    let stop = Instant::now();
    send(&mut engine, "stop");
    let answered = stop.elapsed();
    let out = lines.lines();
    assert_eq!(bestmoves(&out).len(), 1);
    assert!(answered < Duration::from_millis(500), "{answered:?}");
    assert!(out.iter().any(|l| l == "readyok"));
    assert_legal_from_start(&bestmoves(&out)[0]);
}

/// A finished tree (here: the visit limit) does not release an infinite search's answer.
#[test]
fn go_infinite_holds_its_answer_even_when_the_search_is_complete() {
    let (mut engine, lines) = engine();
    send(&mut engine, "go infinite nodes 8");
    std::thread::sleep(Duration::from_millis(300));
    assert!(bestmoves(&lines.lines()).is_empty());
    send(&mut engine, "stop");
    assert_eq!(bestmoves(&lines.lines()).len(), 1);
}

/// A client that forgets `stop` does not hang the engine: the next command ends the search
/// (which answers) and then runs.
#[test]
fn a_command_during_go_infinite_stops_it_instead_of_hanging() {
    let (mut engine, lines) = engine();
    send(&mut engine, "go infinite");
    let game = Game::new(RulesOptions::default());
    let first = game.legal_moves()[3].to_string();
    send(&mut engine, &format!("position startpos moves {first}"));
    let out = lines.lines();
    assert_eq!(bestmoves(&out).len(), 1);
    assert!(errors(&out).is_empty(), "{out:#?}");
    assert_eq!(engine.game().plies_played(), 1);
    // The end of the input stops a held search too.
    let (mut piped, lines) = self::engine();
    piped.run(std::io::Cursor::new(b"go infinite\n".to_vec()));
    assert_eq!(bestmoves(&lines.lines()).len(), 1);
}

#[test]
fn ponderhit_turns_pondering_into_a_timed_search() {
    let (mut engine, lines) = engine();
    send(&mut engine, "go ponder btime 1000 wtime 1000 byoyomi 200");
    // Short: with the material evaluator the tree is full (and the search done) after about
    // half a second, which would end the search at the ponderhit.
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        bestmoves(&lines.lines()).is_empty(),
        "pondering does not answer"
    );
    let hit = Instant::now();
    send(&mut engine, "ponderhit");
    engine.wait();
    // Budget from the ponderhit: byoyomi alone (1 s is less than the 300 moves' reserve of
    // 10 ms each), 200 ms.
    let took = hit.elapsed();
    assert!(took >= Duration::from_millis(200), "{took:?}");
    assert!(took < Duration::from_millis(1_150), "{took:?}");
    let out = lines.lines();
    assert_eq!(bestmoves(&out).len(), 1);
    assert!(errors(&out).is_empty(), "{out:#?}");
    // ponderhit with nothing pondering is an error line, not a crash.
    send(&mut engine, "ponderhit");
    assert_eq!(errors(&lines.lines()).len(), 1);
}

#[test]
fn stop_ends_pondering_with_an_answer() {
    let (mut engine, lines) = engine();
    send(&mut engine, "go ponder movetime 100000");
    std::thread::sleep(Duration::from_millis(200));
    send(&mut engine, "stop");
    assert_eq!(bestmoves(&lines.lines()).len(), 1);
}

#[test]
fn multipv_prints_the_most_visited_moves_best_first() {
    let (mut engine, lines) = engine();
    send(&mut engine, "setoption name MultiPV value 3");
    send(&mut engine, "go nodes 200");
    engine.wait();
    let out = lines.lines();
    assert!(errors(&out).is_empty(), "{out:#?}");
    let best = bestmoves(&out)[0].clone();
    // The final report: the last three multipv lines, numbered 1 to 3.
    let multipv: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("info multipv "))
        .collect();
    assert!(multipv.len() >= 3, "{out:#?}");
    let last = &multipv[multipv.len() - 3..];
    for (i, line) in last.iter().enumerate() {
        assert_eq!(field(line, "multipv"), i as u64 + 1, "{line}");
        assert!(field(line, "visits") >= 200, "{line}");
    }
    let pv_head = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words[words.iter().position(|&w| w == "pv").unwrap() + 1].to_string()
    };
    assert_eq!(pv_head(last[0]), best, "line 1 is the move played");
    let heads: std::collections::HashSet<String> = last.iter().map(|l| pv_head(l)).collect();
    assert_eq!(heads.len(), 3, "three different moves: {last:#?}");
    let move_visits: Vec<u64> = last.iter().map(|l| field(l, "movevisits")).collect();
    assert!(
        move_visits.windows(2).all(|w| w[0] >= w[1]),
        "{move_visits:?}"
    );
    // Back to one line.
    send(&mut engine, "setoption name multipv value 1");
    send(&mut engine, "go nodes 8");
    engine.wait();
    let after = lines.lines();
    assert!(after[out.len()..]
        .iter()
        .all(|l| !l.starts_with("info multipv")));
    // A search stopped before it visited anything still reports the move it plays.
    send(&mut engine, "setoption name MultiPV value 3");
    send(&mut engine, "go infinite");
    send(&mut engine, "stop");
    let stopped = lines.lines();
    let tail = &stopped[after.len()..];
    let best = bestmoves(tail)[0].clone();
    let first = tail
        .iter()
        .find(|l| l.starts_with("info multipv 1 "))
        .unwrap_or_else(|| panic!("no multipv line in {tail:#?}"));
    assert_eq!(pv_head(first), best);
    send(&mut engine, "setoption name MultiPV value 1");
    send(&mut engine, "setoption name MultiPV value 0");
    send(&mut engine, "setoption name MultiPV value 65");
    assert_eq!(errors(&lines.lines()).len(), 2);
    assert_eq!(engine.protocol_options().multipv, 1);
}

#[test]
fn usi_clients_get_their_handshake() {
    let (mut engine, lines) = engine();
    for line in ["usi", "isready", "usinewgame", "position startpos moves"] {
        send(&mut engine, line);
    }
    send(&mut engine, "go nodes 8");
    send(&mut engine, "gameover draw");
    let out = lines.lines();
    assert!(errors(&out).is_empty(), "{out:#?}");
    let ok = out.iter().position(|l| l == "usiok").expect("usiok");
    assert!(out[..ok]
        .iter()
        .any(|l| l.starts_with("option name MultiPV ")));
    assert!(out[..ok]
        .iter()
        .any(|l| l.starts_with("option name overhead ")));
    assert!(!out.iter().any(|l| l == "koshogiok"));
    assert_eq!(bestmoves(&out).len(), 1);
}

/// `go` limits too far away to add to the clock are searched until `stop`, without overflow.
/// The `go` lines that are refused outright (`go nodes 0`, `go btime` …) are in
/// `data/engine/hostile-lines.txt`, fed by `tests/sessions.rs`.
#[test]
fn go_limits_too_large_for_the_clock_are_bounded_never_panics() {
    let (mut engine, lines) = engine();
    send(&mut engine, "go movetime 18446744073709551615");
    std::thread::sleep(Duration::from_millis(100));
    send(&mut engine, "stop");
    send(&mut engine, "go btime 99999999999999999999 wtime 1");
    std::thread::sleep(Duration::from_millis(100));
    send(&mut engine, "stop");
    engine.wait();
    let out = lines.lines();
    assert_eq!(bestmoves(&out).len(), 2, "{out:#?}");
    assert!(errors(&out).is_empty(), "{out:#?}");
}

/// A line of several MB is refused with one short error and is not kept whole; the session
/// goes on.
#[test]
fn an_overlong_line_is_refused_and_reading_goes_on() {
    let (mut engine, lines) = engine();
    let mut input = b"position startpos moves ".to_vec();
    input.extend(std::iter::repeat_n(b'x', 3 << 20));
    input.extend_from_slice(b"\nisready\ngo nodes 4\n");
    engine.run(std::io::Cursor::new(input));
    let out = lines.lines();
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{out:#?}");
    assert!(errs[0].contains("longer than"), "{}", errs[0]);
    assert!(out.iter().all(|l| l.len() < 500));
    assert!(out.iter().any(|l| l == "readyok"));
    assert_eq!(bestmoves(&out).len(), 1);
}

/// The clock tells what a move really cost: when the same game comes back two plies later
/// with a second gone from the side's clock, far more than the move's budget, the engine
/// reserves that cost for the moves to come and stops searching; a `go` of another game
/// teaches it nothing.
#[test]
fn what_the_clock_charged_a_move_is_learnt_for_the_moves_to_come() {
    let searched = |out: &[String]| out.iter().any(|l| l.starts_with("info visits "));
    for continues in [true, false] {
        let (mut engine, lines) = engine();
        let mut game = Game::new(RulesOptions::default());
        let first = game.legal_moves()[if continues { 0 } else { 1 }];
        game.play(first);
        send(&mut engine, &format!("position startpos moves {first}"));
        send(&mut engine, "go btime 60000 wtime 60000");
        engine.wait();
        assert!(searched(&lines.lines()), "60 s searches");
        let mut game = Game::new(RulesOptions::default());
        for _ in 0..3 {
            let mv = game.legal_moves()[0];
            game.play(mv);
        }
        let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
        let seen = lines.lines().len();
        send(
            &mut engine,
            &format!("position startpos moves {}", moves.join(" ")),
        );
        send(&mut engine, "go btime 60000 wtime 59000");
        engine.wait();
        let out = lines.lines()[seen..].to_vec();
        assert_eq!(bestmoves(&out).len(), 1, "{out:#?}");
        assert_eq!(
            searched(&out),
            !continues,
            "continues: {continues}: {out:#?}"
        );
    }
}
