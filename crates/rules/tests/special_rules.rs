//! One test (or a few) per rule of §4.6–§4.9, §7, §8 and §10, on small hand-built positions.
//! Every expected value is worked out from the reference text (comments give the reasoning).
//! Generals stand on 18s (Black) and 2a (White) unless a test needs them elsewhere.

mod common;

use common::*;
use koshogi_rules::{Color, DrawReason, Outcome, WinReason};

fn g_with(pieces: &[(&str, &str)], side: char) -> koshogi_rules::Game {
    game(position_with_generals(pieces, side))
}

// ---------------------------------------------------------------- §4.3 ranging and blocking

#[test]
fn a_rider_stops_before_a_friend_and_on_an_enemy() {
    // CU on 10j: forward 10i, 10h (10g friendly); backward 10k, 10l, x10m; sideways 9 + 9.
    let g = g_with(&[("CU", "10j"), ("SP", "10g"), ("sp", "10m")], 'b');
    let d = destinations(&g, "10j");
    assert!(d.contains("10h") && !d.contains("10g") && !d.contains("10f"));
    assert!(d.contains("10m") && !d.contains("10n"));
    assert!(is_legal(&g, "10jx10m"));
    assert_eq!(moves_from(&g, "10j").len(), 2 + 3 + 18);
}

// ---------------------------------------------------------------- §7.1 displacement limits

#[test]
fn priests_displace_only_the_priest_family() {
    // TB on 10j: 10h holds an enemy pawn (may not be displaced), 12h an enemy monk (may).
    let g = g_with(
        &[("TB", "10j"), ("p", "10h"), ("sm", "12h"), ("P", "8j")],
        'b',
    );
    let d = destinations(&g, "10j");
    assert!(!d.contains("10h"), "a priest may not displace a pawn");
    assert!(d.contains("12h"));
    assert!(is_legal(&g, "10jx12h"));
    assert!(!d.contains("8j"), "never onto a friend");
    // 8 jump targets minus 10h minus 8j.
    assert_eq!(d.len(), 6);
}

#[test]
fn chariots_cannot_displace_a_heavenly_fortress_but_others_can() {
    for (token, can) in [
        ("CH", false),
        ("CU", false),
        ("WC", false),
        ("CG", false),
        ("DU", true),
        ("VA", true),
    ] {
        let g = g_with(&[(token, "10j"), ("hf", "10h")], 'b');
        let d = destinations(&g, "10j");
        assert_eq!(d.contains("10h"), can, "{token} capturing HF");
        assert!(!d.contains("10g"), "{token}: the fortress blocks the line");
    }
}

// ---------------------------------------------------------------- §4.6 lion-like moves

#[test]
fn wrestler_igui_double_capture_and_pass() {
    let g = g_with(&[("WR", "10j"), ("p", "10i"), ("p", "10h")], 'b');
    // igui: capture 10i and step back.
    assert!(is_legal(&g, "10jx10i-10j"));
    // double capture 10i then 10h.
    assert!(is_legal(&g, "10jx10ix10h"));
    // capturing only 10h: via a free neighbour; shortest path, smallest landing point by
    // (rank, file): 9i before 11i.
    assert!(is_legal(&g, "10j-9ix10h"));
    // one pass, through the smallest free neighbour (9i).
    assert!(is_legal(&g, "10j-9i-10j"));
    let passes = moves_from(&g, "10j")
        .iter()
        .filter(|m| m.destination() == m.origin() && !m.is_capture())
        .count();
    assert_eq!(passes, 1);
    // Effects = (final point, captured set). 24 points of the 5x5 square + the pass, plus one
    // extra effect for every point reachable both through 10i (capturing it) and around it:
    // the other neighbours of 10i — 9i, 11i, 9j, 11j, 9h, 10h, 11h — and the origin (igui).
    assert_eq!(moves_from(&g, "10j").len(), 24 + 1 + 8);
}

#[test]
fn no_first_leg_onto_a_friend() {
    // WR in the corner walled in by friends: no move at all (no jumping over, no pass).
    let g = game(position(
        &[
            ("WR", "19s"),
            ("P", "18s"),
            ("P", "18r"),
            ("P", "19r"),
            ("G", "1s"),
            ("g", "1a"),
            ("D", "5s"),
        ],
        'b',
    ));
    assert!(moves_from(&g, "19s").is_empty());
    // AM with its four F and four D targets all friendly has no move either.
    let g = g_with(
        &[
            ("AM", "10j"),
            ("P", "11i"),
            ("P", "9i"),
            ("P", "11k"),
            ("P", "9k"),
            ("P", "10h"),
            ("P", "10l"),
            ("P", "12j"),
            ("P", "8j"),
            ("D", "5s"),
        ],
        'b',
    );
    assert!(moves_from(&g, "10j").is_empty());
}

