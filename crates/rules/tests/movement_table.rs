//! §5.12a's compact movement table, row by row, for the pieces that only step and range. The
//! rows are data, `data/rules/movement_table.txt` (format in `data/README.md`), so that a row
//! is read as the rules reference writes it, with directions by name (owner-relative, §1.4):
//! each puts one piece alone on 10j and checks that it reaches exactly the points of its single
//! steps and ranging lines, for Black and for White. The points are worked out here from the
//! directions, independently of the generator's movement tables.
//!
//! A file without rows, a row without steps or ranges, an unknown keyword, direction or type
//! fails, naming the file and line.

mod common;

use std::collections::BTreeSet;

use common::{content_lines, game, moves_from, pieces_position};
use koshogi_rules::{Color, PieceKind, Square};
use koshogi_test_support::data_path;

/// A direction's (file, rank) step for Black: forward is towards rank a, left towards file 19
/// (§1.4). White's is the opposite.
fn direction(name: &str) -> Option<(i32, i32)> {
    Some(match name {
        "f" => (0, -1),
        "b" => (0, 1),
        "l" => (1, 0),
        "r" => (-1, 0),
        "fl" => (1, -1),
        "fr" => (-1, -1),
        "bl" => (1, 1),
        "br" => (-1, 1),
        _ => return None,
    })
}

/// One row: the KSFEN token of the Black piece, its single steps, its ranging directions and
/// their limit (none: to the edge).
struct Row {
    line: usize,
    token: String,
    steps: Vec<(i32, i32)>,
    ranges: Vec<(i32, i32)>,
    limit: Option<i32>,
}

fn parse_row(line: usize, text: &str) -> Row {
    let at = format!("movement_table.txt:{line}");
    let mut words = text.split_whitespace();
    let token = words.next().unwrap();
    PieceKind::from_code(token)
        .filter(|kind| kind.code() == token)
        .unwrap_or_else(|| panic!("{at}: {token:?} is not the code of a type (upper case)"));
    let mut row = Row {
        line,
        token: token.to_string(),
        steps: Vec::new(),
        ranges: Vec::new(),
        limit: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut section = None;
    while let Some(word) = words.next() {
        match word {
            "steps" | "ranges" | "limit" => {
                assert!(!seen.contains(&word), "{at}: `{word}` twice");
                seen.push(word);
                section = Some(word);
                if word == "limit" {
                    let n = words
                        .next()
                        .and_then(|n| n.parse().ok())
                        .filter(|&n: &i32| n > 0)
                        .unwrap_or_else(|| panic!("{at}: `limit` takes a number of points"));
                    row.limit = Some(n);
                }
            }
            dir => {
                let d = direction(dir).unwrap_or_else(|| {
                    panic!("{at}: {dir:?} is neither a keyword (steps, ranges, limit) nor a direction (f b l r fl fr bl br)")
                });
                match section {
                    Some("steps") => row.steps.push(d),
                    Some("ranges") => row.ranges.push(d),
                    _ => panic!("{at}: the direction {dir} belongs to neither steps nor ranges"),
                }
            }
        }
    }
    assert!(
        !row.steps.is_empty() || !row.ranges.is_empty(),
        "{at}: a row without steps or ranges"
    );
    assert!(
        row.limit.is_none() || !row.ranges.is_empty(),
        "{at}: a limit without ranges"
    );
    row
}

/// The points the row's piece should reach from 10j when it belongs to `color`.
fn expected_points(row: &Row, color: Color) -> BTreeSet<Square> {
    let sign = if color == Color::Black { 1 } else { -1 };
    let point = |(file, rank): (i32, i32), k: i32| {
        let (file, rank) = (10 + sign * file * k, 10 + sign * rank * k);
        u8::try_from(file)
            .ok()
            .zip(u8::try_from(rank).ok())
            .and_then(|(file, rank)| Square::new(file, rank))
    };
    let mut points = BTreeSet::new();
    for &d in &row.steps {
        points.insert(point(d, 1).expect("a step from 10j stays on the board"));
    }
    for &d in &row.ranges {
        for k in 1..=row.limit.unwrap_or(18) {
            match point(d, k) {
                Some(s) => points.insert(s),
                None => break,
            };
        }
    }
    points
}

/// The points the row's piece reaches from 10j when it belongs to `color`, with that side to
/// move, the generals on 18s and 2a and the side's drum (for a pawn's forward step, §8.7) on
/// 15s or 5a: all off every line through 10j.
fn reached_points(row: &Row, color: Color) -> BTreeSet<Square> {
    let (token, drum) = match color {
        Color::Black => (row.token.clone(), ("D", "15s")),
        Color::White => (row.token.to_lowercase(), ("d", "5a")),
    };
    let g = game(pieces_position(&[(&token, "10j"), drum], color));
    moves_from(&g, "10j")
        .iter()
        .map(|m| m.destination())
        .collect()
}

#[test]
fn every_row_of_the_movement_table_holds_for_both_sides() {
    let path = data_path("rules/movement_table.txt");
    let rows: Vec<Row> = content_lines(&path)
        .iter()
        .map(|(line, text)| parse_row(*line, text))
        .collect();
    assert!(!rows.is_empty(), "{}: no rows", path.display());
    let mut failures = Vec::new();
    for row in &rows {
        for color in [Color::Black, Color::White] {
            let (expected, got) = (expected_points(row, color), reached_points(row, color));
            if got != expected {
                let names = |points: Vec<&Square>| -> Vec<String> {
                    points.iter().map(|s| s.to_string()).collect()
                };
                failures.push(format!(
                    "movement_table.txt:{}: {} for {color:?}: misses {:?}, also reaches {:?}",
                    row.line,
                    row.token,
                    names(expected.difference(&got).collect()),
                    names(got.difference(&expected).collect()),
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
