//! The move-generation fixtures of `data/rules/movegen/`: reference positions and the moves
//! expected from them, kept as text so that a case is added without writing Rust. The formats
//! are described in `data/README.md`:
//! * `*.cases`: one position per case (pieces, KSFEN or the start position), optional rules
//!   options and origin, then checks on its legal moves;
//! * `alone_on_10j.txt`: one piece alone on 10j and its move count as the reference counts.
//!
//! Every case's moves are also checked to be one per effect. A file without cases, a case
//! without checks or an unknown keyword fails, so a fixture cannot be skipped silently.

mod common;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::{content_lines, pieces_position, sq, token_at};
use koshogi_rules::{Color, Move, Position, Promotion, RulesOptions};
use koshogi_test_support::data_path;

fn fixture_dir() -> PathBuf {
    data_path("rules/movegen")
}

/// The files of the fixture directory ending in `extension`, sorted; at least one.
fn fixture_files(extension: &str) -> Vec<PathBuf> {
    let dir = fixture_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_str().is_some_and(|p| p.ends_with(extension)))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no *{extension} fixtures in {}",
        dir.display()
    );
    files
}

fn color(text: &str) -> Color {
    match text {
        "b" => Color::Black,
        "w" => Color::White,
        other => panic!("a side is `b` or `w`, not {other:?}"),
    }
}

/// `TOKEN@POINT` → `(TOKEN, POINT)`.
fn placement(text: &str) -> (&str, &str) {
    text.split_once('@')
        .unwrap_or_else(|| panic!("a piece is written TOKEN@POINT, not {text:?}"))
}