#[test]
fn thunderclap_makes_exactly_five_steps() {
    // A corridor on file 1 (file 2 walled by friends): the thunderclap steps up and down file 1
    // only, starting from rank s. After five ±1 steps it stands 1, 3 or 5 ranks up.
    let mut pieces = vec![
        ("TC", "1s"),
        ("TB", "10s"),
        ("G", "18s"),
        ("g", "2a"),
        ("p", "1q"),
    ];
    for r in ["2s", "2r", "2q", "2p", "2o", "2n"] {
        pieces.push(("SP", r));
    }
    let g = game(position(&pieces, 'b'));
    let d = destinations(&g, "1s");
    let expected: std::collections::BTreeSet<String> =
        ["1r", "1p", "1n"].iter().map(|s| s.to_string()).collect();
    assert_eq!(d, expected);
    // Effects: 1r without capture (never reaching 1q), 1r capturing 1q, 1p and 1n (both pass
    // 1q and capture it): 4 moves.
    assert_eq!(moves_from(&g, "1s").len(), 4);
    assert!(is_legal(&g, "1s-1r-1s-1r-1s-1r"));
    // 1r capturing 1q: of the 5-leg paths the smallest landing sequence goes 1r 1q 1p 1q 1r.
    assert!(is_legal(&g, "1s-1rx1q-1p-1q-1r"));
    let mv = find_move(&g, "1s-1rx1q-1p-1o-1n");
    let p = after(&g, mv);
    assert_eq!(token_at(&p, "1q"), ".");
    assert_eq!(token_at(&p, "1n"), "TC");
}

#[test]
fn flag_waver_captures_through_in_one_line() {
    // FL on 10j: forward 10i, x10h, x10g, 10f, then 10e is a friend; 5 steps in each other line.
    let g = g_with(
        &[
            ("FL", "10j"),
            ("TB", "2s"),
            ("p", "10h"),
            ("p", "10g"),
            ("P", "10e"),
        ],
        'b',
    );
    let d = destinations(&g, "10j");
    assert!(d.contains("10f") && !d.contains("10e"));
    assert_eq!(moves_from(&g, "10j").len(), 4 + 5 + 5 + 5);
    let mv = moves_from(&g, "10j")
        .into_iter()
        .find(|m| m.destination() == sq("10f"))
        .unwrap();
    let p = after(&g, mv);
    assert_eq!(
        (
            token_at(&p, "10h"),
            token_at(&p, "10g"),
            token_at(&p, "10f")
        ),
        (".".into(), ".".into(), "FL".into())
    );
}

// ---------------------------------------------------------------- §4.7 shooting

#[test]
fn longbow_shoots_after_a_non_capturing_step_only() {
    // LB 10j steps to 11i, then 11f (a pawn) is 3 away on the forward line.
    let g = g_with(&[("LB", "10j"), ("p", "11f")], 'b');
    assert!(is_legal(&g, "10j-11i*11f"));
    assert_eq!(moves_from(&g, "10j").len(), 5);
    // 4 away: out of range.
    let g = g_with(&[("LB", "10j"), ("p", "11e")], 'b');
    assert_eq!(moves_from(&g, "10j").len(), 4);
    // After a capturing step no shot (AMB-02).
    let g = g_with(&[("LB", "10j"), ("p", "11i"), ("p", "11f")], 'b');
    assert!(is_legal(&g, "10jx11i"));
    assert!(!is_legal(&g, "10jx11i*11f"));
    assert!(moves_from(&g, "10j")
        .iter()
        .all(|m| m.capture_mask() == 0 || m.shots().is_empty()));
    // (From 11k the pawn on 11i is the nearest piece up the file: that shot is fine.)
    assert!(is_legal(&g, "10j-11k*11i"));
    // No shooting without moving (AMB-01): a pawn 3 away diagonally from the origin.
    let g = g_with(&[("LB", "10j"), ("p", "13g")], 'b');
    assert!(moves_from(&g, "10j")
        .iter()
        .all(|m| m.destination() != m.origin()));
}

