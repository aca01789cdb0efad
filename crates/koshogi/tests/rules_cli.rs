//! End-to-end tests of the rules subcommands `moves`, `perft` and `show`: exact output formats
//! (other tools parse them) and clean failures on bad input.

use std::process::{Command, Output};

fn koshogi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(args)
        .output()
        .expect("run koshogi")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 output")
}

fn assert_clean_failure(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "expected failure, got success; stderr: {err}"
    );
    assert!(err.contains("error"), "no error message: {err}");
    assert!(
        err.contains(needle),
        "message {err:?} should mention {needle:?}"
    );
    assert!(!err.contains("panicked"), "panic: {err}");
}

/// A board of 19 ranks with a black general on 18s, a white general on 2a and a black sumo
/// wrestler on 10j (written by hand, §14.1).
const WRESTLER: &str = "17,g,1/19/19/19/19/19/19/19/19/9,WR,9/19/19/19/19/19/19/19/19/1,G,17 b";

#[test]
fn moves_lists_every_legal_move_in_the_exact_format() {
    let out = koshogi(&["moves", "startpos"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 226, "hand-counted start position moves");
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "sorted byte-wise by notation");
    for line in &lines {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert!(
            fields[0].starts_with(fields[1]),
            "origin is the notation's prefix: {line}"
        );
        let ksfen_fields: Vec<&str> = fields[2].split(' ').collect();
        assert_eq!(ksfen_fields.len(), 2, "no move number: {line}");
        assert_eq!(ksfen_fields[1], "w");
        assert_eq!(ksfen_fields[0].split('/').count(), 19);
    }
    let first: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(first[0], "10m-10h");
    assert!(
        first[2].contains("/9,va,9/9,VA,9/19/"),
        "the vanguard stands on 10h: {}",
        first[2]
    );
}

#[test]
fn moves_from_stdin_prints_each_position_as_moves_does_then_an_empty_line() {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(["moves", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run koshogi");
    let mut input = child.stdin.take().unwrap();
    writeln!(input, "startpos\n{WRESTLER}").unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let expected = format!(
        "{}\n{}\n",
        stdout(&koshogi(&["moves", "startpos"])),
        stdout(&koshogi(&["moves", WRESTLER]))
    );
    assert_eq!(stdout(&out), expected);
    let bad = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(["moves", "--stdin", "startpos"])
        .output()
        .unwrap();
    assert_clean_failure(&bad, "cannot be used with");
}

#[test]
fn moves_accepts_a_ksfen_as_one_argument_or_as_its_fields() {
    for args in [
        vec!["moves", WRESTLER],
        WRESTLER.split(' ').fold(vec!["moves"], |mut v, w| {
            v.push(w);
            v
        }),
    ] {
        let out = koshogi(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = stdout(&out);
        // §5.4: 24 points of the 5x5 square + the pass.
        assert_eq!(text.lines().filter(|l| l.starts_with("10j")).count(), 25);
        // The pass leaves the board as it is, White to move.
        let pass = text
            .lines()
            .find(|l| l.starts_with("10j-9i-10j\t"))
            .expect("pass listed");
        assert!(pass.ends_with(&WRESTLER.replace(" b", " w")));
    }
}

#[test]
fn perft_reports_counts_time_and_speed() {
    let out = koshogi(&["perft", "--depth", "2"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("nodes\t50940\n"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("time_s\t")));
    assert!(text.lines().any(|l| l.starts_with("nodes_per_s\t")));

    let out = koshogi(&[
        "perft",
        "--position",
        "startpos",
        "--depth",
        "1",
        "--divide",
    ]);
    let text = stdout(&out);
    let per_move: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("nodes") && !l.starts_with("time"))
        .collect();
    assert_eq!(per_move.len(), 226);
    assert!(per_move.iter().all(|l| l.ends_with("\t1")));
    assert!(text.contains("nodes\t226\n"));

    let out = koshogi(&["perft", "--position", WRESTLER, "--depth", "1"]);
    let text = stdout(&out);
    // Wrestler 25 + general on 18s: 5 neighbours (18r, 17r, 19r, 17s, 19s).
    assert!(text.contains("nodes\t30\n"), "{text}");
}

#[test]
fn show_draws_the_board_with_coordinates_and_derived_state() {
    let out = koshogi(&["show", "startpos"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let header = text.lines().next().unwrap();
    let files: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(files.first(), Some(&"19"));
    assert_eq!(files.last(), Some(&"1"));
    assert_eq!(files.len(), 19);
    let rank_s = text
        .lines()
        .find(|l| l.trim_start().starts_with("s "))
        .unwrap();
    assert!(
        rank_s.split_whitespace().collect::<Vec<_>>()[1..20].join(" ")
            == "FD SM EN CS GH SR WR A SC G PL A WR SR GH CS EN TB FD"
    );
    let rank_a = text
        .lines()
        .find(|l| l.trim_start().starts_with("a "))
        .unwrap();
    assert!(rank_a.contains("fd") && rank_a.contains("sm"));
    assert!(text.contains("side to move: black"));
    assert!(text.contains("immobilized: none"));

    // A white shield frozen by a black skyward net; White's drum and priest gone.
    let frozen = "17,g,1/19/19/19/19/19/19/7,sp,11/19/9,SK,9/19/19/19/19/19/19/19/19/1,G,17 w";
    let out = koshogi(&["show", frozen]);
    let text = stdout(&out);
    assert!(text.contains("immobilized: 12h sp"), "{text}");
    assert!(
        text.contains("white: survives yes, Taoist priest lost yes, drum lost yes"),
        "{text}"
    );
}

#[test]
fn bad_input_fails_cleanly() {
    assert_clean_failure(&koshogi(&["moves", "garbage"]), "invalid position");
    assert_clean_failure(&koshogi(&["moves", "19/19/19 b"]), "19 ranks");
    let bad_token = WRESTLER.replace("WR", "ZZ");
    assert_clean_failure(&koshogi(&["moves", &bad_token]), "ZZ");
    assert_clean_failure(
        &koshogi(&["moves", &WRESTLER.replace(" b", " x")]),
        "invalid position",
    );
    assert_clean_failure(
        &koshogi(&["perft", "--position", "nonsense", "--depth", "1"]),
        "invalid position",
    );
    assert_clean_failure(&koshogi(&["perft", "--depth", "99"]), "depth");
    assert_clean_failure(&koshogi(&["show", "1,2,3 b"]), "invalid position");
    assert_clean_failure(
        &koshogi(&["moves", "startpos", "--rules", "{\"no_such_rule\":1}"]),
        "rules",
    );
    let out = koshogi(&["moves"]);
    assert!(!out.status.success());
    // An endless file is refused after a bounded read, not read into memory.
    #[cfg(unix)]
    assert_clean_failure(
        &koshogi(&["show", "--game", "/dev/zero", "--ply", "0"]),
        "not a game record",
    );
    // A garbage record is quoted, not echoed whole.
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.txt");
    std::fs::write(&garbage, "Q".repeat(1_000_000)).unwrap();
    let out = koshogi(&["show", "--game", garbage.to_str().unwrap(), "--ply", "0"]);
    assert_clean_failure(&out, "move 1");
    assert!(
        out.stderr.len() < 2_000,
        "{} bytes of error",
        out.stderr.len()
    );
}

#[test]
fn rule_options_change_the_moves() {
    // Without passes the wrestler has 24 moves.
    let out = koshogi(&["moves", WRESTLER, "--rules", "{\"allow_pass\":false}"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout(&out)
            .lines()
            .filter(|l| l.starts_with("10j"))
            .count(),
        24
    );
}