/// Whether `text` matches `pattern`, in which `..` stands for any text (possibly none).
fn matches_pattern(text: &str, pattern: &str) -> bool {
    let parts: Vec<&str> = pattern.split("..").collect();
    if parts.len() == 1 {
        return text == pattern;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    if !text.ends_with(last) {
        return false;
    }
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// One case of a `*.cases` file: where it starts, its title and its lines after `case`.
struct Case {
    file: String,
    line: usize,
    title: String,
    lines: Vec<(usize, String)>,
}

fn read_cases(path: &Path) -> Vec<Case> {
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    let mut cases: Vec<Case> = Vec::new();
    for (number, line) in content_lines(path) {
        if let Some(title) = line.strip_prefix("case ") {
            cases.push(Case {
                file: file.clone(),
                line: number,
                title: title.to_string(),
                lines: Vec::new(),
            });
        } else {
            let Some(case) = cases.last_mut() else {
                panic!("{file}:{number}: `{line}` before the first `case`");
            };
            case.lines.push((number, line));
        }
    }
    assert!(!cases.is_empty(), "{file}: no cases");
    cases
}

/// The position, options and origin of a case (the lines that are not checks).
struct Setup {
    position: Position,
    options: RulesOptions,
    from: Option<String>,
}

fn setup(case: &Case) -> Setup {
    let mut position = None;
    let mut options = RulesOptions::default();
    let mut from = None;
    for (number, line) in &case.lines {
        let (keyword, rest) = line.split_once(' ').unwrap_or((line, ""));
        let at = format!("{}:{number}", case.file);
        let placed = match keyword {
            "pieces" => {
                let mut words = rest.split_whitespace();
                let side = words.next().unwrap_or_else(|| panic!("{at}: no side"));
                let pieces: Vec<(&str, &str)> = words.map(placement).collect();
                Some(pieces_position(&pieces, color(side)))
            }
            "ksfen" => Some(Position::from_ksfen(rest).unwrap_or_else(|e| panic!("{at}: {e}"))),
            "startpos" => {
                let mut p = Position::startpos();
                p.set_side_to_move(color(rest));
                Some(p)
            }
            "options" => {
                options = serde_json::from_str(rest).unwrap_or_else(|e| panic!("{at}: {e}"));
                None
            }
            "from" => {
                sq(rest);
                from = Some(rest.to_string());
                None
            }
            _ => None,
        };
        if let Some(p) = placed {
            assert!(position.is_none(), "{at}: a second position");
            position = Some(p);
        }
    }
    let position = position.unwrap_or_else(|| {
        panic!(
            "{}:{}: no position (pieces, ksfen or startpos)",
            case.file, case.line
        )
    });
    Setup {
        position,
        options,
        from,
    }
}

/// Runs the checks of `case`; returns how many there were and the failures.
fn run_case(case: &Case) -> (usize, Vec<String>) {
    let Setup {
        position,
        options,
        from,
    } = setup(case);
    let moves: Vec<Move> = position
        .legal_moves(&options)
        .into_iter()
        .filter(|m| from.as_deref().is_none_or(|f| m.origin() == sq(f)))
        .collect();
    let names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let mut failures = Vec::new();
    let mut fail = |number: usize, message: String| {
        failures.push(format!(
            "{}:{number}: {}: {message}\n    moves: {names:?}",
            case.file, case.title
        ));
    };

    let mut effects = HashSet::new();
    for m in &moves {
        if !effects.insert((
            m.origin(),
            m.destination(),
            m.removed_points(),
            m.promotion(),
        )) {
            fail(case.line, format!("two moves with the effect of {m}"));
        }
    }

    let mut checks = 0;
    for (number, line) in &case.lines {
        let number = *number;
        let words: Vec<&str> = line.split_whitespace().collect();
        let (keyword, args) = (words[0], &words[1..]);
        let count_arg = |text: &str| -> usize {
            text.parse()
                .unwrap_or_else(|_| panic!("{}:{number}: not a count: {text:?}", case.file))
        };
        checks += 1;
        match keyword {
            "pieces" | "ksfen" | "startpos" | "options" | "from" => checks -= 1,
            "count" => {
                let expected = count_arg(args[0]);
                if moves.len() != expected {
                    fail(
                        number,
                        format!("{} moves, expected {expected}", moves.len()),
                    );
                }
            }
            "count-without-declines" => {
                let expected = count_arg(args[0]);
                let n = moves
                    .iter()
                    .filter(|m| m.promotion() != Promotion::Decline)
                    .count();
                if n != expected {
                    fail(
                        number,
                        format!("{n} moves without declines, expected {expected}"),
                    );
                }
            }
            "count-matching" => {
                let expected = count_arg(args[1]);
                let n = names.iter().filter(|m| matches_pattern(m, args[0])).count();
                if n != expected {
                    fail(
                        number,
                        format!("{n} moves match {}, expected {expected}", args[0]),
                    );
                }
            }
            "moves" => {
                let mut got = names.clone();
                got.sort();
                let mut expected: Vec<String> = args.iter().map(|s| s.to_string()).collect();
                expected.sort();
                if got != expected {
                    fail(number, format!("expected exactly {expected:?}"));
                }
            }
            "has" => {
                for name in args {
                    if !names.iter().any(|m| m == name) {
                        fail(number, format!("{name} missing"));
                    }
                }
            }
            "lacks" => {
                for pattern in args {
                    let found: Vec<&String> = names
                        .iter()
                        .filter(|m| matches_pattern(m, pattern))
                        .collect();
                    if !found.is_empty() {
                        fail(number, format!("{pattern} matches {found:?}"));
                    }
                }
            }
            "reaches" | "does-not-reach" => {
                for point in args {
                    let reached = moves.iter().any(|m| m.destination() == sq(point));
                    if reached != (keyword == "reaches") {
                        fail(number, format!("{keyword} {point} does not hold"));
                    }
                }
            }
            "movers" => {
                let side = color(args[0]);
                if let Some(m) = moves
                    .iter()
                    .find(|m| position.piece_at(m.origin()).map(|p| p.color) != Some(side))
                {
                    fail(number, format!("{m} moves no piece of {side:?}"));
                }
            }
            "immobilized" | "not-immobilized" => {
                for point in args {
                    let frozen = position.is_immobilized_with(sq(point), &options);
                    if frozen != (keyword == "immobilized") {
                        fail(number, format!("{keyword} {point} does not hold"));
                    }
                }
            }
            "fog-suppressed" | "not-fog-suppressed" => {
                let shooter = color(args[0]);
                for point in &args[1..] {
                    let suppressed = position.is_fog_suppressed_with(sq(point), shooter, &options);
                    if suppressed != (keyword == "fog-suppressed") {
                        fail(number, format!("{keyword} {point} does not hold"));
                    }
                }
            }
            "drum-lost" => {
                if !position.drum_lost(color(args[0])) {
                    fail(number, format!("{}'s drum is not lost", args[0]));
                }
            }
            "after" => {
                let Some(index) = names.iter().position(|m| m == args[0]) else {
                    fail(number, format!("{} is not a legal move", args[0]));
                    continue;
                };
                let mut played = position.clone();
                let undo = played.play(&moves[index], &options);
                for expected in &args[1..] {
                    let (token, point) = placement(expected);
                    let got = token_at(&played, point);
                    if got != token {
                        fail(number, format!("after {}: {got} on {point}", args[0]));
                    }
                }
                played.undo(undo);
                if played != position {
                    fail(number, format!("undoing {} changed the position", args[0]));
                }
            }
            other => panic!("{}:{number}: unknown keyword {other:?}", case.file),
        }
    }
    (checks, failures)
}

#[test]
fn every_case_of_data_rules_movegen_holds() {
    let mut cases = 0;
    let mut checks = 0;
    let mut failures = Vec::new();
    for path in fixture_files(".cases") {
        for case in read_cases(&path) {
            let (n, failed) = run_case(&case);
            assert!(n > 0, "{}:{}: a case without checks", case.file, case.line);
            cases += 1;
            checks += n;
            failures.extend(failed);
        }
    }
    eprintln!("{cases} cases, {checks} checks");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_piece_alone_on_10j_has_the_reference_count() {
    let path = fixture_dir().join("alone_on_10j.txt");
    let mut rows = 0;
    let mut failures = String::new();
    for (number, line) in content_lines(&path) {
        let (token, count) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("alone_on_10j.txt:{number}: expected `TOKEN COUNT`"));
        let expected: usize = count
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("alone_on_10j.txt:{number}: not a count: {count:?}"));
        let position = pieces_position(&[(token, "10j")], Color::Black);
        let got = position
            .legal_moves(&RulesOptions::default())
            .iter()
            .filter(|m| m.origin() == sq("10j") && m.promotion() != Promotion::Decline)
            .count();
        if got != expected {
            writeln!(
                failures,
                "alone_on_10j.txt:{number}: {token}: {got} moves, expected {expected}"
            )
            .unwrap();
        }
        rows += 1;
    }
    assert!(rows > 0, "alone_on_10j.txt has no rows");
    assert!(failures.is_empty(), "{failures}");
}
