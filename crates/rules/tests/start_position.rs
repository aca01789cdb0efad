//! The start position (§3): move count at depth 1 worked out by hand, the symmetry between the
//! two sides, and perft's divide. The perft counts themselves are data: `data/rules/perft.txt`
//! (run by `tests/perft_counts.rs`).

// Hand count for Black (White's array is the 180° rotation, so White's count is the same).
// Ranks h–l are empty; on rank g only White's vanguard stands on 10g; Black occupies m–s.
// * m  VA 10m: f 1..5 → 10l..10h (10g is 6 away): 5.
// * n  CU 19n/1n: f 7 free points m..g + capture of the chariot unit on 19f/1f, which lies in
//      the zone (+ and =): 9; b: 19o free, 19p friendly: 1; sideways friendly → 10 each = 20.
//      SU 18n/10n/2n: sideways friendly; the 4 diagonal neighbours (m free, o odd files free): 4 each = 12.
//      CH ×8 (odd files 17…3): f 5 (m..i), b 1 (o free, p friendly), sideways friendly: 6 each = 48.
//      SP ×6: 4 diagonals (m and o odd files free): 4 each = 24.                 rank n: 104
// * o  PU 18o/10o/2o: f blocked, b 1 (p even file free, then q friendly), l/r 2: 3 each = 9.
//      P ×6 (drum present): f blocked (rank n), b 1, l/r 2: 3 each = 18.        rank o: 27
// * p  HS ×8 (odd files): of the 8 knight targets only the two on rank o, odd files, are free
//      (rank n full, rank q full, rank r even files full): 2 each = 16.
//      CA 19p/1p: only one first leap is free (17o / 3o); its same-major second leaps land on
//      15n/15p (5n/5p), both friendly; the return gives a pass: 2 each = 4.     rank p: 20
// * q  E ×6 (odd files): forward diagonals run over rank p even (free) and rank o odd (free),
//      stopped by rank n; backward diagonals hit rank r even files (full):
//      19q/1q 2 each, 15q 11q 9q 5q 4 each = 20.
//      SB ×4 (odd files): forward diagonal steps to rank p even files: 2 each = 8 (no enemy
//      within shot range of any landing point).
//      LB (even files 16 12 8 4): forward diagonals hit rank p odd files (full); backward to
//      rank r odd files: 16q 2 (17r, 15r), 12q 1 (13r; 11r is the drum), 8q 1 (7r; 9r banner),
//      4q 2 = 6. C (18 14 6 2): 18q 1 (17r; 19r rear guard), 14q 2, 6q 2, 2q 1 = 6.
//      FW 10q: all four diagonal neighbours friendly: 0.                      rank q: 40
// * r  R 19r/1r: 0. FH 18r/2r: the sideways step to 17r/3r: 1 each = 2. Q 16r/4r: one free point
//      each way along rank r, diagonals friendly: 2 each = 4. DU 14r/6r: likewise 2 each = 4.
//      SN 12r/8r: one sideways step each (13r, 7r): 2. D, MA, B: 0.           rank r: 12
// * s  FD, SM, TB, SC, G, PL: 0. EN 17s/3s: f to 17r/3r: 1 each = 2. CS 16s/4s: the two forward
//      diagonals: 2 each = 4. GH 15s/5s: f: 1 each = 2. SR 14s/6s: forward diagonals 2 each = 4.
//      WR 13s/7s: one free neighbour (13r/7r), from which only the return: step + pass = 2 each
//      = 4. A 12s/8s: one forward diagonal each = 2.                           rank s: 18
// Total: 5 + 104 + 27 + 20 + 40 + 12 + 18 = 226.

use koshogi_rules::perft::{perft, perft_divide};
use koshogi_rules::{Color, Position, RulesOptions, Square};

const HAND_COUNTED_START_MOVES: usize = 226;

#[test]
fn start_position_has_the_hand_counted_number_of_moves() {
    let pos = Position::startpos();
    let moves = pos.legal_moves(&RulesOptions::default());
    assert_eq!(moves.len(), HAND_COUNTED_START_MOVES);
    // Spot checks of the derivation.
    let names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    for expected in [
        "19nx19f+",
        "19nx19f=",
        "1nx1f+",
        "1nx1f=",
        "10m-10h",
        "13s-13r-13s",
        "19p-17o-19p",
        "17p-19o",
    ] {
        assert!(names.contains(&expected.to_string()), "{expected} missing");
    }
    assert!(
        moves.iter().all(|m| m.shots().is_empty()),
        "nothing is in shooting range at the start"
    );
}

#[test]
fn white_has_the_same_count_and_rotated_moves() {
    let black = Position::startpos();
    let text = black.to_ksfen(false).replace(" b", " w");
    let white = Position::from_ksfen(&text).unwrap();
    let opts = RulesOptions::default();
    let rot = |s: Square| s.rotate();
    let mut b: Vec<(Square, Square, usize)> = black
        .legal_moves(&opts)
        .iter()
        .map(|m| (m.origin(), m.destination(), m.shots().len()))
        .collect();
    let mut w: Vec<(Square, Square, usize)> = white
        .legal_moves(&opts)
        .iter()
        .map(|m| (rot(m.origin()), rot(m.destination()), m.shots().len()))
        .collect();
    b.sort();
    w.sort();
    assert_eq!(b, w);
    assert_eq!(white.side_to_move(), Color::White);
}

#[test]
fn perft_depth_one_matches_the_hand_count_and_divide_sums() {
    let pos = Position::startpos();
    let opts = RulesOptions::default();
    assert_eq!(perft(&pos, 1, &opts), HAND_COUNTED_START_MOVES as u64);
    let divide = perft_divide(&pos, 1, &opts);
    assert_eq!(divide.len(), HAND_COUNTED_START_MOVES);
    assert!(divide.iter().all(|(_, n)| *n == 1));
    let names: Vec<String> = divide.iter().map(|(m, _)| m.to_string()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "divide is sorted by canonical notation");
}
