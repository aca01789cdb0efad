//! Move-generation tests derived from the rules reference (§4–§8, §11.2, §12).

use crate::testutil::*;
use crate::{Color::*, PieceKind::*, *};
use std::collections::HashSet;

fn effects_unique(moves: &[Move]) {
    let mut seen = HashSet::new();
    for m in moves {
        assert!(
            seen.insert((
                m.origin(),
                m.destination(),
                m.removed_points(),
                m.promotion()
            )),
            "duplicate effect {m}"
        );
    }
}

/// Offsets reachable by a lion move with `atoms` (two legs, any order), as a set, plus pass.
fn lion_reach(atoms: &[(i32, i32)]) -> usize {
    let mut s = HashSet::new();
    for a in atoms {
        s.insert(*a);
        for b in atoms {
            s.insert((a.0 + b.0, a.1 + b.1)); // (0,0) = pass
        }
    }
    s.len()
}

const KING: [(i32, i32); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
const KNIGHT: [(i32, i32); 8] = [
    (1, 2),
    (1, -2),
    (-1, 2),
    (-1, -2),
    (2, 1),
    (2, -1),
    (-2, 1),
    (-2, -1),
];

#[test]
fn counts_stated_in_the_reference() {
    assert_eq!(alone(SumoWrestler, "10j"), 25, "WR: 24 points + pass");
    assert_eq!(alone(DragonAscending, "10j"), 81, "DR from the centre");
    assert_eq!(alone(Cavalry, "10j"), 21, "CA: 8 + 12 + pass");
    assert_eq!(alone(FiveLiFog, "10j"), 25);
    assert_eq!(alone(HolyLamp, "10j"), 25);
    assert_eq!(alone(TaoistPriest, "10j"), 8);
    assert_eq!(alone(SpiritualMonk, "10j"), 8);
    assert_eq!(alone(Drum, "10j"), 6);
    assert_eq!(alone(Banner, "10j"), 6);
    assert_eq!(alone(Sentry, "10j"), 7);
    assert_eq!(alone(AideDeCamp, "10j"), 7);
    assert_eq!(alone(Aide, "10j"), 6);
    assert_eq!(alone(Staff, "10j"), 5);
    assert_eq!(alone(ChiefOfStaff, "10j"), 6);
    assert_eq!(alone(Engineer, "10j"), 4);
    assert_eq!(alone(PoisonFlame, "10j"), 4);
}

#[test]
fn step_range_and_jump_pieces_from_the_centre() {
    // 9 points to each edge from 10j in every direction.
    let cases = [
        (General, 8),
        (MiddleTroop, 8),
        (Governor, 8),
        (Clerk, 8),
        (StaffOfficer, 8),
        (AdvanceGuard, 9 + 1),
        (SkywardNet, 4 * 9 + 1),
        (RearGuard, 9 + 1),
        (EarthwardNet, 4 * 9 + 1),
        (Millenary, 72),
        (Quartermaster, 36 + 4),
        (Centuria, 36 + 4),
        (Elephant, 36),
        (TownBrigade, 18 + 6),
        (VillageBrigade, 18 + 6),
        (Deputy, 45),
        (Commissar, 54),
        (PatrolUnit, 18 + 2),
        (Vanguard, 5),
        (Shield, 4),
        (ShieldUnit, 18 + 4),
        (HeavenlyFortress, 54),
        (Chariot, 20),
        (ChariotUnit, 36),
        (WarCart, 20),
        (ChariotOfTheGods, 20),
        (HorseSoldier, 8),
        (Longbow, 4),
        (Crossbow, 4),
        (Cannon, 4),
        (FrankishCannon, 4),
        (LongbowCavalry, 8),
        (CrossbowCavalry, 8),
        (FlagWaver, 20),
        (Thunderclap, 4 + 12 + 20),
    ];
    for (kind, n) in cases {
        assert_eq!(alone(kind, "10j"), n, "{kind:?}");
    }
}

#[test]
fn lion_pieces_reach_every_two_leg_sum_once() {
    let diag: Vec<_> = KING
        .iter()
        .copied()
        .filter(|v| v.0 != 0 && v.1 != 0)
        .collect();
    let orth: Vec<_> = KING
        .iter()
        .copied()
        .filter(|v| v.0 == 0 || v.1 == 0)
        .collect();
    let dab = [(0, 2), (0, -2), (2, 0), (-2, 0)];
    let alf = [(2, 2), (2, -2), (-2, 2), (-2, -2)];
    assert_eq!(
        alone(MasterAtArms, "10j"),
        lion_reach(&[diag.clone(), dab.to_vec()].concat())
    );
    assert_eq!(alone(MasterAtArms, "10j"), 25);
    assert_eq!(
        alone(BannerAndDrum, "10j"),
        lion_reach(&[orth.clone(), alf.to_vec()].concat())
    );
    assert_eq!(alone(WingedHorse, "10j"), lion_reach(&KNIGHT));
    // TW: rook 36 + F^2 adds the 4 diagonal steps, the 4 A points and the pass.
    assert_eq!(alone(TigerWing, "10j"), 36 + 4 + 4 + 1);
    assert_eq!(alone(Warhawk, "10j"), 36 + 4 + 4 + 1);
}

#[test]
fn pawn_forward_step_needs_the_drum() {
    let with_drum = setup(&[("10j", Black, Pawn), ("15s", Black, Drum)], Black);
    assert_eq!(moves_from(&with_drum, "10j").len(), 4);
    let without = setup(&[("10j", Black, Pawn)], Black);
    assert_eq!(
        names(&moves_from(&without, "10j")),
        vec!["10j-10k", "10j-11j", "10j-9j"]
    );
    assert!(without.drum_lost(Black));
    // a thunderclap keeps the pawns' forward step (AMB-13) unless the option says otherwise
    let tc = setup(
        &[
            ("10j", Black, Pawn),
            ("15s", Black, Thunderclap),
            ("14s", Black, TaoistPriest),
        ],
        Black,
    );
    assert_eq!(moves_from(&tc, "10j").len(), 4);
    let opts = RulesOptions {
        thunderclap_keeps_pawns: false,
        ..Default::default()
    };
    assert_eq!(moves_from_with(&tc, "10j", &opts).len(), 3);
}

#[test]
fn white_moves_are_rotated() {
    let p = setup(&[("10j", White, Vanguard)], White);
    assert_eq!(
        names(&moves_from(&p, "10j")),
        vec!["10j-10k", "10j-10l", "10j-10m", "10j-10n+", "10j-10n=", "10j-10o+", "10j-10o="]
    );
    let p = setup(&[("10j", Black, Vanguard)], Black);
    assert_eq!(
        names(&moves_from(&p, "10j")),
        vec!["10j-10e+", "10j-10e=", "10j-10f+", "10j-10f=", "10j-10g", "10j-10h", "10j-10i"]
    );
}

#[test]
fn start_position_examples_of_section_11_2() {
    let p = Position::startpos();
    let all = p.legal_moves(&RulesOptions::default());
    effects_unique(&all);
    let n = names(&all);
    for expected in ["10m-10h", "19nx19f+", "19nx19f=", "13s-13r-13s", "1nx1f+"] {
        assert!(n.contains(&expected.to_string()), "{expected} missing");
    }
    // a wrestler passes once, not via several neighbours
    assert_eq!(
        n.iter()
            .filter(|m| m.starts_with("13s-") && m.ends_with("-13s"))
            .count(),
        1
    );
    assert!(all
        .iter()
        .all(|m| p.piece_at(m.origin()).unwrap().color == Black));
}

#[test]
fn igui_and_double_capture_notation() {
    let p = setup(
        &[
            ("13s", Black, SumoWrestler),
            ("12r", White, Pawn),
            ("11q", White, Pawn),
            ("13r", Black, Pawn),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "13s"));
    assert!(n.contains(&"13sx12r-13s".to_string()), "{n:?}");
    assert!(n.contains(&"13sx12rx11q".to_string()));
    assert!(n.contains(&"13sx12r".to_string()));
    // pass through the smallest free neighbour in (rank, file) order: 14r (12r enemy, 13r friend)
    assert!(n.contains(&"13s-14r-13s".to_string()), "{n:?}");
    // a friendly piece on the first landing point is never jumped over
    assert!(!n.iter().any(|m| m.starts_with("13s-13r")));
    effects_unique(&moves_from(&p, "13s"));
}

#[test]
fn dragon_prefers_the_one_leg_path() {
    let p = setup(&[("10j", Black, DragonAscending)], Black);
    let n = names(&moves_from(&p, "10j"));
    assert!(n.contains(&"10j-10h".to_string()));
    assert!(!n.contains(&"10j-10i-10h".to_string()));
    // knight-offset point: two legs, smallest first landing by (rank, file)
    assert!(n.contains(&"10j-10i-11h".to_string()), "{n:?}");
}

#[test]
fn thunderclap_makes_exactly_five_steps() {
    let p = setup(
        &[
            ("10j", Black, Thunderclap),
            ("14s", Black, TaoistPriest),
            ("10i", White, Pawn),
        ],
        Black,
    );
    let moves = moves_from(&p, "10j");
    effects_unique(&moves);
    assert!(moves.iter().all(|m| m.legs().len() == 5));
    // ends at odd Manhattan distance only
    for m in &moves {
        let d =
            (m.destination().file() as i32 - 10).abs() + (m.destination().rank() as i32 - 10).abs();
        assert!(d % 2 == 1 && d <= 5, "{m}");
    }
    // canonical path of the step to 10k without capture: lexicographically smallest 5-step path
    // avoiding 10i would be 10j-9j... ; the capturing variants exist as separate effects
    assert!(moves
        .iter()
        .any(|m| m.destination() == sq("10k") && m.removed_points().is_empty()));
    assert!(moves
        .iter()
        .any(|m| m.destination() == sq("10k") && m.removed_points() == vec![sq("10i")]));
    // kosho reading: 8 U-shaped paths
    let opts = RulesOptions {
        thunderclap: ThunderclapMode::Kosho,
        ..Default::default()
    };
    let k = moves_from_with(&p, "10j", &opts);
    assert_eq!(k.len(), 8);
}

#[test]
fn flag_waver_captures_through_and_stops_at_friends() {
    let p = setup(
        &[
            ("10j", Black, FlagWaver),
            ("14s", Black, TaoistPriest),
            ("10i", White, Pawn),
            ("10g", White, Pawn),
            ("11j", Black, Pawn),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "10j"));
    assert!(n.contains(&"10jx10i-10h".to_string()));
    assert!(!n.contains(&"10jx10i-10h-10g-10f".to_string()));
    assert!(n.contains(&"10jx10i-10hx10g-10f".to_string()), "{n:?}");
    assert!(!n.iter().any(|m| m.starts_with("10j-11j")));
}

#[test]
fn cavalry_second_leap_shares_the_major_direction() {
    let p = setup(&[("10j", Black, Cavalry)], Black);
    let dests: HashSet<(i32, i32)> = moves_from(&p, "10j")
        .iter()
        .map(|m| {
            (
                m.destination().file() as i32 - 10,
                m.destination().rank() as i32 - 10,
            )
        })
        .collect();
    for d in [
        (0, 4),
        (0, -4),
        (4, 0),
        (-4, 0),
        (2, 4),
        (-2, -4),
        (4, 2),
        (-4, -2),
        (0, 0),
    ] {
        assert!(dests.contains(&d), "{d:?}");
    }
    assert!(!dests.contains(&(3, 3)) && !dests.contains(&(3, 1)));
}

#[test]
fn bows_shoot_the_nearest_piece_within_range_after_a_free_step() {
    // LB at 17q steps to 16p and shoots 16m (line distance 3); a friend at 16o would block.
    let p = setup(&[("17q", Black, Longbow), ("16m", White, Pawn)], Black);
    let n = names(&moves_from(&p, "17q"));
    assert!(n.contains(&"17q-16p*16m".to_string()), "{n:?}");
    assert!(!n
        .iter()
        .any(|m| m.contains("*16m") && !m.starts_with("17q-16p")));
    // range 3: from 18p the pawn at 16m is not on a line; from 16p distance 3 ok, 4 not
    let p = setup(&[("17q", Black, Longbow), ("16l", White, Pawn)], Black);
    assert!(!names(&moves_from(&p, "17q"))
        .iter()
        .any(|m| m.contains('*')));
    let p = setup(&[("17q", Black, Crossbow), ("16l", White, Pawn)], Black);
    assert!(names(&moves_from(&p, "17q")).contains(&"17q-16p*16l".to_string()));
    // a shield is immune to bows and blocks the line
    let p = setup(
        &[
            ("17q", Black, Longbow),
            ("16n", White, Shield),
            ("16m", White, Pawn),
        ],
        Black,
    );
    assert!(!names(&moves_from(&p, "17q"))
        .iter()
        .any(|m| m.contains('*')));
    // no shot after a capturing step (AMB-02)
    let p = setup(
        &[
            ("17q", Black, Longbow),
            ("16p", White, Pawn),
            ("16n", White, Pawn),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "17q"));
    assert!(n.contains(&"17qx16p".to_string()));
    assert!(!n.iter().any(|m| m.starts_with("17qx16p*")));
    let always = RulesOptions {
        shot_after_capture: ShotAfterCapture::Always,
        ..Default::default()
    };
    assert!(names(&moves_from_with(&p, "17q", &always)).contains(&"17qx16p*16n".to_string()));
    // the vacated origin does not block: LB 10j -> 9i, shoot back along the diagonal to 11k
    let p = setup(&[("10j", Black, Longbow), ("11k", White, Pawn)], Black);
    assert!(names(&moves_from(&p, "10j")).contains(&"10j-9i*11k".to_string()));
}

#[test]
fn cannon_shoots_over_screens_but_not_over_shield_units() {
    let p = setup(
        &[
            ("10j", Black, Cannon),
            ("9h", Black, Pawn),
            ("9g", White, Pawn),
            ("9f", White, Shield),
            ("9e", White, Pawn),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "10j"));
    // lands on 9i, targets along f: 9g (over own pawn), 9f (shields are fine for cannons), 9e (at 4)
    for t in ["9g", "9f", "9e"] {
        assert!(n.contains(&format!("10j-9i*{t}")), "{t}: {n:?}");
    }
    let p = setup(
        &[
            ("10j", Black, Cannon),
            ("9h", White, ShieldUnit),
            ("9g", White, Pawn),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "10j"));
    assert!(!n.contains(&"10j-9i*9g".to_string()));
    assert!(!n.contains(&"10j-9i*9h".to_string()));
}

#[test]
fn frankish_cannon_second_shot_may_hit_the_screened_piece() {
    let p = setup(
        &[
            ("10j", Black, FrankishCannon),
            ("9g", White, Pawn),
            ("9e", White, Pawn),
            ("5i", White, Pawn),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "10j"));
    assert!(n.contains(&"10j-9i*9g*9e".to_string()), "{n:?}");
    assert!(!n.contains(&"10j-9i*9e*9g".to_string()));
    assert!(!n.contains(&"10j-9i*9e".to_string()));
    // independent shots: ascending (rank, file): 9g (rank g) before 5i (rank i)
    assert!(n.contains(&"10j-9i*9g*5i".to_string()));
    assert!(!n.contains(&"10j-9i*5i*9g".to_string()));
    effects_unique(&moves_from(&p, "10j"));
}

#[test]
fn fog_suppresses_enemy_artillery_within_five_on_its_lines() {
    // White fog at 9d: Black FW landing on 9i is at line distance 5 -> no shots at all.
    let p = setup(
        &[
            ("10j", Black, FrankishCannon),
            ("9d", White, FiveLiFog),
            ("5i", White, Pawn),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "10j"));
    assert!(!n.iter().any(|m| m.starts_with("10j-9i*")), "{n:?}");
    assert!(n
        .iter()
        .any(|m| m.starts_with("11i") || m.starts_with("10j-11i*5i") || m.contains("*")));
    assert!(p.is_fog_suppressed(sq("9i"), Black));
    assert!(!p.is_fog_suppressed(sq("11i"), Black));
    // FW may shoot the fog from line distance 6 or 7
    let p = setup(
        &[("10j", Black, FrankishCannon), ("9c", White, FiveLiFog)],
        Black,
    );
    assert!(names(&moves_from(&p, "10j")).contains(&"10j-9i*9c".to_string()));
    // area reach (AMB-04): 11i is within Chebyshev 5 of 9d? |dx|=2, |dy|=5 -> yes
    let area = RulesOptions {
        fog_reach: Reach::Area,
        ..Default::default()
    };
    let p = setup(
        &[
            ("10j", Black, Longbow),
            ("9d", White, FiveLiFog),
            ("11h", White, Pawn),
        ],
        Black,
    );
    assert!(names(&moves_from(&p, "10j")).contains(&"10j-11i*11h".to_string()));
    assert!(!names(&moves_from_with(&p, "10j", &area)).contains(&"10j-11i*11h".to_string()));
}

#[test]
fn priests_jump_shoot_adjacent_and_only_displace_priests() {
    let p = setup(
        &[
            ("10j", Black, TaoistPriest),
            ("10h", White, Pawn),
            ("12h", White, SpiritualMonk),
            ("11g", White, ShieldUnit),
        ],
        Black,
    );
    let n = names(&moves_from(&p, "10j"));
    assert!(!n.iter().any(|m| m.starts_with("10jx10h")));
    assert!(n.contains(&"10jx12h".to_string()));
    assert!(n.contains(&"10jx12h*11g".to_string()), "{n:?}"); // shot after a capturing jump, no immunity
    assert!(n.contains(&"10j-10l".to_string()));
    // from 8h? 10j -> 8h lands next to nothing; 10j->10l no targets
    effects_unique(&moves_from(&p, "10j"));
}

#[test]
fn fog_and_lamp_double_moves_deduplicate_effects() {
    let p = setup(
        &[
            ("10j", Black, HolyLamp),
            ("10g", White, Pawn),
            ("12g", White, Pawn),
        ],
        Black,
    );
    let moves = moves_from(&p, "10j");
    effects_unique(&moves);
    let n = names(&moves);
    // single jump then shot
    assert!(n.contains(&"10j-10h*10g".to_string()));
    // two shots, one after each jump, listed after the legs in ascending (rank, file) order
    assert!(n.contains(&"10j-10h-12h*10g*12g".to_string()), "{n:?}");
    assert!(!n.iter().any(|m| m.contains("*12g*10g")));
    // a pass with a shot captures without moving
    assert!(n.contains(&"10j-10h-10j*10g".to_string()));
}

#[test]
fn nets_freeze_the_first_enemy_on_their_ranging_rays() {
    // White skyward net at 10e ranges (White frame) fl/fr = towards rank s diagonally, and l/r.
    let p = setup(
        &[
            ("10e", White, SkywardNet),
            ("13h", Black, Pawn),
            ("14i", Black, Pawn),
            ("5e", Black, Pawn),
            ("10g", Black, Pawn),
        ],
        Black,
    );
    assert!(p.is_immobilized(sq("13h")));
    assert!(!p.is_immobilized(sq("14i")), "behind the first piece");
    assert!(p.is_immobilized(sq("5e")));
    assert!(
        !p.is_immobilized(sq("10g")),
        "forward is not a ranging direction"
    );
    assert!(moves_from(&p, "13h").is_empty());
    assert!(!moves_from(&p, "14i").is_empty());
    let whole = RulesOptions {
        net_scope: NetScope::WholeRay,
        ..Default::default()
    };
    assert!(p.is_immobilized_with(sq("14i"), &whole));
    assert!(moves_from_with(&p, "14i", &whole).is_empty());
}

#[test]
fn zone_promotion_offers_a_choice_only_when_the_move_ends_in_the_zone() {
    let p = setup(&[("10h", Black, Chariot)], Black);
    let n = names(&moves_from(&p, "10h"));
    assert!(n.contains(&"10h-10g".to_string()));
    assert!(n.contains(&"10h-10f+".to_string()) && n.contains(&"10h-10f=".to_string()));
    // moving out of the zone: no choice by default; offered with start_or_end
    let p = setup(&[("10f", Black, Chariot)], Black);
    assert!(names(&moves_from(&p, "10f")).contains(&"10f-10g".to_string()));
    let so = RulesOptions {
        zone_trigger: ZoneTrigger::StartOrEnd,
        ..Default::default()
    };
    assert!(names(&moves_from_with(&p, "10f", &so)).contains(&"10f-10g+".to_string()));
    let eo = RulesOptions {
        zone_trigger: ZoneTrigger::EnterOnly,
        ..Default::default()
    };
    assert!(names(&moves_from_with(&p, "10f", &eo)).contains(&"10f-10e".to_string()));
    let mand = RulesOptions {
        zone_promotion: ZonePromotion::Mandatory,
        ..Default::default()
    };
    assert!(!names(&moves_from_with(&p, "10f", &mand))
        .iter()
        .any(|m| m.ends_with('=')));
    // already promoted pieces and never-promoting types: no choice
    let mut p = setup(
        &[("10h", Black, ChariotUnit), ("12h", Black, Elephant)],
        Black,
    );
    p.set_piece(
        sq("10h"),
        Some(Piece {
            color: Black,
            kind: ChariotUnit,
            promoted: true,
        }),
    );
    assert!(!names(&moves_from(&p, "10h"))
        .iter()
        .any(|m| m.ends_with('+') || m.ends_with('=')));
    assert!(!names(&moves_from(&p, "12h"))
        .iter()
        .any(|m| m.ends_with('+') || m.ends_with('=')));
    // the drum and banner cannot promote once the Taoist priest is lost
    let p = setup(&[("10g", Black, Drum)], Black);
    assert!(!names(&moves_from(&p, "10g"))
        .iter()
        .any(|m| m.ends_with('+')));
    let p = setup(&[("10g", Black, Drum), ("14s", Black, TaoistPriest)], Black);
    assert!(names(&moves_from(&p, "10g")).contains(&"10g-11f+".to_string()));
}

#[test]
fn capture_triggered_promotion_is_mandatory() {
    // rule 1: any promotable mover capturing MA
    let p = setup(
        &[("10j", Black, Chariot), ("10m", White, MiddleTroop)],
        Black,
    );
    let n = names(&moves_from(&p, "10j"));
    assert!(n.contains(&"10jx10m+".to_string()) && !n.contains(&"10jx10m".to_string()));
    // rule 2: a step mover capturing a wrestler; a non-step mover does not promote
    let p = setup(
        &[
            ("10j", Black, Pawn),
            ("10i", White, SumoWrestler),
            ("12j", Black, Chariot),
            ("12i", White, SumoWrestler),
            ("15s", Black, Drum),
        ],
        Black,
    );
    assert!(names(&moves_from(&p, "10j")).contains(&"10jx10i+".to_string()));
    assert!(names(&moves_from(&p, "12j")).contains(&"12jx12i".to_string()));
    // rule 3: horse soldier capturing the Frankish cannon
    let p = setup(
        &[("10j", Black, HorseSoldier), ("11h", White, FrankishCannon)],
        Black,
    );
    assert!(names(&moves_from(&p, "10j")).contains(&"10jx11h+".to_string()));
    let p = setup(
        &[
            ("10j", Black, HorseSoldier),
            ("11h", White, ChariotOfTheGods),
        ],
        Black,
    );
    assert!(names(&moves_from(&p, "10j")).contains(&"10jx11h".to_string()));
    // capturing a flag waver does not trigger rule 1 (AMB-13) for a non-step mover
    let p = setup(
        &[
            ("10j", Black, Chariot),
            ("10m", White, FlagWaver),
            ("3a", White, TaoistPriest),
        ],
        Black,
    );
    assert!(names(&moves_from(&p, "10j")).contains(&"10jx10m".to_string()));
    // shots count (AMB-31): a longbow shooting a drum promotes
    let p = setup(&[("17q", Black, Longbow), ("16m", White, Drum)], Black);
    assert!(names(&moves_from(&p, "17q")).contains(&"17q-16p*16m+".to_string()));
}

#[test]
fn cavalry_and_chariots_respect_displacement_restrictions() {
    let p = setup(
        &[("10j", Black, Chariot), ("10h", White, HeavenlyFortress)],
        Black,
    );
    assert!(!names(&moves_from(&p, "10j"))
        .iter()
        .any(|m| m.contains("x10h")));
    let p = setup(
        &[("10j", Black, Elephant), ("12h", White, HeavenlyFortress)],
        Black,
    );
    assert!(names(&moves_from(&p, "10j")).contains(&"10jx12h".to_string()));
    let no_disp = RulesOptions {
        artillery_displacement: false,
        ..Default::default()
    };
    let p = setup(&[("10j", Black, Longbow), ("11i", White, Pawn)], Black);
    assert!(names(&moves_from(&p, "10j")).contains(&"10jx11i".to_string()));
    assert!(!names(&moves_from_with(&p, "10j", &no_disp)).contains(&"10jx11i".to_string()));
}

#[test]
fn a_dead_side_has_no_moves() {
    let mut p = setup(&[("10j", Black, Chariot)], Black);
    p.set_piece(sq("2a"), None);
    assert!(p.legal_moves(&RulesOptions::default()).is_empty());
}

#[test]
fn passes_can_be_disabled() {
    let p = setup(&[("10j", Black, SumoWrestler)], Black);
    let opts = RulesOptions {
        allow_pass: false,
        ..Default::default()
    };
    assert_eq!(moves_from_with(&p, "10j", &opts).len(), 24);
}

#[test]
fn fortress_alternative_moves_like_a_flying_ox() {
    let p = setup(&[("10j", Black, HeavenlyFortress)], Black);
    let ox = RulesOptions {
        fortress_move: FortressMove::FlyingOx,
        ..Default::default()
    };
    let n = names(&moves_from_with(&p, "10j", &ox));
    assert!(n.contains(&"10j-10i".to_string()) && !n.contains(&"10j-9j".to_string()));
}

/// Throughput probe (not a timing assertion): `cargo test -p koshogi-rules --lib -- --ignored
/// --nocapture movegen_throughput`. The criterion bench in `benches/` is the reference figure.
#[test]
#[ignore]
fn movegen_throughput() {
    use rand::{Rng, SeedableRng};
    let opts = RulesOptions::default();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut positions = Vec::new();
    while positions.len() < 64 {
        let mut p = Position::startpos();
        let target = rng.random_range(40..160);
        for _ in 0..target {
            let moves = p.legal_moves(&opts);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            p.play(&mv, &opts);
        }
        if !p.legal_moves(&opts).is_empty() {
            positions.push(p);
        }
    }
    // CPU time of this thread (ns, from the scheduler), so that a loaded machine does not skew it.
    fn cpu_ns() -> u64 {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
            .unwrap_or(0)
    }
    let mut buf = Vec::with_capacity(1024);
    let cpu_start = cpu_ns();
    let mut all_moves = 0usize;
    let mut secs = f64::MAX; // best of 10 rounds: the machine is shared
    let mut total = 0usize;
    for _ in 0..10 {
        let start = std::time::Instant::now();
        total = 0;
        for _ in 0..100 {
            for p in &positions {
                buf.clear();
                p.generate_moves(&opts, &mut buf);
                total += buf.len();
            }
        }
        secs = secs.min(start.elapsed().as_secs_f64());
        all_moves += total;
    }
    let cpu_secs = (cpu_ns() - cpu_start) as f64 / 1e9;
    eprintln!(
        "mid-game, thread CPU time: {all_moves} moves in {cpu_secs:.3}s = {:.2} M moves/s",
        all_moves as f64 / cpu_secs / 1e6
    );
    eprintln!(
        "mid-game: {total} moves in {secs:.3}s = {:.2} M moves/s, avg {} moves/pos",
        total as f64 / secs / 1e6,
        total / (100 * positions.len())
    );
    let sp = Position::startpos();
    let start = std::time::Instant::now();
    let mut total = 0usize;
    for _ in 0..5000 {
        buf.clear();
        sp.generate_moves(&opts, &mut buf);
        total += buf.len();
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "startpos: {} moves/pos, {:.2} M moves/s",
        buf.len(),
        total as f64 / secs / 1e6
    );
}

#[test]
fn start_position_has_226_moves_counted_by_hand() {
    // Hand count from the diagram of §3.3, Black to move:
    // VA 5; rank n: CU 2×10 (7 free points + 19f/1f capture with +/= + one step back),
    // SU 3×4, CH 8×6, SP 6×4 = 104; rank o: PU 3×3, P 6×3 = 27; rank p: CA 2×2 (one leap +
    // pass), HS 8×2 = 20; rank q: E 20, C 6, SB 8, LB 6, FW 0 = 40; rank r: FH 2, Q 4, DU 4,
    // SN 2 = 12; rank s: EN 2, CS 4, GH 2, SR 4, WR 2×2 (step + pass), A 2 = 18.
    let p = Position::startpos();
    assert_eq!(
        p.legal_moves(&RulesOptions::default()).len(),
        5 + 104 + 27 + 20 + 40 + 12 + 18
    );
    let mut w = p.clone();
    w.set_side_to_move(White);
    assert_eq!(
        w.legal_moves(&RulesOptions::default()).len(),
        226,
        "White's army is Black's rotated"
    );
}

#[test]
fn option_switches_change_what_they_name() {
    // AMB-22: free-points range reaches one further
    let p = setup(&[("17q", Black, Longbow), ("16l", White, Pawn)], Black);
    let fp = RulesOptions {
        shot_range: ShotRange::FreePoints,
        ..Default::default()
    };
    assert!(names(&moves_from_with(&p, "17q", &fp)).contains(&"17q-16p*16l".to_string()));
    // AMB-31: shots do not trigger promotion
    let p = setup(&[("17q", Black, Longbow), ("16m", White, Drum)], Black);
    let no = RulesOptions {
        shots_trigger_promotion: false,
        ..Default::default()
    };
    assert!(names(&moves_from_with(&p, "17q", &no)).contains(&"17q-16p*16m".to_string()));
    // AMB-16: governor capture need not trigger rule 1
    let p = setup(&[("10j", Black, Chariot), ("10m", White, Governor)], Black);
    assert!(names(&moves_from(&p, "10j")).contains(&"10jx10m+".to_string()));
    let no = RulesOptions {
        governor_triggers_rule1: false,
        ..Default::default()
    };
    assert!(names(&moves_from_with(&p, "10j", &no)).contains(&"10jx10m".to_string()));
    // AMB-13: rule 1 may include TC/FL
    let p = setup(
        &[
            ("10j", Black, Chariot),
            ("10m", White, FlagWaver),
            ("3a", White, TaoistPriest),
        ],
        Black,
    );
    let yes = RulesOptions {
        rule1_includes_promoted: true,
        ..Default::default()
    };
    assert!(names(&moves_from_with(&p, "10j", &yes)).contains(&"10jx10m+".to_string()));
    // AMB-12: guards only through the cascade
    let p = setup(&[("10h", Black, AdvanceGuard)], Black);
    let co = RulesOptions {
        guards_promote: GuardsPromote::CascadeOnly,
        ..Default::default()
    };
    assert!(names(&moves_from(&p, "10h")).contains(&"10h-10f+".to_string()));
    assert!(!names(&moves_from_with(&p, "10h", &co))
        .iter()
        .any(|m| m.ends_with('+')));
    // AMB-09: until_friendly freezes enemies up to the net owner's own piece
    let p = setup(
        &[
            ("10e", White, SkywardNet),
            ("13h", Black, Pawn),
            ("14i", Black, Pawn),
            ("16k", White, Pawn),
            ("17l", Black, Pawn),
        ],
        Black,
    );
    let uf = RulesOptions {
        net_scope: NetScope::UntilFriendly,
        ..Default::default()
    };
    assert!(p.is_immobilized_with(sq("14i"), &uf));
    assert!(!p.is_immobilized_with(sq("17l"), &uf));
    // AMB-05: lamp reach blocked by a piece in between
    let mut q = setup(
        &[
            ("10h", Black, TaoistPriest),
            ("10b", White, HolyLamp),
            ("10d", White, Pawn),
        ],
        Black,
    );
    let blocked = RulesOptions {
        lamp_reach: Reach::LinesBlocked,
        ..Default::default()
    };
    let mv = q
        .legal_moves(&blocked)
        .into_iter()
        .find(|m| m.to_string() == "10h-10f+")
        .unwrap();
    q.play(&mv, &blocked);
    assert_eq!(q.piece_at(sq("10f")).unwrap().kind, FiveLiFog);
}

#[test]
fn commanding_piece_options() {
    let mut p = setup(
        &[
            ("10j", Black, MiddleTroop),
            ("11j", Black, FlagWaver),
            ("3s", Black, TaoistPriest),
        ],
        Black,
    );
    p.set_piece(sq("18s"), None);
    assert!(p.survives(Black, &RulesOptions::default()));
    let no = RulesOptions {
        promoted_banner_commands: false,
        ..Default::default()
    };
    assert!(!p.survives(Black, &no));
    let mut p = setup(
        &[("10j", Black, MiddleTroop), ("11j", Black, BannerAndDrum)],
        Black,
    );
    p.set_piece(sq("18s"), None);
    assert!(!p.survives(Black, &RulesOptions::default()));
    let kiko = RulesOptions {
        kiko_substitutes: true,
        ..Default::default()
    };
    assert!(p.survives(Black, &kiko));
    assert!(p.rests_on_sole_target(White, &kiko));
}

#[test]
fn burn_exemptions() {
    let mut p = setup(
        &[
            ("10j", Black, PoisonFlame),
            ("9h", White, TaoistPriest),
            ("11h", White, FiveLiFog),
            ("10h", White, Pawn),
        ],
        Black,
    );
    let opts = RulesOptions {
        burn_exempt: BurnExempt::PriestMonk,
        ..Default::default()
    };
    let mv = p
        .legal_moves(&opts)
        .into_iter()
        .find(|m| m.to_string() == "10j-10i")
        .unwrap();
    let u = p.play(&mv, &opts);
    assert!(
        p.piece_at(sq("9h")).is_some()
            && p.piece_at(sq("11h")).is_none()
            && p.piece_at(sq("10h")).is_none()
    );
    p.undo(u);
    let opts = RulesOptions {
        burn_exempt: BurnExempt::PriestFamily,
        ..Default::default()
    };
    p.play(&mv, &opts);
    assert!(
        p.piece_at(sq("9h")).is_some()
            && p.piece_at(sq("11h")).is_some()
            && p.piece_at(sq("10h")).is_none()
    );
}

/// A deliberately naive, independent enumeration of the effects of multi-leg pieces: walk every
/// path leg by leg on a copy of the board, collect (final point, removed set) — no de-duplication
/// tricks — and compare with the generator.
mod naive_multi_leg {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeSet;

    type Effect = (Square, Vec<Square>);

    fn at(_p: &Position, s: Square, df: i32, dr: i32) -> Option<Square> {
        Square::new(
            (s.file() as i32 + df).try_into().ok()?,
            (s.rank() as i32 + dr).try_into().ok()?,
        )
    }

    fn priest(k: PieceKind) -> bool {
        matches!(k, TaoistPriest | SpiritualMonk | FiveLiFog | HolyLamp)
    }

    /// Legs of `atoms` (Black-frame vectors), lion style, up to `max_legs`, optional stop.
    #[allow(clippy::too_many_arguments)] // a plain recursive walker reads best with explicit state
    fn walk(
        board: &mut Position,
        color: Color,
        from: Square,
        atoms: &[(i32, i32)],
        legs_left: usize,
        removed: &mut Vec<Square>,
        only_priests: bool,
        out: &mut BTreeSet<Effect>,
        shots_adjacent: bool,
    ) {
        let sign = if color == Black { 1 } else { -1 };
        for &(df, dr) in atoms {
            let Some(t) = at(board, from, sign * df, sign * dr) else {
                continue;
            };
            let there = board.piece_at(t);
            let captures = match there {
                None => false,
                Some(pc) if pc.color == color => continue,
                Some(pc) => {
                    if only_priests && !priest(pc.kind) {
                        continue;
                    }
                    true
                }
            };
            let saved = there;
            if captures {
                removed.push(t);
                board.set_piece(t, None);
            }
            let mut r = removed.clone();
            r.sort();
            out.insert((t, r));
            let mut shot_options: Vec<Option<Square>> = vec![None];
            if shots_adjacent {
                for (ddf, ddr) in super::KING {
                    if let Some(s) = at(board, t, ddf, ddr) {
                        if board.piece_at(s).is_some_and(|x| x.color != color) {
                            shot_options.push(Some(s));
                        }
                    }
                }
            }
            for shot in shot_options {
                let shot_piece = shot.and_then(|s| board.piece_at(s));
                if let Some(s) = shot {
                    removed.push(s);
                    board.set_piece(s, None);
                    let mut r = removed.clone();
                    r.sort();
                    out.insert((t, r));
                }
                if legs_left > 1 {
                    walk(
                        board,
                        color,
                        t,
                        atoms,
                        legs_left - 1,
                        removed,
                        only_priests,
                        out,
                        shots_adjacent,
                    );
                }
                if let Some(s) = shot {
                    removed.pop();
                    board.set_piece(s, shot_piece);
                }
            }
            if captures {
                removed.pop();
                board.set_piece(t, saved);
            }
        }
    }

    fn naive(p: &Position, o: Square) -> BTreeSet<Effect> {
        let pc = p.piece_at(o).unwrap();
        let mut board = p.clone();
        board.set_piece(o, None);
        let mut out = BTreeSet::new();
        let mut removed = vec![];
        let diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let orth = [(0, 1), (0, -1), (1, 0), (-1, 0)];
        let dab = [(0, 2), (0, -2), (2, 0), (-2, 0)];
        let alf = [(2, 2), (2, -2), (-2, 2), (-2, -2)];
        let c = pc.color;
        let mut rides: Vec<(i32, i32)> = vec![];
        match pc.kind {
            SumoWrestler => walk(
                &mut board,
                c,
                o,
                &KING,
                2,
                &mut removed,
                false,
                &mut out,
                false,
            ),
            DragonAscending => {
                walk(
                    &mut board,
                    c,
                    o,
                    &KING,
                    2,
                    &mut removed,
                    false,
                    &mut out,
                    false,
                );
                rides = KING.to_vec();
            }
            TigerWing => {
                walk(
                    &mut board,
                    c,
                    o,
                    &diag,
                    2,
                    &mut removed,
                    false,
                    &mut out,
                    false,
                );
                rides = orth.to_vec();
            }
            Warhawk => {
                walk(
                    &mut board,
                    c,
                    o,
                    &orth,
                    2,
                    &mut removed,
                    false,
                    &mut out,
                    false,
                );
                rides = diag.to_vec();
            }
            MasterAtArms => walk(
                &mut board,
                c,
                o,
                &[diag, dab].concat(),
                2,
                &mut removed,
                false,
                &mut out,
                false,
            ),
            BannerAndDrum => walk(
                &mut board,
                c,
                o,
                &[orth, alf].concat(),
                2,
                &mut removed,
                false,
                &mut out,
                false,
            ),
            WingedHorse => walk(
                &mut board,
                c,
                o,
                &KNIGHT,
                2,
                &mut removed,
                false,
                &mut out,
                false,
            ),
            Thunderclap => out = exactly_five(&mut board, c, o),
            Cavalry => {
                let sign = if c == Black { 1 } else { -1 };
                let land = |b: &Position, s: Square, v: (i32, i32)| -> Option<(Square, bool)> {
                    let t = at(b, s, sign * v.0, sign * v.1)?;
                    match b.piece_at(t) {
                        Some(x) if x.color == c => None,
                        x => Some((t, x.is_some())),
                    }
                };
                for v1 in KNIGHT {
                    let Some((a, cap1)) = land(&board, o, v1) else {
                        continue;
                    };
                    let mut r1 = if cap1 { vec![a] } else { vec![] };
                    out.insert((a, r1.clone()));
                    out.insert((o, r1.clone())); // return leap: igui or pass
                    let saved = board.piece_at(a);
                    board.set_piece(a, None);
                    for v2 in KNIGHT {
                        let same_major = if v1.0.abs() == 2 {
                            v2.0 == v1.0
                        } else {
                            v2.1 == v1.1
                        };
                        if !same_major {
                            continue;
                        }
                        if let Some((d, cap2)) = land(&board, a, v2) {
                            let mut r = r1.clone();
                            if cap2 {
                                r.push(d);
                            }
                            r.sort();
                            out.insert((d, r));
                        }
                    }
                    board.set_piece(a, saved);
                    r1.clear();
                }
            }
            FiveLiFog | HolyLamp => walk(
                &mut board,
                c,
                o,
                &[dab, alf].concat(),
                2,
                &mut removed,
                true,
                &mut out,
                true,
            ),
            _ => unreachable!(),
        }
        let sign = if c == Black { 1 } else { -1 };
        for (df, dr) in rides {
            let mut t = o;
            while let Some(n) = at(p, t, sign * df, sign * dr) {
                t = n;
                match p.piece_at(t) {
                    None => {
                        out.insert((t, vec![]));
                    }
                    Some(x) if x.color != c => {
                        out.insert((t, vec![t]));
                        break;
                    }
                    Some(_) => break,
                }
            }
        }
        out
    }

    fn exactly_five(board: &mut Position, c: Color, o: Square) -> BTreeSet<Effect> {
        fn rec(
            board: &mut Position,
            c: Color,
            at_: Square,
            depth: usize,
            removed: &mut Vec<Square>,
            out: &mut BTreeSet<Effect>,
        ) {
            if depth == 5 {
                let mut r = removed.clone();
                r.sort();
                out.insert((at_, r));
                return;
            }
            for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                let Some(t) = at(board, at_, df, dr) else {
                    continue;
                };
                match board.piece_at(t) {
                    Some(x) if x.color == c => continue,
                    Some(x) => {
                        removed.push(t);
                        board.set_piece(t, None);
                        rec(board, c, t, depth + 1, removed, out);
                        board.set_piece(t, Some(x));
                        removed.pop();
                    }
                    None => rec(board, c, t, depth + 1, removed, out),
                }
            }
        }
        let mut out = BTreeSet::new();
        rec(board, c, o, 0, &mut vec![], &mut out);
        out
    }

    #[test]
    fn generator_matches_naive_path_enumeration() {
        let kinds = [
            SumoWrestler,
            DragonAscending,
            TigerWing,
            Warhawk,
            MasterAtArms,
            BannerAndDrum,
            WingedHorse,
            Thunderclap,
            FiveLiFog,
            HolyLamp,
            Cavalry,
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
        let opts = RulesOptions::default();
        for round in 0..400 {
            let kind = kinds[round % kinds.len()];
            let color = if rng.random_bool(0.5) { Black } else { White };
            let o = Square::new(rng.random_range(4..=16), rng.random_range(4..=16)).unwrap();
            let mut p = setup(&[(&o.to_string(), color, kind)], color);
            // keep a Taoist priest far away so that a thunderclap does not revert mid-test
            p.set_piece(sq("19a"), Some(Piece::new(Black, TaoistPriest)));
            p.set_piece(sq("1s"), Some(Piece::new(White, TaoistPriest)));
            for _ in 0..rng.random_range(5..40) {
                let s = Square::new(
                    o.file().saturating_sub(5).max(1) + rng.random_range(0..11),
                    o.rank().saturating_sub(5).max(1) + rng.random_range(0..11),
                );
                let Some(s) = s else { continue };
                if s == o || p.piece_at(s).is_some() {
                    continue;
                }
                let k = if rng.random_bool(0.2) {
                    [TaoistPriest, SpiritualMonk, FiveLiFog, HolyLamp][rng.random_range(0..4)]
                } else {
                    [Pawn, Shield, Elephant, Chariot][rng.random_range(0..4)]
                };
                let c = if rng.random_bool(0.5) { Black } else { White };
                p.set_piece(s, Some(Piece::new(c, k)));
            }
            let mut expected = naive(&p, o);
            if !opts.allow_pass {
                expected.remove(&(o, vec![]));
            }
            let got: BTreeSet<Effect> = moves_from(&p, &o.to_string())
                .iter()
                .filter(|m| m.promotion() != Promotion::Decline)
                .map(|m| (m.destination(), m.removed_points()))
                .collect();
            let missing: Vec<_> = expected.difference(&got).collect();
            let extra: Vec<_> = got.difference(&expected).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{kind:?} at {o} in {p:?}\nmissing {missing:?}\nextra {extra:?}"
            );
            assert_eq!(
                got.len(),
                moves_from(&p, &o.to_string())
                    .iter()
                    .filter(|m| m.promotion() != Promotion::Decline)
                    .count()
            );
        }
    }
}