#[test]
fn direct_shots_stop_at_the_nearest_piece_and_respect_immunities() {
    // A shield in front of the pawn: bows cannot shoot shields, and it blocks the line.
    let g = g_with(&[("LB", "10j"), ("sp", "11g"), ("p", "11f")], 'b');
    assert!(!is_legal(&g, "10j-11i*11g"));
    assert!(!is_legal(&g, "10j-11i*11f"));
    // An own piece blocks too.
    let g = g_with(
        &[("LB", "10j"), ("P", "11g"), ("p", "11f"), ("D", "5s")],
        'b',
    );
    assert!(!is_legal(&g, "10j-11i*11f"));
    // Bows cannot shoot SP, SU, CH, CU, WC, CG, HF, FG (the FG also suppresses, so test the others).
    for target in ["sp", "su", "ch", "cu", "wc", "cg", "hf"] {
        let g = g_with(&[("SB", "10j"), (target, "11f")], 'b');
        assert!(!is_legal(&g, "10j-11i*11f"), "crossbow shooting {target}");
        let g = g_with(&[("C", "10j"), (target, "11f")], 'b');
        let cannon_may = !matches!(target, "su" | "hf");
        assert_eq!(
            is_legal(&g, "10j-11i*11f"),
            cannon_may,
            "cannon shooting {target}"
        );
        let g = g_with(&[("FW", "10j"), (target, "11f")], 'b');
        assert_eq!(
            is_legal(&g, "10j-11i*11f"),
            cannon_may,
            "Frankish cannon shooting {target}"
        );
    }
    // The crossbow reaches 5: 11d from 11i.
    let g = g_with(&[("SB", "10j"), ("p", "11d")], 'b');
    assert!(is_legal(&g, "10j-11i*11d"));
}

#[test]
fn cannon_shoots_over_screens_but_not_over_shield_units() {
    // C 10j; file 11: own pawn 11h (screen), enemy pawn 11g, enemy shield 11f, enemy shield unit
    // 11e (immune, and it blocks), enemy pawn 11d behind it.
    let g = g_with(
        &[
            ("C", "10j"),
            ("P", "11h"),
            ("p", "11g"),
            ("sp", "11f"),
            ("su", "11e"),
            ("p", "11d"),
            ("D", "5s"),
        ],
        'b',
    );
    assert!(is_legal(&g, "10j-11i*11g"));
    assert!(is_legal(&g, "10j-11i*11f"));
    assert!(!is_legal(&g, "10j-11i*11e"));
    assert!(!is_legal(&g, "10j-11i*11d"));
    // From 11k the same file: 11g at distance 4 and 11f at 5 (11i is free again).
    assert!(is_legal(&g, "10j-11k*11g"));
    assert!(is_legal(&g, "10j-11k*11f"));
    // From 9i the forward-left diagonal 10h, 11g: the pawn at distance 2.
    assert!(is_legal(&g, "10j-9i*11g"));
    // 4 plain steps + 2 + 2 + 1 shots.
    assert_eq!(moves_from(&g, "10j").len(), 9);
}

#[test]
fn frankish_cannon_shoots_twice_and_the_second_shot_may_use_the_first() {
    // FW 10j; pawns on 11h and 11f: from 11i it may shoot 11h, then 11f (screened before).
    let g = g_with(&[("FW", "10j"), ("p", "11h"), ("p", "11f")], 'b');
    assert!(is_legal(&g, "10j-11i*11h"));
    assert!(is_legal(&g, "10j-11i*11h*11f"));
    assert!(!is_legal(&g, "10j-11i*11f"));
    // 4 plain steps; from 11i: {11h}, {11h, 11f}; from 11k: the same two (11h at 3, 11f at 5).
    assert_eq!(moves_from(&g, "10j").len(), 8);
    // Two independent targets: one move for the pair, whatever the order.
    let g = g_with(&[("FW", "10j"), ("p", "11h"), ("p", "12i")], 'b');
    let at_11i: Vec<_> = moves_from(&g, "10j")
        .into_iter()
        .filter(|m| m.destination() == sq("11i"))
        .collect();
    assert_eq!(at_11i.len(), 4, "{at_11i:?}"); // none, 11h, 12i, both
    assert!(is_legal(&g, "10j-11i*11h*12i"));
}

#[test]
fn priest_family_shoots_any_adjacent_enemy() {
    // TB jumps 10j→10h and may shoot the adjacent enemy shield unit on 10g (no immunity).
    let g = g_with(&[("TB", "10j"), ("su", "10g")], 'b');
    assert!(is_legal(&g, "10j-10h*10g"));
    // A priest never stays put, so an adjacent enemy can only be shot after a jump.
    let g = g_with(&[("TB", "10j"), ("p", "10i")], 'b');
    assert!(moves_from(&g, "10j")
        .iter()
        .all(|m| m.destination() != sq("10j")));
}

