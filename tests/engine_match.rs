//! `koshogi engine` as a match opponent, end to end through the binary: a game on a short
//! clock with no time losses (material evaluator and a tiny network), `go infinite` + `stop`,
//! and `koshogi arena` with `engine:` players.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use koshogi_rules::notation::parse_canonical;
use koshogi_rules::{Color, Game, RulesOptions};

/// The koshogi binary under test, as text (it goes into `engine:` specs).
fn bin() -> String {
    koshogi_test_support::koshogi_binary()
        .to_str()
        .expect("a UTF-8 path")
        .to_string()
}

/// `koshogi engine` with pipes; stdout lines arrive on a channel so reads can time out.
struct EngineUnderTest {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl EngineUnderTest {
    fn start(args: &[&str]) -> EngineUnderTest {
        let mut child = Command::new(bin())
            .arg("engine")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if sender.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut engine = EngineUnderTest {
            child,
            stdin,
            lines,
        };
        engine.send("koshogi");
        engine.read_until("koshogiok", Duration::from_secs(60));
        engine.send("isready");
        engine.read_until("readyok", Duration::from_secs(60));
        engine
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`; `None` on timeout.
    fn try_read_until(&mut self, prefix: &str, timeout: Duration) -> Option<Vec<String>> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(wait) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return Some(seen);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => panic!("the engine exited: {seen:#?}"),
            }
        }
    }

    fn read_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        self.try_read_until(prefix, timeout)
            .unwrap_or_else(|| panic!("no {prefix:?} within {timeout:?}"))
    }
}

impl Drop for EngineUnderTest {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tiny random-initialised network checkpoint (slower batches than the material evaluator,
/// like a real network).
fn tiny_checkpoint(dir: &Path) -> String {
    let step = dir.join("step-000000001");
    let rules = serde_json::to_value(RulesOptions::default()).unwrap();
    koshogi_nn::fixtures::save_tiny_checkpoint(&step, 1, 3, rules);
    step.display().to_string()
}

/// What a game on the clock cost.
struct ClockReport {
    moves: usize,
    used: Duration,
    allowed: Duration,
    longest_share: f64,
    time_losses: usize,
    /// How the game ended, if it ended by the rules before the last ply.
    ended: Option<String>,
}

/// The engine plays both sides of `plies` plies, each side on `base + increment` (ms). The
/// test keeps both clocks as a GUI would: from sending `position` to reading `bestmove`,
/// a move longer than the time left is a loss on time.
fn play_on_the_clock(
    engine: &mut EngineUnderTest,
    plies: usize,
    base: u64,
    increment: u64,
) -> ClockReport {
    let mut game = Game::new(RulesOptions::default());
    let mut clocks = [Duration::from_millis(base); 2];
    let inc = Duration::from_millis(increment);
    let mut history: Vec<String> = Vec::new();
    let mut report = ClockReport {
        moves: 0,
        used: Duration::ZERO,
        allowed: Duration::ZERO,
        longest_share: 0.0,
        time_losses: 0,
        ended: None,
    };
    for _ in 0..plies {
        if let Some(outcome) = game.outcome() {
            report.ended = Some(koshogi_rules::game_record::termination_text(outcome).to_string());
            break;
        }
        let side = match game.position().side_to_move() {
            Color::Black => 0,
            Color::White => 1,
        };
        let left = clocks[side];
        let start = Instant::now();
        engine.send(&format!("position startpos moves {}", history.join(" ")));
        engine.send(&format!(
            "go btime {} wtime {} binc {increment} winc {increment}",
            clocks[0].as_millis(),
            clocks[1].as_millis()
        ));
        // Wait past the limit only to tell a loss on time from a hang.
        let lines = engine.read_until("bestmove ", left + Duration::from_secs(30));
        let used = start.elapsed();
        if used > left {
            report.time_losses += 1;
        }
        report.moves += 1;
        report.used += used;
        report.allowed += left;
        report.longest_share = report
            .longest_share
            .max(used.as_secs_f64() / left.as_secs_f64());
        clocks[side] = left.saturating_sub(used) + inc;
        let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        let mv = parse_canonical(game.position(), &game.legal_moves(), best)
            .unwrap_or_else(|e| panic!("bestmove {best}: {e}\n{lines:#?}"));
        game.play(mv);
        history.push(best.to_string());
    }
    report
}

/// 2 s + 100 ms a side, 20 plies, with the material evaluator and with a tiny network: no
/// move is late, and the engine does use its time rather than ignore the clock: about the
/// increment less what a move costs beyond its budget (2 s cannot also keep that cost for each
/// of the 300 moves an opening plans for), so 96 ms a move with the material evaluator and
/// less with a network, whose moves the clock charges more.
#[test]
fn a_game_on_a_short_clock_has_no_time_losses() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_checkpoint(dir.path());
    for (label, args) in [
        ("material evaluator", vec![]),
        ("tiny network", vec!["--model", model.as_str()]),
    ] {
        let mut engine = EngineUnderTest::start(&args);
        let report = play_on_the_clock(&mut engine, 20, 2_000, 100);
        eprintln!(
            "{label}: {} moves on 2 s + 100 ms, {} ms used in all of {} ms allowed (sum of the \
             time left at each move), mean {} ms, longest move {:.1} % of the time left, {} \
             time losses; game end: {}",
            report.moves,
            report.used.as_millis(),
            report.allowed.as_millis(),
            report.used.as_millis() / report.moves as u128,
            100.0 * report.longest_share,
            report.time_losses,
            report.ended.as_deref().unwrap_or("none (20 plies played)")
        );
        assert_eq!(report.time_losses, 0, "{label}");
        assert!(
            report.moves == 20 || (report.ended.is_some() && report.moves >= 4),
            "{label}: {} moves",
            report.moves
        );
        let mean = report.used / report.moves as u32;
        assert!(mean >= Duration::from_millis(40), "{label}: mean {mean:?}");
        assert!(
            report.longest_share < 0.5,
            "{label}: {}",
            report.longest_share
        );
    }
}

#[test]
fn go_infinite_then_stop_answers_within_a_bound() {
    let mut engine = EngineUnderTest::start(&[]);
    engine.send("position startpos moves");
    engine.send("go infinite");
    assert!(
        engine
            .try_read_until("bestmove ", Duration::from_millis(700))
            .is_none(),
        "an infinite search answers only after stop"
    );
    let stop = Instant::now();
    engine.send("stop");
    let lines = engine.read_until("bestmove ", Duration::from_secs(10));
    let answered = stop.elapsed();
    assert!(answered < Duration::from_secs(1), "{answered:?}");
    assert!(lines.iter().any(|l| l.starts_with("info visits ")));
    eprintln!("stop answered in {answered:?}");
    engine.send("quit");
    let status = engine.child.wait().unwrap();
    assert!(status.success());
}

fn arena(args: &[&str]) -> (String, String) {
    let output = Command::new(bin())
        .arg("arena")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// `koshogi arena --a engine:"koshogi engine@nodes=8" --b greedy --games 2`: two finished
/// games, recorded under the engine's name, none forfeited.
#[test]
fn the_arena_matches_an_engine_subprocess_against_greedy() {
    let out = tempfile::tempdir().unwrap();
    let engine = format!("engine:{} engine@nodes=8", bin());
    let (stdout, _) = arena(&[
        "--a",
        &engine,
        "--b",
        "greedy",
        "--games",
        "2",
        "--max-plies",
        "30",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(
        stdout.contains(&format!("{engine} vs greedy: 2 games")),
        "{stdout}"
    );
    // Each game went past the 4-ply opening: the engine played moves.
    koshogi_test_support::assert_engine_games_finished(out.path(), &engine, 2, 4, &stdout);
}

/// The arena as the clock keeper: two builds' worth of engine (the same binary twice), each
/// on 2 s + 100 ms, 40 plies: no game is lost on time.
#[test]
fn two_engines_on_the_clock_in_the_arena_lose_no_game_on_time() {
    let out = tempfile::tempdir().unwrap();
    let a = format!("engine:{} engine@time=2000,inc=100", bin());
    let b = format!("engine:{} engine --overhead 100@time=2000,inc=100", bin());
    let (stdout, stderr) = arena(&[
        "--a",
        &a,
        "--b",
        &b,
        "--games",
        "2",
        "--max-plies",
        "40",
        "--opening-plies",
        "2",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(out.path().join("games.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(!csv.contains("forfeit"), "{csv}\n{stdout}\n{stderr}");
    // The players' own accounting, logged when they are dropped.
    assert!(stderr.contains("time_losses=0"), "{stderr}");
    assert!(!stderr.contains("time_losses=1"), "{stderr}");
}

/// An engine that dies loses its games; the arena reports the match and exits cleanly.
#[test]
fn an_engine_that_dies_loses_and_the_arena_carries_on() {
    let dying = "engine:sh -c 'read l; echo koshogiok; read l; echo readyok; read l; exit 9'";
    let (stdout, _) = arena(&[
        "--a",
        dying,
        "--b",
        "random",
        "--games",
        "2",
        "--max-plies",
        "20",
    ]);
    assert!(stdout.contains("2 games, +0 =0 -2"), "{stdout}");
}