/// Naive re-statement of §4.7 / §7.2 for the artillery, compared with the generator's shooting
/// moves on random clutter (immune pieces, screens, fogs).
mod naive_shots {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeSet;

    fn may_shoot(shooter: PieceKind, target: PieceKind, dist: i32) -> bool {
        let bow = matches!(
            shooter,
            Longbow | LongbowCavalry | Crossbow | CrossbowCavalry
        );
        let cannon = matches!(shooter, Cannon | WarCart);
        match target {
            ShieldUnit | HeavenlyFortress => false,
            FiveLiFog => matches!(shooter, FrankishCannon | ChariotOfTheGods) && dist >= 6,
            Shield | Chariot | ChariotUnit | WarCart | ChariotOfTheGods => !bow,
            _ => {
                let _ = cannon;
                true
            }
        }
    }

    fn step(s: Square, d: (i32, i32), k: i32) -> Option<Square> {
        Square::new(
            (s.file() as i32 + d.0 * k).try_into().ok()?,
            (s.rank() as i32 + d.1 * k).try_into().ok()?,
        )
    }

    /// Direct targets from `l` on `board` (origin already emptied).
    fn direct(board: &Position, me: Color, kind: PieceKind, l: Square, range: i32) -> Vec<Square> {
        let mut v = vec![];
        for d in KING {
            for k in 1..=range {
                let Some(t) = step(l, d, k) else { break };
                if let Some(pc) = board.piece_at(t) {
                    if pc.color != me && may_shoot(kind, pc.kind, k) {
                        v.push(t);
                    }
                    break;
                }
            }
        }
        v
    }