#[test]
fn fog_suppresses_enemy_artillery_along_lines_within_five() {
    // LB lands on 11i and would shoot 11f.
    let base = [("LB", "10j"), ("p", "11f")];
    let with = |fog: &str, extra: Option<(&str, &str)>| {
        let mut v = base.to_vec();
        v.push(("fg", fog));
        if let Some(e) = extra {
            v.push(e);
        }
        g_with(&v, 'b')
    };
    // Fog 5 up the same file (behind the pawn): suppressed.
    assert!(!is_legal(&with("11d", None), "10j-11i*11f"));
    // Fog 5 away on the diagonal 16d, a piece in between: still suppressed (no line of sight).
    assert!(!is_legal(&with("16d", Some(("p", "13g"))), "10j-11i*11f"));
    // Fog off every line through 11i (knight-ish offset 14e, Chebyshev 4): not suppressed.
    assert!(is_legal(&with("14e", None), "10j-11i*11f"));
    // Fog 7 away on the file: not suppressed.
    assert!(is_legal(&with("11b", None), "10j-11i*11f"));
    // Priests are never suppressed: TB jumps to 10h and shoots 10g with an enemy fog on 10d.
    let g = g_with(&[("TB", "10j"), ("p", "10g"), ("fg", "10d")], 'b');
    assert!(is_legal(&g, "10j-10h*10g"));
}

#[test]
fn frankish_cannon_shoots_a_fog_only_from_six_or_seven() {
    let g = g_with(&[("FW", "10j"), ("fg", "11c")], 'b');
    assert!(is_legal(&g, "10j-11i*11c")); // distance 6
    let g = g_with(&[("FW", "10j"), ("fg", "11d")], 'b');
    assert!(!is_legal(&g, "10j-11i*11d")); // landing 5 from the fog: suppressed
    assert!(is_legal(&g, "10j-11k*11d")); // landing 7 from it: free to shoot it
                                          // A pawn in front of the fog: first the pawn, then the fog.
    let g = g_with(&[("FW", "10j"), ("fg", "11c"), ("p", "11e")], 'b');
    assert!(is_legal(&g, "10j-11i*11e*11c"));
}

// ---------------------------------------------------------------- §4.8 burning

#[test]
fn poison_flame_burns_every_neighbour_of_both_colours() {
    let g = g_with(
        &[
            ("PF", "10j"),
            ("p", "10h"),
            ("P", "11i"),
            ("p", "9j"),
            ("p", "12i"),
            ("D", "5s"),
        ],
        'b',
    );
    let p = after(&g, find_move(&g, "10j-10i"));
    assert_eq!(token_at(&p, "10i"), "PF");
    for burned in ["10h", "11i", "9j"] {
        assert_eq!(token_at(&p, burned), ".", "{burned} should burn");
    }
    assert_eq!(token_at(&p, "12i"), "p", "two points away survives");
}

#[test]
fn nothing_burns_next_to_a_stationary_flame_or_on_the_promoting_move() {
    // Black pawn steps next to a white flame: nothing happens.
    let g = g_with(&[("P", "10j"), ("pf", "10h"), ("D", "5s")], 'b');
    let p = after(&g, find_move(&g, "10j-10i"));
    assert_eq!(token_at(&p, "10i"), "P");
    // An engineer promoting on 10f does not burn 10e (AMB-08).
    let g = g_with(&[("EN", "10g"), ("p", "10e"), ("p", "9f")], 'b');
    let p = after(&g, find_move(&g, "10g-10f+"));
    assert_eq!(token_at(&p, "10f"), "PF");
    assert_eq!(token_at(&p, "10e"), "p");
    assert_eq!(token_at(&p, "9f"), "p");
}

// ---------------------------------------------------------------- §4.9 nets

#[test]
fn skyward_net_freezes_the_first_enemy_on_each_ranging_ray() {
    // Black SK 10j. fl ray: 11i free, 12h enemy shield (frozen), 13g behind (free to move).
    // l ray: 15j enemy (frozen). r ray: own pawn 7j first, enemy 6j behind it (free).
    // Forward (not a ranging direction): enemy on 10i free. Backward step direction: 10k free.
    let g = g_with(
        &[
            ("SK", "10j"),
            ("sp", "12h"),
            ("sp", "13g"),
            ("sp", "15j"),
            ("P", "7j"),
            ("sp", "6j"),
            ("sp", "10i"),
            ("sp", "10k"),
            ("D", "5s"),
        ],
        'w',
    );
    assert!(moves_from(&g, "12h").is_empty());
    assert!(moves_from(&g, "15j").is_empty());
    for free in ["13g", "6j", "10i", "10k"] {
        assert!(
            !moves_from(&g, free).is_empty(),
            "{free} must not be frozen"
        );
    }
    assert!(g.position().is_immobilized(sq("12h")));
    assert!(!g.position().is_immobilized(sq("13g")));
}

