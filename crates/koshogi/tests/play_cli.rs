//! `koshogi play` with piped stdin: an illegal move is explained and asked again, a legal one
//! (Hodges or canonical) is played, the engine answers, the board is shown after each move.

use std::io::Write;
use std::process::{Command, Stdio};

use koshogi_rules::notation::format_hodges;
use koshogi_rules::{Game, RulesOptions};

fn play(args: &[&str], input: &str) -> String {
    play_bytes(args, input.as_bytes())
}

fn play_bytes(args: &[&str], input: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn boards(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("ksfen: ")).count()
}

#[test]
fn an_illegal_move_is_explained_then_a_hodges_move_is_played_and_answered() {
    let game = Game::new(RulesOptions::default());
    let legal = game.legal_moves();
    let hodges = format_hodges(game.position(), &legal, &legal[3]);
    let input = format!("10a-10b\n{hodges}\nquit\n");
    let out = play(&["--simulations", "4"], &input);
    assert!(out.contains("illegal move"), "{out}");
    assert!(
        out.contains(&format!("you play {hodges} ({})", legal[3])),
        "{out}"
    );
    assert!(out.contains("engine plays "), "{out}");
    // Start, after our move, after the engine's move.
    assert_eq!(boards(&out), 3, "{out}");
    assert!(out.contains("game abandoned"));
}

#[test]
fn playing_white_lets_the_engine_open_and_accepts_canonical_notation() {
    let out = play(&["--color", "white", "--simulations", "3"], "");
    assert!(out.contains("engine plays "), "{out}");
    assert!(out.contains("end of input"), "{out}");
    // The engine's opening, then a canonical reply of ours.
    let ksfen = out
        .lines()
        .filter_map(|l| l.strip_prefix("ksfen: "))
        .next_back()
        .unwrap()
        .to_string();
    let position = koshogi_rules::Position::from_ksfen(&ksfen).unwrap();
    let game = Game::from_position(position, RulesOptions::default());
    let reply = game.legal_moves()[0].to_string();
    // Replay: the engine is deterministic, so it opens the same way.
    let out = play(
        &["--color", "white", "--simulations", "3"],
        &format!("{reply}\nquit\n"),
    );
    assert!(out.contains(&format!("({reply})")), "{out}");
    assert!(!out.contains("illegal move"), "{out}");
}

#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_game_goes_on() {
    let game = Game::new(RulesOptions::default());
    let legal = game.legal_moves();
    let hodges = format_hodges(game.position(), &legal, &legal[3]);
    let mut input = b"\xff\xfe\n".to_vec();
    input.extend_from_slice(format!("{hodges}\nquit\n").as_bytes());
    let out = play_bytes(&["--simulations", "4"], &input);
    assert!(out.contains("not UTF-8"), "{out}");
    assert!(out.contains(&format!("you play {hodges}")), "{out}");
    assert!(out.contains("game abandoned"), "{out}");
}

/// A line of any length was read whole (a 1.5 GB line took 1.65 GB); one longer than the bound
/// is refused with its length, without being kept, and the game goes on.
#[test]
fn an_overlong_line_is_refused_and_the_game_goes_on() {
    let game = Game::new(RulesOptions::default());
    let legal = game.legal_moves();
    let hodges = format_hodges(game.position(), &legal, &legal[3]);
    let mut input = vec![b'x'; 8 << 20];
    input.extend_from_slice(format!("\n{hodges}\nquit\n").as_bytes());
    let out = play_bytes(&["--simulations", "4"], &input);
    assert!(
        out.contains("that line is 8388608 bytes, longer than the 4096 accepted"),
        "{}",
        &out[..out.len().min(2_000)]
    );
    assert!(
        !out.contains("illegal move"),
        "{}",
        &out[..out.len().min(2_000)]
    );
    assert!(out.contains(&format!("you play {hodges}")), "{out}");
    assert!(out.contains("game abandoned"), "{out}");
}