    fn cannon(board: &Position, me: Color, kind: PieceKind, l: Square) -> Vec<Square> {
        let mut v = vec![];
        for d in KING {
            for k in 1..=5 {
                let Some(t) = step(l, d, k) else { break };
                if let Some(pc) = board.piece_at(t) {
                    if matches!(pc.kind, ShieldUnit | HeavenlyFortress) {
                        break;
                    }
                    if pc.color != me && may_shoot(kind, pc.kind, k) {
                        v.push(t);
                    }
                }
            }
        }
        v
    }

    fn suppressed(board: &Position, me: Color, l: Square) -> bool {
        KING.iter().any(|&d| {
            (1..=5).any(|k| {
                step(l, d, k)
                    .and_then(|t| board.piece_at(t))
                    .is_some_and(|pc| pc.color != me && pc.kind == FiveLiFog)
            })
        })
    }

    fn naive(p: &Position, o: Square) -> BTreeSet<(Square, Vec<Square>)> {
        let pc = p.piece_at(o).unwrap();
        let me = pc.color;
        let sign = if me == Black { 1 } else { -1 };
        let mut board = p.clone();
        board.set_piece(o, None);
        let landings: Vec<Square> = match pc.kind {
            Longbow | Crossbow | Cannon | FrankishCannon => [(1, 1), (1, -1), (-1, 1), (-1, -1)]
                .iter()
                .filter_map(|&d| step(o, d, 1))
                .collect(),
            LongbowCavalry | CrossbowCavalry => KNIGHT
                .iter()
                .filter_map(|&d| step(o, (sign * d.0, sign * d.1), 1))
                .collect(),
            _ => {
                let mut v = vec![];
                for d in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                    for k in 1..=5 {
                        let Some(t) = step(o, d, k) else { break };
                        if board.piece_at(t).is_some() {
                            break;
                        }
                        v.push(t);
                    }
                }
                v
            }
        };
        let mut out = BTreeSet::new();
        for l in landings {
            if board.piece_at(l).is_some() || suppressed(&board, me, l) {
                continue;
            }
            match pc.kind {
                Longbow | LongbowCavalry => {
                    direct(&board, me, pc.kind, l, 3).into_iter().for_each(|t| {
                        out.insert((l, vec![t]));
                    })
                }
                Crossbow | CrossbowCavalry => {
                    direct(&board, me, pc.kind, l, 5).into_iter().for_each(|t| {
                        out.insert((l, vec![t]));
                    })
                }
                Cannon | WarCart => cannon(&board, me, pc.kind, l).into_iter().for_each(|t| {
                    out.insert((l, vec![t]));
                }),
                _ => {
                    for t1 in direct(&board, me, pc.kind, l, 7) {
                        out.insert((l, vec![t1]));
                        let mut b2 = board.clone();
                        b2.set_piece(t1, None);
                        for t2 in direct(&b2, me, pc.kind, l, 7) {
                            let mut r = vec![t1, t2];
                            r.sort();
                            out.insert((l, r));
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn generator_shots_match_naive_enumeration() {
        let shooters = [
            Longbow,
            Crossbow,
            Cannon,
            FrankishCannon,
            LongbowCavalry,
            CrossbowCavalry,
            WarCart,
            ChariotOfTheGods,
        ];
        let clutter = [
            Pawn,
            Shield,
            ShieldUnit,
            HeavenlyFortress,
            Chariot,
            ChariotUnit,
            WarCart,
            ChariotOfTheGods,
            FiveLiFog,
            Elephant,
            SumoWrestler,
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4242);
        let (mut shooting_moves, mut double_shots) = (0, 0);
        for round in 0..600 {
            let kind = shooters[round % shooters.len()];
            let color = if rng.random_bool(0.5) { Black } else { White };
            let o = Square::new(rng.random_range(3..=17), rng.random_range(7..=13)).unwrap();
            let mut p = setup(&[(&o.to_string(), color, kind)], color);
            for _ in 0..rng.random_range(5..45) {
                let s = Square::new(
                    rng.random_range(1..=19),
                    o.rank().saturating_sub(8).max(1) + rng.random_range(0..17),
                );
                let Some(s) = s else { continue };
                if s == o || p.piece_at(s).is_some() {
                    continue;
                }
                let mut k = clutter[rng.random_range(0..clutter.len())];
                if k == FiveLiFog && rng.random_bool(0.7) {
                    k = Pawn;
                }
                let c = if rng.random_bool(0.6) {
                    color.opposite()
                } else {
                    color
                };
                p.set_piece(s, Some(Piece::new(c, k)));
            }
            let expected = naive(&p, o);
            shooting_moves += expected.len();
            double_shots += expected.iter().filter(|e| e.1.len() == 2).count();
            let got: BTreeSet<(Square, Vec<Square>)> = moves_from(&p, &o.to_string())
                .iter()
                .filter(|m| !m.shots().is_empty() && m.promotion() != Promotion::Decline)
                .map(|m| (m.destination(), m.removed_points()))
                .collect();
            let missing: Vec<_> = expected.difference(&got).collect();
            let extra: Vec<_> = got.difference(&expected).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{kind:?} at {o} in {p:?}\nmissing {missing:?}\nextra {extra:?}"
            );
        }
        assert!(
            shooting_moves > 1000 && double_shots > 100,
            "{shooting_moves} {double_shots}"
        );
    }
}

#[test]
fn bulk_immobilized_points_agree_with_the_per_point_query() {
    let p = setup(
        &[
            ("10e", White, SkywardNet),
            ("13h", Black, Pawn),
            ("14i", Black, Pawn),
            ("5e", Black, Pawn),
            ("10m", Black, EarthwardNet),
            ("7j", White, Pawn),
        ],
        Black,
    );
    let opts = RulesOptions::default();
    let bulk = p.immobilized_points(Black, &opts);
    let single: Vec<Square> = Square::all()
        .filter(|s| p.piece_at(*s).is_some_and(|x| x.color == Black) && p.is_immobilized(*s))
        .collect();
    assert_eq!(bulk, single);
    assert_eq!(bulk, vec![sq("5e"), sq("13h")]);
    // Black's earthward net at 10m ranges (Black frame) bl/br towards rank s and l/r: 7j is not on them
    assert!(p.immobilized_points(White, &opts).is_empty());
}

#[test]
fn stationary_shooting_alternatives() {
    let p = setup(
        &[
            ("17q", Black, Longbow),
            ("17n", White, Pawn),
            ("16m", White, Pawn),
        ],
        Black,
    );
    let default = names(&moves_from(&p, "17q"));
    assert!(default.contains(&"17q-16p*16m".to_string()));
    assert!(!default.iter().any(|m| m.starts_with("17q*")));
    let st = RulesOptions {
        shoot_mode: ShootMode::StationaryOnly,
        ..Default::default()
    };
    let n = names(&moves_from_with(&p, "17q", &st));
    assert!(n.contains(&"17q*17n".to_string()), "{n:?}");
    assert!(!n.iter().any(|m| m.contains('-') && m.contains('*')));
    let either = RulesOptions {
        shoot_mode: ShootMode::Either,
        ..Default::default()
    };
    let n = names(&moves_from_with(&p, "17q", &either));
    assert!(n.contains(&"17q*17n".to_string()) && n.contains(&"17q-16p*16m".to_string()));
    // the stationary shot removes the target and leaves the shooter in place
    let mut q = p.clone();
    let mv = q
        .legal_moves(&st)
        .into_iter()
        .find(|m| m.to_string() == "17q*17n")
        .unwrap();
    assert_eq!(mv.destination(), sq("17q"));
    let u = q.play(&mv, &st);
    assert_eq!(q.piece_at(sq("17n")), None);
    assert_eq!(q.piece_at(sq("17q")).unwrap().kind, Longbow);
    q.undo(u);
    assert_eq!(q, p);
    // priests shoot an adjacent piece without jumping
    let p = setup(&[("10j", Black, TaoistPriest), ("10i", White, Pawn)], Black);
    assert!(names(&moves_from_with(&p, "10j", &st)).contains(&"10j*10i".to_string()));
    assert!(!names(&moves_from_with(&p, "10j", &st))
        .iter()
        .any(|m| m.contains('-') && m.contains('*')));
}

#[test]
fn stationary_shot_of_a_lamp_is_not_duplicated_by_a_pass_with_a_shot() {
    let p = setup(
        &[
            ("10j", Black, HolyLamp),
            ("10i", White, Pawn),
            ("11i", White, Pawn),
        ],
        Black,
    );
    let either = RulesOptions {
        shoot_mode: ShootMode::Either,
        ..Default::default()
    };
    let moves = moves_from_with(&p, "10j", &either);
    let mut seen = HashSet::new();
    for m in &moves {
        assert!(
            seen.insert((m.destination(), m.removed_points())),
            "duplicate {m}"
        );
    }
    let n = names(&moves);
    assert!(n.contains(&"10j*10i".to_string()));
    assert!(!n.contains(&"10j-10h-10j*10i".to_string()));
}

/// §5.12a row by row, with directions by name (owner-relative, §1.4), for both sides.
#[test]
fn destination_sets_follow_the_compact_movement_table() {
    fn vec_of(dir: &str) -> (i32, i32) {
        match dir {
            "f" => (0, -1),
            "b" => (0, 1),
            "l" => (1, 0),
            "r" => (-1, 0),
            "fl" => (1, -1),
            "fr" => (-1, -1),
            "bl" => (1, 1),
            "br" => (-1, 1),
            _ => unreachable!(),
        }
    }
    // (kind, single-step directions, ranging directions with limit; 0 = unlimited)
    let table: [(PieceKind, &str, &str, u8); 27] = [
        (General, "f b l r fl fr bl br", "", 0),
        (Drum, "fl fr bl br l r", "", 0),
        (Sentry, "b l r fl fr bl br", "", 0),
        (AideDeCamp, "f l r fl fr bl br", "", 0),
        (Aide, "f b l r fl fr", "", 0),
        (Staff, "f fl fr bl br", "", 0),
        (ChiefOfStaff, "f b fl fr bl br", "", 0),
        (Engineer, "f fl fr b", "", 0),
        (AdvanceGuard, "b", "f", 0),
        (SkywardNet, "b", "fl fr l r", 0),
        (RearGuard, "f", "b", 0),
        (EarthwardNet, "f", "bl br l r", 0),
        (Millenary, "", "f b l r fl fr bl br", 0),
        (Quartermaster, "fl fr bl br", "f b l r", 0),
        (Centuria, "f b l r", "fl fr bl br", 0),
        (Elephant, "", "fl fr bl br", 0),
        (TownBrigade, "f b l r fl fr bl br", "f b", 0),
        (VillageBrigade, "f b l r fl fr bl br", "l r", 0),
        (Deputy, "", "fl fr bl br f", 0),
        (Pawn, "f b l r", "", 0),
        (PatrolUnit, "l r", "f b", 0),
        (Commissar, "", "fl fr bl br f b", 0),
        (Vanguard, "", "f", 5),
        (Shield, "fl fr bl br", "", 0),
        (ShieldUnit, "fl fr bl br", "l r", 0),
        (HeavenlyFortress, "", "fl fr bl br l r", 0),
        (Chariot, "", "f b l r", 5),
    ];
    for color in [Black, White] {
        let sign = if color == Black { 1 } else { -1 };
        for (kind, steps, ranges, limit) in table {
            let mut expected = std::collections::BTreeSet::new();
            for d in steps.split_whitespace().map(vec_of) {
                expected
                    .insert(Square::new((10 + sign * d.0) as u8, (10 + sign * d.1) as u8).unwrap());
            }
            for d in ranges.split_whitespace().map(vec_of) {
                let max = if limit == 0 { 18 } else { limit as i32 };
                for k in 1..=max {
                    match Square::new((10 + sign * d.0 * k) as u8, (10 + sign * d.1 * k) as u8) {
                        Some(s) => expected.insert(s),
                        None => break,
                    };
                }
            }
            // the setup's generals stand on 18s and 2a, off every line through 10j
            let mut pieces = vec![("10j", color, kind)];
            if kind == Pawn {
                pieces.push(if color == Black {
                    ("15s", Black, Drum)
                } else {
                    ("5a", White, Drum)
                });
            }
            let p = setup(&pieces, color);
            let got: std::collections::BTreeSet<Square> = moves_from(&p, "10j")
                .iter()
                .map(|m| m.destination())
                .collect();
            assert_eq!(got, expected, "{kind:?} for {color:?}");
        }
    }
}

#[test]
fn cavalry_promoting_mid_move_continues_as_a_winged_horse() {
    // CA on 10j captures White's middle troop on 11h (forward-major leap), then leaps on.
    let p = setup(
        &[("10j", Black, Cavalry), ("11h", White, MiddleTroop)],
        Black,
    );
    let default = names(&moves_from(&p, "10j"));
    // default: second leap only forward-major (12f, 10f) or back to 10j
    assert!(
        default.contains(&"10jx11h-12f+".to_string())
            && default.contains(&"10jx11h-10j+".to_string())
    );
    assert!(!default.contains(&"10jx11h-13i+".to_string()));
    let mid = RulesOptions {
        promote_mid_move: true,
        ..Default::default()
    };
    let n = names(&moves_from_with(&p, "10j", &mid));
    assert!(n.contains(&"10jx11h-13i+".to_string()), "{n:?}");
    // a first leap that does not promote keeps the same-major restriction
    assert!(!n.contains(&"10j-9h-11i".to_string()) && !n.contains(&"10j-9h-11i+".to_string()));
}