#[test]
fn earthward_net_freezes_along_back_diagonals_and_sideways() {
    // Black EW 10j: rays bl (11k…), br (9k…), l, r. An enemy wrestler on 11k cannot even pass.
    let g = g_with(
        &[("EW", "10j"), ("wr", "11k"), ("sp", "11i"), ("sp", "4j")],
        'w',
    );
    assert!(moves_from(&g, "11k").is_empty());
    assert!(moves_from(&g, "4j").is_empty());
    assert!(
        !moves_from(&g, "11i").is_empty(),
        "forward-left is not an EW ray"
    );
}

// ---------------------------------------------------------------- §8.6 lamp and fog

#[test]
fn holy_lamp_dispels_a_fog_of_either_colour_at_the_end_of_a_move() {
    // HL jumps 10j→10h: the white fog on 10d is 4 away on the file and reverts to a priest.
    let g = g_with(&[("HL", "10j"), ("fg", "10d")], 'b');
    let p = after(&g, find_move(&g, "10j-10h"));
    assert_eq!(token_at(&p, "10d"), "tb");
    // Jumping to 12j instead: 10d is off its lines → stays a fog.
    let p = after(&g, find_move(&g, "10j-12j"));
    assert_eq!(token_at(&p, "10d"), "fg");
    // Own fog too (AMB-05): a black fog on 10d.
    let g = g_with(&[("HL", "10j"), ("FG", "10d")], 'b');
    let p = after(&g, find_move(&g, "10j-10h"));
    assert_eq!(token_at(&p, "10d"), "TB");
}

// ---------------------------------------------------------------- §8.2 zone promotion

#[test]
fn zone_promotion_is_optional_when_a_move_ends_in_the_zone() {
    let g = g_with(&[("P", "10g"), ("D", "5s")], 'b');
    assert!(is_legal(&g, "10g-10f+"));
    assert!(is_legal(&g, "10g-10f="));
    assert!(!is_legal(&g, "10g-10f"));
    assert!(is_legal(&g, "10g-11g") && !is_legal(&g, "10g-11g+"));
    // Moving out of the zone: no option. Moving inside it: option.
    let g = g_with(&[("P", "10f"), ("D", "5s")], 'b');
    assert!(is_legal(&g, "10f-10g") && !is_legal(&g, "10f-10g+"));
    assert!(is_legal(&g, "10f-11f+") && is_legal(&g, "10f-11f="));
    let p = after(&g, find_move(&g, "10f-11f+"));
    assert_eq!(token_at(&p, "11f"), "+PU");
    // A pass inside the zone offers promotion too (it ends on the origin).
    let g = g_with(&[("CA", "10c")], 'b');
    let passes: Vec<_> = moves_from(&g, "10c")
        .into_iter()
        .filter(|m| m.destination() == m.origin())
        .collect();
    assert_eq!(passes.len(), 2);
    // White's zone is n–s.
    let g = g_with(&[("p", "10m"), ("d", "5a")], 'w');
    assert!(is_legal(&g, "10m-10n+") && is_legal(&g, "10m-10n="));
}

#[test]
fn pieces_that_never_promote_and_promoted_pieces_get_no_option() {
    for token in ["G", "WR", "E", "+Q", "DR", "+PU"] {
        let pieces = if token == "G" {
            vec![("G", "10g"), ("g", "2a")]
        } else {
            vec![(token, "10g"), ("G", "18s"), ("g", "2a")]
        };
        let g = game(position(&pieces, 'b'));
        assert!(
            moves_from(&g, "10g")
                .iter()
                .all(|m| m.promotion() == koshogi_rules::Promotion::None),
            "{token} got a promotion option"
        );
    }
}

// ---------------------------------------------------------------- §8.4 capture promotion

#[test]
fn capturing_a_commander_promotes_the_capturer_at_once() {
    // Rule 1: P captures the middle troop (White still survives on its general).
    let g = g_with(&[("P", "10j"), ("ma", "10i"), ("D", "5s")], 'b');
    assert!(is_legal(&g, "10jx10i+"));
    assert!(!is_legal(&g, "10jx10i") && !is_legal(&g, "10jx10i="));
    // Rule 1 for any mover: a millenary capturing the banner becomes a dragon.
    let g = g_with(&[("DU", "10j"), ("b", "10m")], 'b');
    assert!(is_legal(&g, "10jx10m+") && !is_legal(&g, "10jx10m"));
    let p = after(&g, find_move(&g, "10jx10m+"));
    assert_eq!(token_at(&p, "10m"), "DR");
    // Exact types (AMB-13): a flag waver is not "the banner" for rule 1.
    let g = g_with(&[("DU", "10j"), ("fl", "10m"), ("tb", "18a")], 'b');
    assert!(is_legal(&g, "10jx10m") && !is_legal(&g, "10jx10m+"));
}

