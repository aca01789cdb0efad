//! Every one of the 57 piece types alone in the centre (10j) of an otherwise empty board (plus the
//! two generals far away, so that both sides survive, §10.1).
//!
//! Expected counts are worked out by hand from §5 (comments show the arithmetic). Black's zone is
//! ranks a–f (§1.6): from rank j a forward line reaches it after 4 steps, so a promotable piece
//! that ranges forward gets two moves (`+` and `=`) on each of the 6 zone points of every forward
//! line (§8.2). White's position is the 180° rotation, so White's counts are the same.

mod common;

use common::*;
use koshogi_rules::{PieceKind, Square};

/// (KSFEN token, hand-derived number of legal moves of that piece standing on 10j, Black to move).
const CENTRE_COUNTS: &[(&str, usize)] = &[
    ("G", 8),   // K
    ("SC", 8),  // F 4 + D 4; D forward lands on rank h, outside the zone
    ("PL", 8),  // W 4 + A 4
    ("A", 7),   // all but b
    ("WR", 25), // 5x5 square minus the centre (24) + one pass; never promotes
    ("SR", 6),  // W 4 + fl fr
    ("GH", 5),  // F 4 + f
    ("CS", 6),  // F 4 + f + b
    ("EN", 4),  // fl f fr b
    ("TB", 8),  // D 4 + A 4, nothing to shoot
    ("SM", 8),
    ("FD", 16), // f: 9 points (6 in the zone, doubled: +6), b step 1 → 9 + 6 + 1
    ("MA", 8),
    ("D", 6), // fl fr bl br l r
    ("B", 6),
    ("SN", 7),  // all but f
    ("DU", 90), // 8 rays x 9 = 72, f/fl/fr each 6 zone points doubled: +18
    ("Q", 46),  // R 36 + F 4 + 6 zone points on f
    ("FH", 52), // B 36 + W 4 + 12 zone points on fl/fr
    ("R", 10),  // b: 9 + f step 1 (rank i, not in zone)
    ("FW", 4),  // F, nothing to shoot
    ("E", 36),  // B, never promotes
    ("LB", 4),
    ("SB", 4),
    ("C", 4),
    ("HS", 8),
    ("CA", 24), // 8 single + 12 same-major double + pass = 21 points; (0,4),(±2,4) land on rank f: +3
    ("P", 4),   // needs its drum on the board to step forward (§8.7), see DRUM below
    ("PU", 26), // f/b rays 18 + l r 2 + 6 zone points on f
    ("SP", 4),
    ("SU", 22), // l/r rays 18 + F 4, no zone point reachable
    ("CH", 22), // 4 x 5 = 20; f 4 and f 5 land on ranks f and e: +2
    ("CU", 42), // R 36 + 6 zone points on f
    ("VA", 7),  // f 1..5 = 5; ranks f, e in the zone: +2
    // promoted-only types never promote again
    ("AM", 25), // one leg 8; two legs add (±2,±2) 4, (0,±4)(±4,0) 4, (±1,±3) 4, (±3,±1) 4; pass 1
    ("BD", 41), // one leg 8; two legs add 32 new points ((±2,0)…(±2,±3)); pass 1
    ("TN", 24), // f/b rays 18 + the 6 other king steps
    ("VB", 24), // l/r rays 18 + the 6 other king steps
    ("DP", 45), // B 36 + f ray 9
    ("PF", 4),  // fl f fr b; burning hits nothing
    ("FG", 25), // two D/A jumps = 5x5 lattice of step 2: 24 points + pass
    ("HL", 25),
    ("SK", 37), // l/r 18 + fl/fr 18 + b step
    ("GV", 8),
    ("TC", 36), // exactly 5 W steps: Manhattan 1 (4) + 3 (12) + 5 (20) points
    ("FL", 20), // 1..5 steps in one of 4 orthogonal directions
    ("DR", 81), // Q 72 + 8 knight-offset points of K^2 + pass
    ("TW", 45), // R 36 + F 4 + (±2,±2) 4 + pass 1 ((±2,0) etc. already on R rays)
    ("HK", 45), // B 36 + W 4 + (±2,0),(0,±2) 4 + pass 1
    ("EW", 37), // l/r 18 + bl/br 18 + f step
    ("CG", 20), // R5, nothing to shoot
    ("LC", 8),
    ("CC", 8),
    ("WC", 20),
    ("WH", 41),     // N 8 + N+N: 32 new points + pass
    ("CM", 45 + 9), // B 36 + f/b rays 18
    ("HF", 54),     // B 36 + l/r rays 18
];

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
fn the_table_covers_all_57_types() {
    assert_eq!(CENTRE_COUNTS.len(), 57);
    for kind in PieceKind::ALL {
        assert!(
            CENTRE_COUNTS.iter().any(|(code, _)| *code == kind.code()),
            "{} missing from the table",
            kind.code()
        );
    }
}

#[test]
fn every_type_alone_in_the_centre_has_the_hand_counted_number_of_moves() {
    let mut wrong = Vec::new();
    for &(token, expected) in CENTRE_COUNTS {
        for white in [false, true] {
            let got = centre_count(token, white);
            if got != expected {
                wrong.push(format!(
                    "{token} ({}) expected {expected}, got {got}",
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
        (
            "HS",
            vec![
                (1, 2),
                (-1, 2),
                (1, -2),
                (-1, -2),
                (2, 1),
                (-2, 1),
                (2, -1),
                (-2, -1),
            ],
        ),
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
    let mut offsets = vec![
        (1, 2),
        (-1, 2),
        (1, -2),
        (-1, -2),
        (2, 1),
        (-2, 1),
        (2, -1),
        (-2, -1),
    ];
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
