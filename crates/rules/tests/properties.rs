//! Properties checked over seeded random playouts from the start position: make/undo restores the
//! position exactly, the incremental hash equals a recomputed one, KSFEN round-trips, no two
//! generated moves have the same effect (§4.10), and both notations round-trip
//! (format → parse gives the same move). Nothing may panic.
//!
//! `KOSHOGI_PLAYOUTS` (default 60) and `KOSHOGI_PLAYOUT_PLIES` (default 400) scale the run; e.g.
//! `KOSHOGI_PLAYOUTS=3000 cargo test -p koshogi-rules --test properties` for a long soak.

mod common;

use std::collections::HashSet;

use koshogi_rules::notation::{format_hodges, parse_canonical, parse_hodges};
use koshogi_rules::{FlameMode, Game, Move, Position, RulesOptions, Square};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The effect key of §4.10.
fn effect(m: &Move) -> (Square, Square, Vec<Square>, koshogi_rules::Promotion) {
    (
        m.origin(),
        m.destination(),
        m.removed_points(),
        m.promotion(),
    )
}

/// Checks every property on one position and its legal moves.
fn check_position(
    pos: &Position,
    legal: &[Move],
    opts: &RulesOptions,
    check_hodges: bool,
    context: &str,
) {
    // KSFEN round trip of the position itself.
    let text = pos.to_ksfen(true);
    let back = Position::from_ksfen(&text)
        .unwrap_or_else(|e| panic!("{context}: own KSFEN rejected: {e}\n{text}"));
    assert_eq!(back.to_ksfen(true), text, "{context}");
    assert_eq!(
        back.hash(),
        pos.hash(),
        "{context}: hash after KSFEN round trip"
    );
    assert_eq!(
        pos.hash(),
        pos.compute_hash(),
        "{context}: incremental hash"
    );

    let mut seen = HashSet::new();
    for (i, mv) in legal.iter().enumerate() {
        assert!(
            seen.insert(effect(mv)),
            "{context}: two moves with the effect of {mv}"
        );
        // Canonical notation round trip.
        let name = mv.to_string();
        let parsed = parse_canonical(pos, legal, &name)
            .unwrap_or_else(|e| panic!("{context}: cannot parse own move {name}: {e}"));
        assert_eq!(parsed, *mv, "{context}: canonical round trip of {name}");
        if check_hodges {
            let h = format_hodges(pos, legal, mv);
            let parsed = parse_hodges(pos, legal, &h)
                .unwrap_or_else(|e| panic!("{context}: cannot parse Hodges {h} ({name}): {e}"));
            assert_eq!(parsed, *mv, "{context}: Hodges round trip {h} of {name}");
        }
        // Make / unmake.
        let mut after = pos.clone();
        let undo = after.play(mv, opts);
        assert_eq!(
            after.hash(),
            after.compute_hash(),
            "{context}: incremental hash after {name}"
        );
        assert_ne!(
            after.side_to_move(),
            pos.side_to_move(),
            "{context}: {name} passes the turn"
        );
        // Text round trips cost more than make/undo: a sample of the successors.
        if i % 5 == 0 {
            let text = after.to_ksfen(true);
            let back = Position::from_ksfen(&text)
                .unwrap_or_else(|e| panic!("{context}: KSFEN after {name} rejected: {e}\n{text}"));
            assert_eq!(
                back.hash(),
                after.hash(),
                "{context}: hash of re-read KSFEN after {name}"
            );
        }
        // A pass leaves the board as it was, and only a pass does (but for a stationary enemy
        // flame burning the passer under `flame_mode = tenjiku_like`).
        if opts.flame_mode == FlameMode::ActiveOnly {
            assert_eq!(
                mv.is_pass(),
                after.pieces().eq(pos.pieces()),
                "{context}: {name} is_pass"
            );
        }
        after.undo(undo);
        assert!(
            after == *pos,
            "{context}: undo of {name} does not restore the position"
        );
        assert_eq!(after.hash(), pos.hash());
    }
}

#[test]
fn random_playouts_keep_every_invariant() {
    let playouts = common::playouts() as usize;
    let max_plies = common::env_count("KOSHOGI_PLAYOUT_PLIES", 400) as usize;
    let opts = RulesOptions::default();
    let mut total_positions = 0usize;
    let mut finished = 0usize;
    for seed in 0..playouts as u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut game = Game::new(opts);
        let mut legal = Vec::new();
        for ply in 0..max_plies {
            if game.outcome().is_some() {
                finished += 1;
                break;
            }
            game.generate_legal_moves(&mut legal);
            if legal.is_empty() {
                break;
            }
            // Full checks on a sample of plies keep the default run short; Hodges (quadratic in
            // the number of moves) on fewer.
            if ply % 4 == 0 {
                let context = format!("seed {seed} ply {ply}");
                check_position(game.position(), &legal, &opts, ply % 12 == 0, &context);
                total_positions += 1;
            }
            let mv = legal[rng.random_range(0..legal.len())];
            game.play(mv);
        }
        // Undo the whole game back to the start.
        while game.undo().is_some() {}
        assert!(
            *game.position() == Position::startpos(),
            "seed {seed}: undoing the game does not reach the start"
        );
    }
    assert!(
        total_positions > playouts,
        "checked {total_positions} positions"
    );
    eprintln!("checked {total_positions} positions in {playouts} playouts ({finished} reached a game end)");
}

/// Playouts with non-default rule switches must keep the same invariants.
#[test]
fn playouts_under_alternative_rules_keep_the_invariants() {
    let variants = [
        r#"{"fog_reach":"area","lamp_reach":"lines_blocked","net_scope":"whole_ray","thunderclap":"kosho"}"#,
        r#"{"zone_trigger":"start_or_end","zone_promotion":"mandatory","allow_pass":false,"burn_friendly":false}"#,
        r#"{"shot_after_capture":"always","artillery_displacement":false,"shot_range":"free_points","fortress_move":"flying_ox"}"#,
        r#"{"shoot_mode":"either","flame_mode":"tenjiku_like","rule1_includes_promoted":true,"kiko_substitutes":true}"#,
        r#"{"shoot_mode":"stationary_only","burn_exempt":"priest_family","guards_promote":"cascade_only","promoted_banner_commands":false}"#,
    ];
    let playouts = (common::playouts() as usize).div_ceil(10);
    for (v, json) in variants.iter().enumerate() {
        let opts: RulesOptions = serde_json::from_str(json).expect("valid options");
        for seed in 0..playouts as u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(1000 + seed);
            let mut game = Game::new(opts);
            for ply in 0..300 {
                if game.outcome().is_some() {
                    break;
                }
                let legal = game.legal_moves();
                if legal.is_empty() {
                    break;
                }
                if ply % 5 == 0 {
                    check_position(
                        game.position(),
                        &legal,
                        &opts,
                        ply % 20 == 0,
                        &format!("variant {v} seed {seed} ply {ply}"),
                    );
                }
                game.play(legal[rng.random_range(0..legal.len())]);
            }
        }
    }
}