#[test]
fn step_movers_promote_on_capturing_lion_pieces() {
    // Rule 2: a pawn capturing a sumo wrestler promotes; a millenary does not.
    let g = g_with(&[("P", "10j"), ("wr", "10i"), ("D", "5s")], 'b');
    assert!(is_legal(&g, "10jx10i+") && !is_legal(&g, "10jx10i"));
    let g = g_with(&[("DU", "10j"), ("wr", "10i")], 'b');
    assert!(is_legal(&g, "10jx10i") && !is_legal(&g, "10jx10i+"));
    // A pawn capturing a flag waver (rule 2).
    let g = g_with(
        &[("P", "10j"), ("fl", "11j"), ("tb", "18a"), ("D", "5s")],
        'b',
    );
    assert!(is_legal(&g, "10jx11j+"));
    // Shots count (AMB-31): a longbow shooting a dragon ascending promotes.
    let g = g_with(&[("LB", "10j"), ("dr", "11f")], 'b');
    assert!(is_legal(&g, "10j-11i*11f+") && !is_legal(&g, "10j-11i*11f"));
    assert!(is_legal(&g, "10j-11i"));
}

#[test]
fn horse_soldier_promotes_on_capturing_the_frankish_cannon_only() {
    let g = g_with(&[("HS", "10j"), ("fw", "11h")], 'b');
    assert!(is_legal(&g, "10jx11h+") && !is_legal(&g, "10jx11h"));
    let g = g_with(&[("HS", "10j"), ("cg", "11h")], 'b');
    assert!(is_legal(&g, "10jx11h") && !is_legal(&g, "10jx11h+"));
}

#[test]
fn capture_promotion_in_the_zone_has_no_decline() {
    let g = g_with(&[("P", "10g"), ("ma", "10f"), ("D", "5s")], 'b');
    assert!(is_legal(&g, "10gx10f+"));
    assert!(!is_legal(&g, "10gx10f="));
}

// ---------------------------------------------------------------- §8.5 clerk cascade

#[test]
fn clerk_promotion_promotes_the_guards_and_kills_enemy_flames() {
    let pieces = [
        ("SC", "10g"),
        ("FD", "19s"),
        ("R", "1r"),
        ("R", "5p"),
        ("pf", "5e"),
        ("PF", "15p"),
    ];
    let g = g_with(&pieces, 'b');
    let p = after(&g, find_move(&g, "10g-11f+"));
    assert_eq!(token_at(&p, "11f"), "AM");
    assert_eq!(token_at(&p, "19s"), "SK");
    assert_eq!(token_at(&p, "1r"), "EW");
    assert_eq!(token_at(&p, "5p"), "EW");
    assert_eq!(token_at(&p, "5e"), ".", "the enemy flame dies");
    assert_eq!(token_at(&p, "15p"), "PF", "own flames stay");
    // Declining changes nothing.
    let p = after(&g, find_move(&g, "10g-11f="));
    assert_eq!(token_at(&p, "19s"), "FD");
    assert_eq!(token_at(&p, "5e"), "pf");
}

// ---------------------------------------------------------------- §8.6 / §8.7 priest and drum

#[test]
fn losing_the_priest_reverts_thunderclap_and_flag_waver() {
    let g = g_with(
        &[("DU", "10j"), ("tb", "10m"), ("tc", "5b"), ("fl", "15b")],
        'b',
    );
    let p = after(&g, find_move(&g, "10jx10m"));
    assert_eq!(token_at(&p, "5b"), "d");
    assert_eq!(token_at(&p, "15b"), "b");
    assert!(p.taoist_priest_lost(Color::White));
    // A fog counts as the priest (AMB-14).
    let g = g_with(&[("DU", "10j"), ("fg", "10m"), ("tc", "5b")], 'b');
    let p = after(&g, find_move(&g, "10jx10m"));
    assert_eq!(token_at(&p, "5b"), "d");
}

#[test]
fn drum_and_banner_cannot_promote_without_the_priest() {
    let g = g_with(&[("D", "10g")], 'b');
    assert!(is_legal(&g, "10g-11f") && !is_legal(&g, "10g-11f+"));
    let g = g_with(&[("D", "10g"), ("TB", "2s")], 'b');
    assert!(is_legal(&g, "10g-11f+") && is_legal(&g, "10g-11f="));
    let g = g_with(&[("B", "10g")], 'b');
    assert!(is_legal(&g, "10g-11f") && !is_legal(&g, "10g-11f+"));
}

