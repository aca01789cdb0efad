//! Every one of the 57 piece types alone in the centre (10j) of an otherwise empty board (plus the
//! two generals far away, so that both sides survive, §10.1), and the exact destinations of the
//! step movers and a few corner and White-frame cases.
//!
//! The expected counts are data: `data/rules/pieces_alone.txt` (format in `data/README.md`),
//! worked out by hand from §5 with the arithmetic in its comments, so that a count is read and
//! corrected without reading Rust. Every line is checked for the Black piece and for the White
//! one (White's position is the 180° rotation, so White's counts are the same). The file must
//! name every type exactly once; a file without counts, a malformed line or an unknown token
//! fails, naming the file and line.

mod common;

use common::*;
use koshogi_rules::{PieceKind, Square};
use koshogi_test_support::data_path;

/// One line of the counts file: the KSFEN token of the Black piece and its expected number of
/// legal moves on 10j.
struct CentreCount {
    line: usize,
    token: String,
    expected: usize,
}

/// The counts of `data/rules/pieces_alone.txt`, each type at most once; at least one.
fn centre_counts() -> Vec<CentreCount> {
    let path = data_path("rules/pieces_alone.txt");
    let mut counts: Vec<CentreCount> = Vec::new();
    for (line, text) in content_lines(&path) {
        let at = format!("pieces_alone.txt:{line}");
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [token, count] = fields[..] else {
            panic!("{at}: expected `<TOKEN> <count>`, not {text:?}");
        };
        let kind = PieceKind::from_code(token)
            .filter(|kind| kind.code() == token)
            .unwrap_or_else(|| panic!("{at}: {token:?} is not the code of a type (upper case)"));
        let expected: usize = count
            .parse()
            .unwrap_or_else(|_| panic!("{at}: not a count: {count:?}"));
        if let Some(first) = counts.iter().find(|c| c.token == kind.code()) {
            panic!("{at}: {token} again (first on line {})", first.line);
        }
        counts.push(CentreCount {
            line,
            token: token.to_string(),
            expected,
        });
    }
    assert!(!counts.is_empty(), "{}: no counts", path.display());
    counts
}

/// The drum (for pawns, §8.7) and the Taoist priest (so that a thunderclap or flag waver is not
/// reverted, §8.6), both far from the centre.
const HELPERS_BLACK: [(&str, &str); 2] = [("D", "16s"), ("TB", "2s")];
const HELPERS_WHITE: [(&str, &str); 2] = [("d", "4a"), ("tb", "18a")];

fn centre_count(token: &str, white: bool) -> usize {
    let (token, side, helpers) = if white {
        (token.to_lowercase(), 'w', HELPERS_WHITE)
    } else {
        (token.to_string(), 'b', HELPERS_BLACK)
    };
    let mut pieces: Vec<(&str, &str)> = helpers.to_vec();
    pieces.push((&token, "10j"));
    let g = game(position_with_generals(&pieces, side));
    moves_from(&g, "10j").len()
}

#[test]
fn the_counts_cover_all_57_types() {
    let counts = centre_counts();
    assert_eq!(PieceKind::ALL.len(), 57);
    for kind in PieceKind::ALL {
        assert!(
            counts.iter().any(|c| c.token == kind.code()),
            "{} missing from pieces_alone.txt",
            kind.code()
        );
    }
    assert_eq!(counts.len(), PieceKind::ALL.len());
}

