//! Move-generation tests derived from the rules reference (§4–§8, §11.2, §12) that are code:
//! counts derived from a piece's legs, properties of every generated move and independent naive
//! enumerations compared with the generator.
//!
//! Reference positions with the moves expected from them are data, not Rust:
//! `data/rules/movegen/` (format in `data/README.md`), run by `tests/movegen_fixtures.rs`; so is
//! §5.12a's movement table, row by row (`data/rules/movement_table.txt`, run by
//! `tests/movement_table.rs`).

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
    assert_eq!(
        alone(BannerAndDrum, "10j"),
        lion_reach(&[orth.clone(), alf.to_vec()].concat())
    );
    assert_eq!(alone(WingedHorse, "10j"), lion_reach(&KNIGHT));
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

/// A stationary shot (`shoot_mode = stationary_only`, AMB-01) has no legs: it ends on its
/// origin. What it removes and leaves is in `data/rules/movegen/shots.cases`.
#[test]
fn a_stationary_shot_ends_on_its_origin() {
    let p = setup(
        &[
            ("17q", Black, Longbow),
            ("17n", White, Pawn),
            ("16m", White, Pawn),
        ],
        Black,
    );
    let st = RulesOptions {
        shoot_mode: ShootMode::StationaryOnly,
        ..Default::default()
    };
    let mv = p
        .legal_moves(&st)
        .into_iter()
        .find(|m| m.to_string() == "17q*17n")
        .unwrap();
    assert_eq!(mv.destination(), sq("17q"));
    assert!(mv.legs().is_empty());
}