#[test]
fn pawns_lose_their_forward_step_with_the_drum() {
    let g = g_with(&[("P", "10j")], 'b');
    assert_eq!(
        destinations(&g, "10j"),
        offsets_black("10j", &[(1, 0), (-1, 0), (0, -1)])
    );
    assert!(g.position().drum_lost(Color::Black));
    // A thunderclap counts as the drum (AMB-13).
    let g = g_with(&[("P", "10j"), ("TC", "5s"), ("TB", "2s")], 'b');
    assert!(destinations(&g, "10j").contains("10i"));
    // Patrol units are unaffected.
    let g = g_with(&[("PU", "10j")], 'b');
    assert!(destinations(&g, "10j").contains("10i"));
}

// ---------------------------------------------------------------- §10 game end

#[test]
fn capturing_the_last_commander_wins() {
    // White has only its general: capturing it wins.
    let g = game(position(&[("DU", "10j"), ("g", "10c"), ("G", "18s")], 'b'));
    let mut g2 = g.clone();
    g2.play(find_move(&g, "10jx10c+"));
    assert_eq!(
        g2.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::CommandDestroyed
        })
    );
    assert!(g2.legal_moves().is_empty());
    // With the middle troop and the banner White survives the loss of its general.
    let g = game(position(
        &[
            ("DU", "10j"),
            ("g", "10c"),
            ("ma", "2a"),
            ("b", "3a"),
            ("G", "18s"),
        ],
        'b',
    ));
    let mut g2 = g.clone();
    g2.play(find_move(&g, "10jx10c+"));
    assert_eq!(g2.outcome(), None);
    // With the middle troop alone it does not.
    let g = game(position(
        &[("DU", "10j"), ("g", "10c"), ("ma", "2a"), ("G", "18s")],
        'b',
    ));
    let mut g2 = g.clone();
    g2.play(find_move(&g, "10jx10c+"));
    assert!(matches!(
        g2.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            ..
        })
    ));
    // A governor is a general of its own.
    let g = game(position(
        &[("DU", "10j"), ("g", "10c"), ("gv", "2a"), ("G", "18s")],
        'b',
    ));
    let mut g2 = g.clone();
    g2.play(find_move(&g, "10jx10c+"));
    assert_eq!(g2.outcome(), None);
}

#[test]
fn a_side_without_commanders_has_no_moves() {
    let g = game(position(&[("DU", "10j"), ("g", "10c")], 'b'));
    assert!(g.legal_moves().is_empty());
}

#[test]
fn no_legal_move_loses() {
    // Black: general in the corner 1a boxed by three vanguards that cannot move forward.
    let g = game(position(
        &[
            ("G", "1a"),
            ("VA", "2a"),
            ("VA", "1b"),
            ("VA", "2b"),
            ("g", "19s"),
        ],
        'b',
    ));
    assert!(g.legal_moves().is_empty());
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::NoLegalMoves
        })
    );
}

fn play_pass(g: &mut koshogi_rules::Game, origin: &str) {
    let mv = moves_from(g, origin)
        .into_iter()
        .find(|m| m.destination() == m.origin() && !m.is_capture())
        .expect("a pass");
    g.play(mv);
}

#[test]
fn fourfold_repetition_draws() {
    let mut g = game(position(
        &[
            ("WR", "10s"),
            ("wr", "10a"),
            ("G", "18s"),
            ("g", "2a"),
            ("MA", "17s"),
            ("B", "16s"),
            ("ma", "3a"),
            ("b", "4a"),
        ],
        'b',
    ));
    for ply in 0..6 {
        assert_eq!(g.outcome(), None, "ply {ply}");
        play_pass(&mut g, if ply % 2 == 0 { "10s" } else { "10a" });
    }
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

#[test]
fn perpetual_check_against_a_sole_target_loses() {
    // The black millenary shuttles 10j↔10k on file 10, attacking the lone white general on 10a
    // after every move; White can only pass with its wrestler. Fourth occurrence at ply 12.
    let mut g = game(position(
        &[("DU", "10j"), ("g", "10a"), ("wr", "18a"), ("G", "18s")],
        'b',
    ));
    for ply in 0..12 {
        assert_eq!(g.outcome(), None, "ply {ply}");
        match ply % 4 {
            0 => g.play(find_move(&g, "10j-10k")),
            2 => g.play(find_move(&g, "10k-10j")),
            _ => play_pass(&mut g, "18a"),
        }
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::PerpetualCheck
        })
    );
}

// ---------------------------------------------------------------- more multi-leg effects

