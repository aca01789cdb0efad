//! Each §12 default is covered in `special_rules.rs`; here every implemented alternative
//! (`RulesOptions` switch) is checked against the reading §12 gives for it.

mod common;

use common::*;
use koshogi_rules::{Color, DrawReason, Game, Outcome, RulesOptions, WinReason};

fn opts(json: &str) -> RulesOptions {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

fn with(json: &str, pieces: &[(&str, &str)], side: char) -> Game {
    Game::from_position(position_with_generals(pieces, side), opts(json))
}

fn legal(g: &Game, text: &str) -> bool {
    is_legal(g, text)
}

#[test]
fn amb02_shot_after_capture() {
    let priest = [("TB", "10j"), ("sm", "12h"), ("p", "12g")];
    assert!(legal(&with("{}", &priest, 'b'), "10jx12h*12g"));
    assert!(!legal(
        &with(r#"{"shot_after_capture":"never"}"#, &priest, 'b'),
        "10jx12h*12g"
    ));
    let bow = [("LB", "10j"), ("p", "11i"), ("p", "11f")];
    assert!(!legal(&with("{}", &bow, 'b'), "10jx11i*11f"));
    assert!(legal(
        &with(r#"{"shot_after_capture":"always"}"#, &bow, 'b'),
        "10jx11i*11f"
    ));
}

#[test]
fn amb03_artillery_displacement() {
    let bow = [("LB", "10j"), ("p", "11i")];
    assert!(legal(&with("{}", &bow, 'b'), "10jx11i"));
    assert!(!legal(
        &with(r#"{"artillery_displacement":false}"#, &bow, 'b'),
        "10jx11i"
    ));
}

#[test]
fn amb04_fog_reach() {
    // Fog off the lines through the landing point 11i but within Chebyshev 4.
    let off_line = [("LB", "10j"), ("p", "11f"), ("fg", "14e")];
    assert!(legal(&with("{}", &off_line, 'b'), "10j-11i*11f"));
    assert!(!legal(
        &with(r#"{"fog_reach":"area"}"#, &off_line, 'b'),
        "10j-11i*11f"
    ));
    // Fog on the file behind the target: the target blocks the aura under lines_blocked.
    let behind = [("LB", "10j"), ("p", "11f"), ("fg", "11d")];
    assert!(!legal(&with("{}", &behind, 'b'), "10j-11i*11f"));
    assert!(legal(
        &with(r#"{"fog_reach":"lines_blocked"}"#, &behind, 'b'),
        "10j-11i*11f"
    ));
}

#[test]
fn amb05_lamp_reach_and_colour() {
    let own = [("HL", "10j"), ("FG", "10d")];
    let g = with(r#"{"lamp_affects_own_fog":false}"#, &own, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10j-10h")), "10d"), "FG");
    // A piece between lamp and fog stops the lamp under lines_blocked.
    let blocked = [("HL", "10j"), ("fg", "10d"), ("p", "10f")];
    let g = with(r#"{"lamp_reach":"lines_blocked"}"#, &blocked, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10j-10h")), "10d"), "fg");
    let g = with("{}", &blocked, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10j-10h")), "10d"), "tb");
    // Area: the fog on 12e is 4 files and 3 ranks from 10h... Chebyshev 3 from 10h? (12-10, 8-5) = (2,3).
    let area = [("HL", "10j"), ("fg", "12e")];
    let g = with(r#"{"lamp_reach":"area"}"#, &area, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10j-10h")), "12e"), "tb");
    let g = with("{}", &area, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10j-10h")), "12e"), "fg");
}

#[test]
fn amb06_08_burning_switches() {
    let pieces = [
        ("PF", "10j"),
        ("p", "10h"),
        ("P", "11i"),
        ("TB", "9i"),
        ("D", "5s"),
    ];
    let g = with(r#"{"burn_friendly":false}"#, &pieces, 'b');
    let p = after(&g, find_move(&g, "10j-10i"));
    assert_eq!(
        (token_at(&p, "10h"), token_at(&p, "11i")),
        (".".to_string(), "P".to_string())
    );
    let g = with(r#"{"burn_exempt":"priest_monk"}"#, &pieces, 'b');
    let p = after(&g, find_move(&g, "10j-10i"));
    assert_eq!(
        (token_at(&p, "11i"), token_at(&p, "9i")),
        (".".to_string(), "TB".to_string())
    );
    let engineer = [("EN", "10g"), ("p", "10e")];
    let g = with(r#"{"burn_on_promotion":true}"#, &engineer, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10g-10f+")), "10e"), ".");
}

#[test]
fn amb09_net_scope() {
    // Black SK 10j; fl ray: enemies 12h then 13g; r ray: enemy 8j, own 7j, enemy 6j.
    let pieces = [
        ("SK", "10j"),
        ("sp", "12h"),
        ("sp", "13g"),
        ("sp", "8j"),
        ("P", "7j"),
        ("sp", "6j"),
        ("D", "5s"),
    ];
    let frozen = |json: &str| -> Vec<bool> {
        let g = with(json, &pieces, 'w');
        ["12h", "13g", "8j", "6j"]
            .iter()
            .map(|s| moves_from(&g, s).is_empty())
            .collect()
    };
    assert_eq!(frozen("{}"), vec![true, false, true, false]);
    assert_eq!(
        frozen(r#"{"net_scope":"whole_ray"}"#),
        vec![true, true, true, true]
    );
    assert_eq!(
        frozen(r#"{"net_scope":"until_friendly"}"#),
        vec![true, true, true, false]
    );
}

#[test]
fn amb10_thunderclap_kosho() {
    // d1 twice, d2 twice, −d1 once: ends on the knight offset d1 + 2·d2 — 8 points.
    let g = with(
        r#"{"thunderclap":"kosho"}"#,
        &[("TC", "10j"), ("TB", "2s")],
        'b',
    );
    assert_eq!(destinations(&g, "10j"), offsets_black("10j", &KNIGHT_JUMPS));
    assert_eq!(moves_from(&g, "10j").len(), 8);
}

#[test]
fn amb11_zone_trigger_and_mandatory_zone_promotion() {
    let inside = [("P", "10f"), ("D", "5s")];
    let g = with(r#"{"zone_trigger":"start_or_end"}"#, &inside, 'b');
    assert!(legal(&g, "10f-10g+") && legal(&g, "10f-10g="));
    let g = with(r#"{"zone_trigger":"enter_only"}"#, &inside, 'b');
    assert!(legal(&g, "10f-11f") && !legal(&g, "10f-11f+"));
    let g = with(
        r#"{"zone_promotion":"mandatory"}"#,
        &[("P", "10g"), ("D", "5s")],
        'b',
    );
    assert!(legal(&g, "10g-10f+") && !legal(&g, "10g-10f=") && !legal(&g, "10g-10f"));
}

#[test]
fn amb12_guards_promote_only_with_the_clerk() {
    let g = with(
        r#"{"guards_promote":"cascade_only"}"#,
        &[("FD", "10j")],
        'b',
    );
    assert!(legal(&g, "10j-10f") && !legal(&g, "10j-10f+"));
    let g = with("{}", &[("FD", "10j")], 'b');
    assert!(legal(&g, "10j-10f+") && legal(&g, "10j-10f="));
}

#[test]
fn amb13_15_16_what_counts_as_banner_drum_and_commander() {
    // White: middle troop + flag waver (no general): survives only if FL counts as the banner.
    let pieces = [("ma", "5a"), ("fl", "6a"), ("tb", "8a"), ("G", "18s")];
    let pos = position(&pieces, 'b');
    assert!(pos.survives(Color::White, &RulesOptions::default()));
    assert!(!pos.survives(Color::White, &opts(r#"{"promoted_banner_commands":false}"#)));
    // Pawns with a thunderclap as their drum.
    let pawn_tc = [("P", "10j"), ("TC", "5s"), ("TB", "2s")];
    assert!(!destinations(
        &with(r#"{"thunderclap_keeps_pawns":false}"#, &pawn_tc, 'b'),
        "10j"
    )
    .contains("10i"));
    // Banner and drum standing in for the drum.
    let pawn_bd = [("P", "10j"), ("BD", "5s")];
    assert!(!destinations(&with("{}", &pawn_bd, 'b'), "10j").contains("10i"));
    assert!(
        destinations(&with(r#"{"kiko_substitutes":true}"#, &pawn_bd, 'b'), "10j").contains("10i")
    );
    // Rule 1 for a captured flag waver.
    let fl = [("DU", "10j"), ("fl", "10m"), ("tb", "18a")];
    assert!(legal(
        &with(r#"{"rule1_includes_promoted":true}"#, &fl, 'b'),
        "10jx10m+"
    ));
    // Capturing a governor.
    let gv = [("DU", "10j"), ("gv", "10m")];
    assert!(legal(&with("{}", &gv, 'b'), "10jx10m+"));
    let g = with(r#"{"governor_triggers_rule1":false}"#, &gv, 'b');
    assert!(legal(&g, "10jx10m") && !legal(&g, "10jx10m+"));
}

#[test]
fn amb20_fortress_as_flying_ox() {
    let g = with(r#"{"fortress_move":"flying_ox"}"#, &[("HF", "10j")], 'b');
    let d = destinations(&g, "10j");
    assert!(d.contains("10a") && d.contains("10s") && !d.contains("11j"));
    assert_eq!(d.len(), 36 + 18);
}

#[test]
fn amb22_shot_range_counts_free_points() {
    let g = with(
        r#"{"shot_range":"free_points"}"#,
        &[("LB", "10j"), ("p", "11e")],
        'b',
    );
    assert!(legal(&g, "10j-11i*11e"));
    let g = with(
        r#"{"shot_range":"free_points"}"#,
        &[("LB", "10j"), ("p", "11d")],
        'b',
    );
    assert!(!legal(&g, "10j-11i*11d"));
}

#[test]
fn amb25_26_27_game_end_switches() {
    // Perpetual check ignored: a plain fourfold-repetition draw.
    let mut g = Game::from_position(
        position(
            &[("DU", "10j"), ("g", "10a"), ("wr", "18a"), ("G", "18s")],
            'b',
        ),
        opts(r#"{"perpetual_check":"ignore"}"#),
    );
    for ply in 0..12 {
        match ply % 4 {
            0 => g.play(find_move(&g, "10j-10k")),
            2 => g.play(find_move(&g, "10k-10j")),
            _ => {
                let pass = moves_from(&g, "18a")
                    .into_iter()
                    .find(|m| m.destination() == m.origin() && !m.is_capture())
                    .unwrap();
                g.play(pass)
            }
        }
    }
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    // No legal move: a draw.
    let boxed = [
        ("G", "1a"),
        ("VA", "2a"),
        ("VA", "1b"),
        ("VA", "2b"),
        ("g", "19s"),
    ];
    let g = Game::from_position(position(&boxed, 'b'), opts(r#"{"no_moves":"draw"}"#));
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::NoLegalMoves)));
    // Black's flame burns both generals (11h and 9h are next to 10i).
    let both = [("PF", "10j"), ("G", "11h"), ("g", "9h")];
    for (json, expected) in [
        (
            "{}",
            Outcome::Win {
                winner: Color::Black,
                reason: WinReason::CommandDestroyed,
            },
        ),
        (
            r#"{"mutual_destruction":"mover_loses"}"#,
            Outcome::Win {
                winner: Color::White,
                reason: WinReason::MutualDestruction,
            },
        ),
        (
            r#"{"mutual_destruction":"draw"}"#,
            Outcome::Draw(DrawReason::MutualDestruction),
        ),
    ] {
        let mut g = Game::from_position(position(&both, 'b'), opts(json));
        g.play(find_move(&g, "10j-10i"));
        assert_eq!(g.outcome(), Some(expected), "{json}");
    }
}

#[test]
fn amb29_31_34_passes_shot_promotion_and_cart_immunity() {
    assert_eq!(
        moves_from(
            &with(r#"{"allow_pass":false}"#, &[("WR", "10j")], 'b'),
            "10j"
        )
        .len(),
        24
    );
    let dr = [("LB", "10j"), ("dr", "11f")];
    let g = with(r#"{"shots_trigger_promotion":false}"#, &dr, 'b');
    assert!(legal(&g, "10j-11i*11f") && !legal(&g, "10j-11i*11f+"));
    let wc = [("SB", "10j"), ("wc", "11f")];
    assert!(!legal(&with("{}", &wc, 'b'), "10j-11i*11f"));
    assert!(legal(
        &with(r#"{"cart_bow_immunity":false}"#, &wc, 'b'),
        "10j-11i*11f"
    ));
}

#[test]
fn amb01_shoot_mode() {
    // A longbow on 10j, a pawn 3 up the file (10g) and one 3 up from the landing point 11i (11f).
    let pieces = [("LB", "10j"), ("p", "10g"), ("p", "11f")];
    let g = with("{}", &pieces, 'b');
    assert!(legal(&g, "10j-11i*11f") && !legal(&g, "10j*10g"));
    let g = with(r#"{"shoot_mode":"stationary_only"}"#, &pieces, 'b');
    assert!(legal(&g, "10j*10g") && !legal(&g, "10j-11i*11f") && legal(&g, "10j-11i"));
    let p = after(&g, find_move(&g, "10j*10g"));
    assert_eq!(
        (token_at(&p, "10j"), token_at(&p, "10g")),
        ("LB".to_string(), ".".to_string())
    );
    let g = with(r#"{"shoot_mode":"either"}"#, &pieces, 'b');
    assert!(legal(&g, "10j*10g") && legal(&g, "10j-11i*11f"));
    // Both notations read and write the stationary shot.
    use koshogi_rules::notation::{format_hodges, parse_canonical, parse_hodges};
    let legal_moves = g.legal_moves();
    let mv = find_move(&g, "10j*10g");
    assert_eq!(
        parse_canonical(g.position(), &legal_moves, "10j*10g").unwrap(),
        mv
    );
    let h = format_hodges(g.position(), &legal_moves, &mv);
    assert_eq!(h, "LB*10g");
    assert_eq!(parse_hodges(g.position(), &legal_moves, &h).unwrap(), mv);
}

#[test]
fn amb07_tenjiku_like_flames() {
    // A black pawn stepping next to a stationary white flame is burned under tenjiku_like.
    let pieces = [("P", "10j"), ("pf", "10h"), ("D", "5s")];
    let g = with("{}", &pieces, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10j-10i")), "10i"), "P");
    let g = with(r#"{"flame_mode":"tenjiku_like"}"#, &pieces, 'b');
    assert_eq!(token_at(&after(&g, find_move(&g, "10j-10i")), "10i"), ".");
}