#[test]
fn every_type_alone_in_the_centre_has_the_hand_counted_number_of_moves() {
    let mut wrong = Vec::new();
    for CentreCount {
        line,
        token,
        expected,
    } in centre_counts()
    {
        for white in [false, true] {
            let got = centre_count(&token, white);
            if got != expected {
                wrong.push(format!(
                    "pieces_alone.txt:{line}: {token} ({}) expected {expected}, got {got}",
                    if white { "white" } else { "black" }
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "wrong counts:\n{}", wrong.join("\n"));
}

/// Exact destination sets of the step movers, as (left, forward) offsets in the owner's frame.
#[test]
fn step_movers_reach_exactly_their_neighbours() {
    let king: Vec<(i32, i32)> = vec![
        (0, 1),
        (1, 1),
        (-1, 1),
        (1, 0),
        (-1, 0),
        (0, -1),
        (1, -1),
        (-1, -1),
    ];
    let without = |skip: &[(i32, i32)]| -> Vec<(i32, i32)> {
        king.iter().copied().filter(|o| !skip.contains(o)).collect()
    };
    let cases: Vec<(&str, Vec<(i32, i32)>)> = vec![
        ("G", king.clone()),
        ("A", without(&[(0, -1)])),
        ("SN", without(&[(0, 1)])),
        ("SR", without(&[(1, -1), (-1, -1)])),
        ("GH", without(&[(1, 0), (-1, 0), (0, -1)])),
        ("CS", without(&[(1, 0), (-1, 0)])),
        ("EN", vec![(0, 1), (1, 1), (-1, 1), (0, -1)]),
        ("D", without(&[(0, 1), (0, -1)])),
        ("B", without(&[(0, 1), (0, -1)])),
        ("P", vec![(0, 1), (1, 0), (-1, 0), (0, -1)]),
        ("SP", vec![(1, 1), (-1, 1), (1, -1), (-1, -1)]),
        (
            "SC",
            vec![
                (1, 1),
                (-1, 1),
                (1, -1),
                (-1, -1),
                (0, 2),
                (0, -2),
                (2, 0),
                (-2, 0),
            ],
        ),
        (
            "PL",
            vec![
                (0, 1),
                (0, -1),
                (1, 0),
                (-1, 0),
                (2, 2),
                (-2, 2),
                (2, -2),
                (-2, -2),
            ],
        ),
        ("HS", KNIGHT_JUMPS.to_vec()),
        (
            "TB",
            vec![
                (0, 2),
                (0, -2),
                (2, 0),
                (-2, 0),
                (2, 2),
                (-2, 2),
                (2, -2),
                (-2, -2),
            ],
        ),
        (
            "R",
            vec![
                (0, 1),
                (0, -1),
                (0, -2),
                (0, -3),
                (0, -4),
                (0, -5),
                (0, -6),
                (0, -7),
                (0, -8),
                (0, -9),
            ],
        ),
        ("VA", vec![(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]),
    ];
    for (token, offsets) in cases {
        let pieces = [HELPERS_BLACK[0], HELPERS_BLACK[1], (token, "10j")];
        let g = game(position_with_generals(&pieces, 'b'));
        assert_eq!(
            destinations(&g, "10j"),
            offsets_black("10j", &offsets),
            "{token}"
        );
    }
}

#[test]
fn cavalry_double_leaps_share_the_major_direction() {
    // §5.10 / AMB-32: single leaps (8), same-major doubles (0,±4),(±2,±4),(±4,0),(±4,±2), the pass.
    let g = game(position_with_generals(&[("CA", "10k")], 'b'));
    let mut offsets = KNIGHT_JUMPS.to_vec();
    offsets.extend([
        (0, 4),
        (2, 4),
        (-2, 4),
        (0, -4),
        (2, -4),
        (-2, -4),
        (4, 0),
        (4, 2),
        (4, -2),
        (-4, 0),
        (-4, 2),
        (-4, -2),
    ]);
    offsets.push((0, 0));
    assert_eq!(destinations(&g, "10k"), offsets_black("10k", &offsets));
    // 10k: the farthest forward point is rank g, outside the zone, so 21 moves.
    assert_eq!(moves_from(&g, "10k").len(), 21);
}

#[test]
fn corner_counts() {
    // WR in the corner 19s: 3x3 quadrant minus the corner = 8 points + pass.
    let g = game(position(&[("WR", "19s"), ("G", "1s"), ("g", "1a")], 'b'));
    assert_eq!(moves_from(&g, "19s").len(), 9);
    // DR in the corner 1s: f 18 + l 18 + fl 18 = 54 queen points; of its K^2 quadrant (8 points)
    // only the two knight-offset points 2q and 3r are off those lines → 56, + pass = 57.
    let g = game(position(&[("DR", "1s"), ("G", "10r"), ("g", "10b")], 'b'));
    assert_eq!(moves_from(&g, "1s").len(), 18 + 18 + 18 + 2 + 1);
}

#[test]
fn white_pieces_move_in_their_own_frame() {
    // A white pawn on 10j steps towards rank s: 10k is its forward step; a white vanguard too.
    let g = game(position_with_generals(&[("va", "10j")], 'w'));
    let expected: std::collections::BTreeSet<String> = ["10k", "10l", "10m", "10n", "10o"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(destinations(&g, "10j"), expected);
    // White's zone is n–s: 10n and 10o each give + and =.
    assert_eq!(moves_from(&g, "10j").len(), 7);
}

#[test]
fn kinds_round_trip_their_codes() {
    for kind in PieceKind::ALL {
        assert_eq!(PieceKind::from_code(kind.code()), Some(kind));
        assert_eq!(
            PieceKind::from_code(&kind.code().to_lowercase()),
            Some(kind)
        );
    }
    assert_eq!(Square::COUNT, 361);
}