#[test]
fn fog_and_lamp_shoot_after_each_jump() {
    // FG/HL on 10j, an enemy pawn on 10g. 25 final points without a shot. A shot at 10g needs a
    // landing point next to it: the first jump to 10h (then any of the 8 second jumps from 10h:
    // 10f 12f 8f 12h 8h 12j 8j and back to 10j), or the final point 10h / 10f. Those 9 final
    // points get a second effect: 25 + 9 = 34.
    for token in ["FG", "HL"] {
        let g = g_with(&[(token, "10j"), ("p", "10g")], 'b');
        assert_eq!(moves_from(&g, "10j").len(), 34, "{token}");
        assert!(is_legal(&g, "10j-10h*10g"));
        assert!(is_legal(&g, "10j-10h-10j*10g"));
        assert!(is_legal(&g, "10j-10h-12f*10g"));
        assert!(!is_legal(&g, "10j-12j-14j*10g"));
    }
}

#[test]
fn cavalry_captures_on_the_first_leap_and_continues() {
    // CA 10j, enemy pawn 11h (a forward-major leap). Single leaps 8; double leaps: 12 points, of
    // which 10f is reached through 11h (capture) or 9h (none) — 13 effects; return: pass + igui.
    // Zone (rank f): 8f, 10f (twice), 12f — 4 effects doubled by + / =: 8 + 13 + 2 + 4 = 27.
    let g = g_with(&[("CA", "10j"), ("p", "11h")], 'b');
    assert_eq!(moves_from(&g, "10j").len(), 27);
    assert!(is_legal(&g, "10jx11h-10j"));
    assert!(is_legal(&g, "10jx11h-12f+"));
    assert!(is_legal(&g, "10j-9h-10f="));
    assert!(is_legal(&g, "10jx11h-10f="));
}

#[test]
fn a_priest_promoting_next_to_a_lamp_reverts_at_once_but_both_moves_exist() {
    // §14.2: TB jumps into the zone on 10f, 4 points from an enemy lamp on 10b.
    let g = g_with(&[("TB", "10h"), ("hl", "10b")], 'b');
    let plus = after(&g, find_move(&g, "10h-10f+"));
    let decline = after(&g, find_move(&g, "10h-10f="));
    assert_eq!(token_at(&plus, "10f"), "TB");
    assert_eq!(plus.to_ksfen(false), decline.to_ksfen(false));
}

#[test]
fn a_blocked_drum_does_not_promote_even_on_capture() {
    let g = g_with(&[("D", "10j"), ("ma", "11i")], 'b');
    assert!(is_legal(&g, "10jx11i") && !is_legal(&g, "10jx11i+"));
    let g = g_with(&[("D", "10j"), ("ma", "11i"), ("TB", "2s")], 'b');
    assert!(is_legal(&g, "10jx11i+") && !is_legal(&g, "10jx11i"));
}

#[test]
fn a_clerk_promoted_by_capture_also_cascades() {
    let g = g_with(
        &[("SC", "10j"), ("ma", "11i"), ("FD", "19s"), ("pf", "3c")],
        'b',
    );
    let p = after(&g, find_move(&g, "10jx11i+"));
    assert_eq!(token_at(&p, "11i"), "AM");
    assert_eq!(token_at(&p, "19s"), "SK");
    assert_eq!(token_at(&p, "3c"), ".");
}

#[test]
fn frozen_pieces_keep_their_passive_effects() {
    // AMB-30: a white fog frozen by a black skyward net (the first piece on the net's l ray)
    // still suppresses black artillery. The crossbow steps 10l→11k, one point diagonally from the
    // fog on 12j, and would shoot the pawn 5 points up the file on 11f.
    let g = g_with(
        &[("SK", "10j"), ("fg", "12j"), ("SB", "10l"), ("p", "11f")],
        'b',
    );
    assert!(g.position().is_immobilized(sq("12j")));
    assert!(
        !is_legal(&g, "10l-11k*11f"),
        "the frozen fog still suppresses"
    );
    let g = g_with(&[("SK", "10j"), ("SB", "10l"), ("p", "11f")], 'b');
    assert!(is_legal(&g, "10l-11k*11f"));
}

#[test]
fn two_nets_freeze_each_other() {
    // Black SK on 10j and white SK on 14j face each other along rank j: each is the first piece
    // on the other's sideways ray, so neither may move.
    let g = g_with(&[("SK", "10j"), ("sk", "14j")], 'b');
    assert!(moves_from(&g, "10j").is_empty());
    let g = g_with(&[("SK", "10j"), ("sk", "14j")], 'w');
    assert!(moves_from(&g, "14j").is_empty());
}
