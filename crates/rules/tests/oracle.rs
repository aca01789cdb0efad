//! An independent, deliberately naive reading of the movement rules (§4.2–§4.6, §5, §7.1, §4.9,
//! §8.7, §10.1), written from the reference text without looking at the engine: for every piece
//! of the side to move it computes the set of points the piece can end its move on. The engine's
//! legal moves must end on exactly those points, over positions from seeded random playouts.
//!
//! Shots, promotion choices and effect de-duplication do not change where a piece can end its
//! move, so they are left to the hand-made tests; this oracle covers the geometry of all 57 types.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{ksfen, playouts};

use koshogi_rules::{Color, Game, Piece, Position, RulesOptions, Square};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Owner-relative vector: (left, forward).
type Rel = (i32, i32);

const F: Rel = (0, 1);
const B: Rel = (0, -1);
const L: Rel = (1, 0);
const R: Rel = (-1, 0);
const FL: Rel = (1, 1);
const FR: Rel = (-1, 1);
const BL: Rel = (1, -1);
const BR: Rel = (-1, -1);
const ORTH: [Rel; 4] = [F, B, L, R];
const DIAG: [Rel; 4] = [FL, FR, BL, BR];
const KING: [Rel; 8] = [F, B, L, R, FL, FR, BL, BR];
const DABBABA: [Rel; 4] = [(0, 2), (0, -2), (2, 0), (-2, 0)];
const ALFIL: [Rel; 4] = [(2, 2), (-2, 2), (2, -2), (-2, -2)];
const KNIGHT: [Rel; 8] = common::KNIGHT_JUMPS;

/// How one type moves (§5.12a), in the owner's frame.
#[derive(Default)]
struct Moves {
    steps: Vec<Rel>,
    jumps: Vec<Rel>,
    /// (direction, limit); `None` = unlimited.
    ranges: Vec<(Rel, Option<i32>)>,
    /// Leg atoms of a two-leg lion move (each leg any of these, may stop after one).
    lion: Vec<Rel>,
    cavalry: bool,
    thunderclap: bool,
    flag_waver: bool,
}

fn ranges(dirs: &[Rel], limit: Option<i32>) -> Vec<(Rel, Option<i32>)> {
    dirs.iter().map(|&d| (d, limit)).collect()
}

fn cat(parts: &[&[Rel]]) -> Vec<Rel> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

fn moves_of(code: &str, has_drum: bool) -> Moves {
    let mut m = Moves::default();
    match code {
        "G" | "MA" | "GV" => m.steps = KING.to_vec(),
        "D" | "B" => m.steps = cat(&[&DIAG, &[L, R]]),
        "SN" => m.steps = cat(&[&DIAG, &[B, L, R]]),
        "A" => m.steps = cat(&[&DIAG, &[F, L, R]]),
        "SR" => m.steps = cat(&[&ORTH, &[FL, FR]]),
        "GH" => m.steps = cat(&[&DIAG, &[F]]),
        "CS" => m.steps = cat(&[&DIAG, &[F, B]]),
        "EN" | "PF" => m.steps = vec![F, FL, FR, B],
        "SC" => {
            m.steps = DIAG.to_vec();
            m.jumps = DABBABA.to_vec();
        }
        "PL" => {
            m.steps = ORTH.to_vec();
            m.jumps = ALFIL.to_vec();
        }
        "TB" | "SM" => m.jumps = cat(&[&DABBABA, &ALFIL]),
        "FD" => {
            m.ranges = ranges(&[F], None);
            m.steps = vec![B];
        }
        "SK" => {
            m.ranges = ranges(&[FL, FR, L, R], None);
            m.steps = vec![B];
        }
        "R" => {
            m.ranges = ranges(&[B], None);
            m.steps = vec![F];
        }
        "EW" => {
            m.ranges = ranges(&[BL, BR, L, R], None);
            m.steps = vec![F];
        }
        "DU" => m.ranges = ranges(&KING, None),
        "Q" => {
            m.ranges = ranges(&ORTH, None);
            m.steps = DIAG.to_vec();
        }
        "FH" => {
            m.ranges = ranges(&DIAG, None);
            m.steps = ORTH.to_vec();
        }
        "E" => m.ranges = ranges(&DIAG, None),
        "TN" => {
            m.ranges = ranges(&[F, B], None);
            m.steps = KING.to_vec();
        }
        "VB" => {
            m.ranges = ranges(&[L, R], None);
            m.steps = KING.to_vec();
        }
        "DP" => m.ranges = ranges(&[FL, FR, BL, BR, F], None),
        "LB" | "SB" | "C" | "FW" | "SP" => m.steps = DIAG.to_vec(),
        "LC" | "CC" | "HS" => m.jumps = KNIGHT.to_vec(),
        "WC" | "CG" | "CH" => m.ranges = ranges(&ORTH, Some(5)),
        "CU" => m.ranges = ranges(&ORTH, None),
        "P" => {
            m.steps = if has_drum {
                ORTH.to_vec()
            } else {
                vec![B, L, R]
            }
        }
        "PU" => {
            m.ranges = ranges(&[F, B], None);
            m.steps = vec![L, R];
        }
        "CM" => m.ranges = ranges(&[FL, FR, BL, BR, F, B], None),
        "VA" => m.ranges = ranges(&[F], Some(5)),
        "SU" => {
            m.ranges = ranges(&[L, R], None);
            m.steps = DIAG.to_vec();
        }
        "HF" => m.ranges = ranges(&[FL, FR, BL, BR, L, R], None),
        "WR" => m.lion = KING.to_vec(),
        "DR" => {
            m.ranges = ranges(&KING, None);
            m.lion = KING.to_vec();
        }
        "TW" => {
            m.ranges = ranges(&ORTH, None);
            m.lion = DIAG.to_vec();
        }
        "HK" => {
            m.ranges = ranges(&DIAG, None);
            m.lion = ORTH.to_vec();
        }
        "AM" => m.lion = cat(&[&DIAG, &DABBABA]),
        "BD" => m.lion = cat(&[&ORTH, &ALFIL]),
        "WH" => m.lion = KNIGHT.to_vec(),
        "FG" | "HL" => m.lion = cat(&[&DABBABA, &ALFIL]),
        "CA" => m.cavalry = true,
        "TC" => m.thunderclap = true,
        "FL" => m.flag_waver = true,
        other => panic!("oracle does not know {other}"),
    }
    m
}

/// §7.1: may `mover` displace `target`?
fn may_displace(mover: &str, target: &str) -> bool {
    const PRIESTS: [&str; 4] = ["TB", "SM", "FG", "HL"];
    if PRIESTS.contains(&mover) {
        return PRIESTS.contains(&target);
    }
    if ["CH", "CU", "WC", "CG"].contains(&mover) {
        return target != "HF";
    }
    true
}

struct Board<'a> {
    pos: &'a Position,
}

impl Board<'_> {
    /// The point `rel` away from `from` in `color`'s frame.
    fn shift(&self, from: (i32, i32), rel: Rel, color: Color) -> Option<(i32, i32)> {
        let (dl, df) = rel;
        let (df_file, df_rank) = match color {
            Color::Black => (dl, -df),
            Color::White => (-dl, df),
        };
        let (f, r) = (from.0 + df_file, from.1 + df_rank);
        ((1..=19).contains(&f) && (1..=19).contains(&r)).then_some((f, r))
    }

    fn at(&self, p: (i32, i32)) -> Option<Piece> {
        self.pos
            .piece_at(Square::new(p.0 as u8, p.1 as u8).unwrap())
    }
}

/// What standing on `p` during a move means: free, a capturable enemy, or forbidden.
#[derive(PartialEq)]
enum Landing {
    Free,
    Capture,
    Blocked,
}

fn landing(
    board: &Board,
    mover: Piece,
    origin: (i32, i32),
    p: (i32, i32),
    removed: &[(i32, i32)],
) -> Landing {
    if p == origin || removed.contains(&p) {
        return Landing::Free;
    }
    match board.at(p) {
        None => Landing::Free,
        Some(q) if q.color == mover.color => Landing::Blocked,
        Some(q) if may_displace(mover.kind.code(), q.kind.code()) => Landing::Capture,
        Some(_) => Landing::Blocked,
    }
}

fn survives(pos: &Position, color: Color) -> bool {
    let has = |code: &str| {
        pos.pieces()
            .any(|(_, p)| p.color == color && p.kind.code() == code)
    };
    has("G") || has("GV") || (has("MA") && (has("B") || has("FL")))
}

/// Points frozen by the nets of `net_owner` (first piece on each ranging ray, if an enemy).
fn frozen_by(pos: &Position, net_owner: Color) -> BTreeSet<(i32, i32)> {
    let board = Board { pos };
    let mut out = BTreeSet::new();
    for (sq, p) in pos.pieces() {
        if p.color != net_owner {
            continue;
        }
        let rays: &[Rel] = match p.kind.code() {
            "SK" => &[FL, FR, L, R],
            "EW" => &[BL, BR, L, R],
            _ => continue,
        };
        for &d in rays {
            let mut at = (sq.file() as i32, sq.rank() as i32);
            while let Some(next) = board.shift(at, d, net_owner) {
                at = next;
                if let Some(q) = board.at(at) {
                    if q.color != net_owner {
                        out.insert(at);
                    }
                    break;
                }
            }
        }
    }
    out
}

/// A move's effect without shots and promotion: final point and displaced points (sorted).
type Effect = ((i32, i32), Vec<(i32, i32)>);

fn effect(p: (i32, i32), removed: &[(i32, i32)]) -> Effect {
    let mut r = removed.to_vec();
    r.sort();
    r.dedup();
    (p, r)
}

fn point_name(p: (i32, i32)) -> String {
    Square::new(p.0 as u8, p.1 as u8).unwrap().to_string()
}

/// `"<final point> x <displaced points>"`, comparable between oracle and engine.
fn describe(p: (i32, i32), removed: &[(i32, i32)]) -> String {
    let mut squares: Vec<Square> = removed
        .iter()
        .map(|&q| Square::new(q.0 as u8, q.1 as u8).unwrap())
        .collect();
    squares.sort();
    let r: Vec<String> = squares.iter().map(|q| q.to_string()).collect();
    format!("{} x {}", point_name(p), r.join(","))
}

/// The first leg of a two-leg move from `o` by `a` (a lion's or a cavalry leap's): unless the
/// point is off the board or blocked, the move may stop there: that effect (the point and what
/// the leg removed) goes into `dest` and is returned, for the second leg to start from.
fn first_leg(
    board: &Board,
    piece: Piece,
    o: (i32, i32),
    a: Rel,
    dest: &mut BTreeSet<Effect>,
) -> Option<Effect> {
    let p1 = board.shift(o, a, piece.color)?;
    let removed = match landing(board, piece, o, p1, &[]) {
        Landing::Blocked => return None,
        Landing::Free => vec![],
        Landing::Capture => vec![p1],
    };
    let stop = effect(p1, &removed);
    dest.insert(stop.clone());
    Some(stop)
}

/// The second leg of a two-leg move landing on `p2`, after the first removed `removed`.
fn second_leg(
    board: &Board,
    piece: Piece,
    o: (i32, i32),
    p2: (i32, i32),
    removed: &[(i32, i32)],
    dest: &mut BTreeSet<Effect>,
) {
    match landing(board, piece, o, p2, removed) {
        Landing::Blocked => {}
        Landing::Free => {
            dest.insert(effect(p2, removed));
        }
        Landing::Capture => {
            let mut r = removed.to_vec();
            r.push(p2);
            dest.insert(effect(p2, &r));
        }
    }
}

/// The oracle: the effects (final point, displaced points) of every piece of the side to move.
fn oracle(pos: &Position) -> BTreeMap<String, BTreeSet<String>> {
    let us = pos.side_to_move();
    let mut out = BTreeMap::new();
    if !survives(pos, us) || !survives(pos, us.opposite()) {
        return out;
    }
    let board = Board { pos };
    let frozen = frozen_by(pos, us.opposite());
    let has_drum = pos
        .pieces()
        .any(|(_, p)| p.color == us && matches!(p.kind.code(), "D" | "TC"));
    for (sq, piece) in pos.pieces() {
        if piece.color != us {
            continue;
        }
        let o = (sq.file() as i32, sq.rank() as i32);
        if frozen.contains(&o) {
            continue;
        }
        let m = moves_of(piece.kind.code(), has_drum);
        // Effects: (final point, points whose enemy pieces were displaced).
        let mut dest: BTreeSet<Effect> = BTreeSet::new();
        let single = |rel: Rel, dest: &mut BTreeSet<Effect>| {
            if let Some(p) = board.shift(o, rel, us) {
                match landing(&board, piece, o, p, &[]) {
                    Landing::Blocked => {}
                    Landing::Free => {
                        dest.insert(effect(p, &[]));
                    }
                    Landing::Capture => {
                        dest.insert(effect(p, &[p]));
                    }
                }
            }
        };
        for &s in m.steps.iter().chain(m.jumps.iter()) {
            single(s, &mut dest);
        }
        for &(d, limit) in &m.ranges {
            let mut at = o;
            let mut n = 0;
            while let Some(p) = board.shift(at, d, us) {
                n += 1;
                if limit.is_some_and(|l| n > l) {
                    break;
                }
                match landing(&board, piece, o, p, &[]) {
                    Landing::Free => {
                        dest.insert(effect(p, &[]));
                    }
                    Landing::Capture => {
                        dest.insert(effect(p, &[p]));
                        break;
                    }
                    Landing::Blocked => break,
                }
                at = p;
            }
        }
        for &a in &m.lion {
            let Some((p1, removed)) = first_leg(&board, piece, o, a, &mut dest) else {
                continue;
            };
            for &b in &m.lion {
                if let Some(p2) = board.shift(p1, b, us) {
                    second_leg(&board, piece, o, p2, &removed, &mut dest);
                }
            }
        }
        if m.cavalry {
            for &a in &KNIGHT {
                let Some((p1, removed)) = first_leg(&board, piece, o, a, &mut dest) else {
                    continue;
                };
                dest.insert(effect(o, &removed)); // the return leap: pass or igui
                                                  // Same major direction: the 2-component on the same axis with the same sign.
                for &b in KNIGHT.iter().filter(|b| {
                    if a.1.abs() == 2 {
                        b.1 == a.1
                    } else {
                        b.0 == a.0
                    }
                }) {
                    if let Some(p2) = board.shift(p1, b, us) {
                        second_leg(&board, piece, o, p2, &removed, &mut dest);
                    }
                }
            }
        }
        if m.thunderclap {
            fn walk(
                board: &Board,
                piece: Piece,
                o: (i32, i32),
                at: (i32, i32),
                left: u32,
                removed: &mut Vec<(i32, i32)>,
                dest: &mut BTreeSet<Effect>,
            ) {
                if left == 0 {
                    dest.insert(effect(at, removed));
                    return;
                }
                for d in ORTH {
                    let Some(p) = board.shift(at, d, piece.color) else {
                        continue;
                    };
                    match landing(board, piece, o, p, removed) {
                        Landing::Blocked => {}
                        Landing::Free => walk(board, piece, o, p, left - 1, removed, dest),
                        Landing::Capture => {
                            removed.push(p);
                            walk(board, piece, o, p, left - 1, removed, dest);
                            removed.pop();
                        }
                    }
                }
            }
            walk(&board, piece, o, o, 5, &mut Vec::new(), &mut dest);
        }
        if m.flag_waver {
            for d in ORTH {
                let mut at = o;
                let mut removed = Vec::new();
                for _ in 0..5 {
                    let Some(p) = board.shift(at, d, us) else {
                        break;
                    };
                    match landing(&board, piece, o, p, &[]) {
                        Landing::Blocked => break,
                        Landing::Capture => removed.push(p),
                        Landing::Free => {}
                    }
                    dest.insert(effect(p, &removed));
                    at = p;
                }
            }
        }
        if !dest.is_empty() {
            out.insert(
                sq.to_string(),
                dest.into_iter().map(|(p, r)| describe(p, &r)).collect(),
            );
        }
    }
    out
}

/// The engine's effects of moves without shots (every shooting move also exists without its shot).
fn engine(game: &Game) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in game
        .legal_moves()
        .into_iter()
        .filter(|m| m.shots().is_empty())
    {
        let removed: Vec<String> = m.removed_points().iter().map(|s| s.to_string()).collect();
        let key = format!("{} x {}", m.destination(), removed.join(","));
        out.entry(m.origin().to_string()).or_default().insert(key);
    }
    out
}

fn compare(game: &Game, context: &str) {
    let expected = oracle(game.position());
    let got = engine(game);
    if expected != got {
        let mut report = Vec::new();
        for origin in expected.keys().chain(got.keys()).collect::<BTreeSet<_>>() {
            let e = expected.get(origin).cloned().unwrap_or_default();
            let g = got.get(origin).cloned().unwrap_or_default();
            if e != g {
                let piece = game
                    .position()
                    .piece_at(origin.parse().unwrap())
                    .map(|p| p.ksfen_token());
                report.push(format!(
                    "{origin} {piece:?}: missing {:?}, extra {:?}",
                    e.difference(&g).collect::<Vec<_>>(),
                    g.difference(&e).collect::<Vec<_>>()
                ));
            }
        }
        panic!(
            "{context}: {}\n{}\n{}",
            game.position().to_ksfen(true),
            report.join("\n"),
            ""
        );
    }
}

#[test]
fn start_position_matches_the_oracle() {
    compare(&Game::new(RulesOptions::default()), "start");
}

/// Plays [`playouts`] games of uniformly random moves from the start position, game `n` seeded
/// with `first_seed + n` and stopped at its end or after `max_plies` plies, and calls `visit`
/// on every `every`-th position of each (the start included) with a context for messages
/// (`"seed S ply P"`).
fn for_playout_positions(
    first_seed: u64,
    max_plies: u32,
    every: u32,
    mut visit: impl FnMut(&Game, &str),
) {
    for seed in 0..playouts() {
        let mut rng = ChaCha8Rng::seed_from_u64(first_seed + seed);
        let mut game = Game::new(RulesOptions::default());
        for ply in 0..max_plies {
            if game.outcome().is_some() {
                break;
            }
            if ply % every == 0 {
                visit(&game, &format!("seed {seed} ply {ply}"));
            }
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            game.play(legal[rng.random_range(0..legal.len())]);
        }
    }
}

#[test]
fn random_playout_positions_match_the_oracle() {
    let mut checked = 0;
    let mut kinds_seen = BTreeSet::new();
    for_playout_positions(5000, 600, 7, |game, context| {
        compare(game, context);
        checked += 1;
        kinds_seen.extend(game.position().pieces().map(|(_, p)| p.kind.code()));
    });
    assert!(checked > 100);
    eprintln!(
        "{checked} positions, {} piece types seen: {kinds_seen:?}",
        kinds_seen.len()
    );
}

/// The KSFEN of a scrambled board (point index → piece token, as the scramble tests draw it),
/// Black to move for an even `seed` and White for an odd one: the one way every scramble test
/// turns its board into a position.
fn scrambled_ksfen(board: &BTreeMap<usize, String>, seed: u64) -> String {
    let pieces: Vec<(String, String)> = board
        .iter()
        .map(|(&i, t)| (t.clone(), Square::from_index(i).unwrap().to_string()))
        .collect();
    let refs: Vec<(&str, &str)> = pieces
        .iter()
        .map(|(t, s)| (t.as_str(), s.as_str()))
        .collect();
    ksfen(&refs, if seed.is_multiple_of(2) { 'b' } else { 'w' })
}

/// A dense scramble in the 9×9 box of files and ranks 6–14 (dense enough that lines are often
/// occupied), drawn by `rng`: both generals in their corners, `featured` pieces (the types under
/// test) of the side to move (Black for an even `seed`, White for an odd one) until the board
/// holds `featured_count` more, then `others` of either colour until it holds `total` pieces.
/// Returns the board as [`scrambled_ksfen`] reads it.
fn box_scramble(
    rng: &mut ChaCha8Rng,
    seed: u64,
    featured: &[&str],
    featured_count: usize,
    others: &[&str],
    total: usize,
) -> BTreeMap<usize, String> {
    let box_point = |rng: &mut ChaCha8Rng| {
        let f = rng.random_range(6..=14u8);
        let r = rng.random_range(6..=14u8);
        Square::new(f, r).unwrap().index()
    };
    let mut board: BTreeMap<usize, String> = BTreeMap::new();
    board.insert(0, "G".into());
    board.insert(360, "g".into());
    while board.len() < 2 + featured_count {
        let p = box_point(rng);
        let mut t = featured[rng.random_range(0..featured.len())].to_string();
        if seed % 2 == 1 {
            t = t.to_lowercase();
        }
        board.entry(p).or_insert(t);
    }
    while board.len() < total {
        let p = box_point(rng);
        let mut t = others[rng.random_range(0..others.len())].to_string();
        if rng.random_bool(0.5) {
            t = t.to_lowercase();
        }
        board.entry(p).or_insert(t);
    }
    board
}

/// Random scrambles: both generals plus 50 pieces of random types (all 57, promoted flags
/// included) on random points, then a few random plies from each. Reaches the types that random
/// playouts from the start rarely create (fog, lamp, thunderclap, nets, fortress…).
#[test]
fn scrambled_positions_match_the_oracle() {
    let scrambles = playouts() * 5;
    const CARRY_PLUS: [&str; 7] = ["Q", "FH", "CA", "PU", "SU", "CU", "DU"];
    for seed in 0..scrambles {
        let mut rng = ChaCha8Rng::seed_from_u64(90_000 + seed);
        let mut board: BTreeMap<usize, String> = BTreeMap::new();
        board.insert(rng.random_range(0..Square::COUNT), "G".into());
        while board.len() < 2 {
            board.insert(rng.random_range(0..Square::COUNT), "g".into());
        }
        while board.len() < 52 {
            let kind = koshogi_rules::PieceKind::ALL[rng.random_range(0..57)];
            let mut token = kind.code().to_string();
            if token == "G" {
                continue;
            }
            if CARRY_PLUS.contains(&kind.code()) && rng.random_bool(0.3) {
                token = format!("+{token}");
            }
            if rng.random_bool(0.5) {
                token = token.to_lowercase();
            }
            board
                .entry(rng.random_range(0..Square::COUNT))
                .or_insert(token);
        }
        let text = scrambled_ksfen(&board, seed);
        let pos = Position::from_ksfen(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let mut game = Game::from_position(pos, RulesOptions::default());
        for ply in 0..6 {
            compare(&game, &format!("scramble {seed} ply {ply}"));
            let legal = game.legal_moves();
            if legal.is_empty() || game.outcome().is_some() {
                break;
            }
            game.play(legal[rng.random_range(0..legal.len())]);
        }
    }
}

/// Shot sets of the artillery (§4.7, §7.2), read independently: for every non-capturing move of
/// an artillery piece, the set of enemy points removed by its shot(s) (∅ = no shot).
fn oracle_shots(pos: &Position) -> BTreeSet<(String, String, Vec<String>)> {
    let us = pos.side_to_move();
    let board = Board { pos };
    let frozen = frozen_by(pos, us.opposite());
    let mut out = BTreeSet::new();
    if !survives(pos, us) || !survives(pos, us.opposite()) {
        return out;
    }
    let name = |p: (i32, i32)| Square::new(p.0 as u8, p.1 as u8).unwrap().to_string();
    for (sq, piece) in pos.pieces() {
        let code = piece.kind.code();
        let (range, cannon, double) = match code {
            "LB" | "LC" => (3, false, false),
            "SB" | "CC" => (5, false, false),
            "C" | "WC" => (5, true, false),
            "FW" | "CG" => (7, false, true),
            _ => continue,
        };
        let o = (sq.file() as i32, sq.rank() as i32);
        if piece.color != us || frozen.contains(&o) {
            continue;
        }
        // Non-capturing landing points of its ordinary move.
        let m = moves_of(code, true);
        let mut landings = Vec::new();
        for &s in m.steps.iter().chain(m.jumps.iter()) {
            if let Some(p) = board.shift(o, s, us) {
                if board.at(p).is_none() {
                    landings.push(p);
                }
            }
        }
        for &(d, limit) in &m.ranges {
            let mut at = o;
            for _ in 0..limit.unwrap_or(18) {
                let Some(p) = board.shift(at, d, us) else {
                    break;
                };
                if board.at(p).is_some() {
                    break;
                }
                landings.push(p);
                at = p;
            }
        }
        let bow = matches!(code, "LB" | "LC" | "SB" | "CC");
        let shootable = |q: Piece, dist: i32| -> bool {
            let k = q.kind.code();
            if q.color == us || matches!(k, "SU" | "HF") {
                return false;
            }
            if bow && matches!(k, "SP" | "CH" | "CU" | "WC" | "CG" | "FG") {
                return false;
            }
            if k == "FG" {
                return double && dist >= 6;
            }
            true
        };
        for land in landings {
            let occupant = |p: (i32, i32), gone: &[(i32, i32)]| -> Option<Piece> {
                if p == o || gone.contains(&p) {
                    None
                } else {
                    board.at(p)
                }
            };
            // Fog suppression: an enemy fog on a prime line within 5, whatever is between.
            let suppressed = KING.iter().any(|&d| {
                let mut at = land;
                (1..=5).any(|_| match board.shift(at, d, us) {
                    None => false,
                    Some(p) => {
                        at = p;
                        board
                            .at(p)
                            .is_some_and(|q| q.color != us && q.kind.code() == "FG")
                    }
                })
            });
            let targets = |gone: &[(i32, i32)]| -> Vec<(i32, i32)> {
                let mut t = Vec::new();
                for d in KING {
                    let mut at = land;
                    for dist in 1..=range {
                        let Some(p) = board.shift(at, d, us) else {
                            break;
                        };
                        at = p;
                        let Some(q) = occupant(p, gone) else { continue };
                        if cannon {
                            if matches!(q.kind.code(), "SU" | "HF") {
                                break;
                            }
                            if shootable(q, dist) {
                                t.push(p);
                            }
                        } else {
                            if shootable(q, dist) {
                                t.push(p);
                            }
                            break;
                        }
                    }
                }
                t
            };
            let from = sq.to_string();
            out.insert((from.clone(), name(land), vec![]));
            if suppressed {
                continue;
            }
            for t1 in targets(&[]) {
                out.insert((from.clone(), name(land), vec![name(t1)]));
                if double {
                    for t2 in targets(&[t1]) {
                        let mut pair = vec![name(t1), name(t2)];
                        pair.sort();
                        out.insert((from.clone(), name(land), pair));
                    }
                }
            }
        }
    }
    out
}

fn engine_shots(game: &Game) -> BTreeSet<(String, String, Vec<String>)> {
    let pos = game.position();
    game.legal_moves()
        .into_iter()
        .filter(|m| m.capture_mask() == 0)
        .filter(|m| {
            pos.piece_at(m.origin()).is_some_and(|p| {
                matches!(
                    p.kind.code(),
                    "LB" | "LC" | "SB" | "CC" | "C" | "WC" | "FW" | "CG"
                )
            })
        })
        .map(|m| {
            let mut shots: Vec<String> = m.shots().iter().map(|s| s.to_string()).collect();
            shots.sort();
            (m.origin().to_string(), m.destination().to_string(), shots)
        })
        .collect()
}

#[test]
fn artillery_shots_match_the_oracle_in_scrambles() {
    let scrambles = playouts() * 5;
    let shooters = ["LB", "LC", "SB", "CC", "C", "WC", "FW", "CG"];
    let others = [
        "P", "SP", "SU", "HF", "CH", "CU", "WC", "CG", "FG", "E", "DR", "WR", "MA", "B", "D",
    ];
    let mut shots_seen = 0;
    for seed in 0..scrambles {
        let mut rng = ChaCha8Rng::seed_from_u64(70_000 + seed);
        // 8 shooters of the side to move and 30 others.
        let board = box_scramble(&mut rng, seed, &shooters, 8, &others, 40);
        let text = scrambled_ksfen(&board, seed);
        let game = Game::from_position(
            Position::from_ksfen(&text).unwrap(),
            RulesOptions::default(),
        );
        let expected = oracle_shots(game.position());
        let got = engine_shots(&game);
        shots_seen += got.iter().filter(|(_, _, s)| !s.is_empty()).count();
        if expected != got {
            panic!(
                "scramble {seed}: {text}\nmissing {:?}\nextra {:?}",
                expected.difference(&got).collect::<Vec<_>>(),
                got.difference(&expected).collect::<Vec<_>>()
            );
        }
    }
    assert!(shots_seen > 100, "only {shots_seen} shooting moves seen");
}

/// Effects of the priest family (§5.6) including their adjacent shots, read independently: a
/// TB/SM jumps once and may shoot one adjacent enemy; a FG/HL may do that twice (jump, shot, jump,
/// shot, each part optional after the first jump). Effects are (final point, removed points).
fn oracle_priests(pos: &Position) -> BTreeSet<(String, String)> {
    let us = pos.side_to_move();
    let board = Board { pos };
    let frozen = frozen_by(pos, us.opposite());
    let mut out = BTreeSet::new();
    if !survives(pos, us) || !survives(pos, us.opposite()) {
        return out;
    }
    let jumps = cat(&[&DABBABA, &ALFIL]);
    for (sq, piece) in pos.pieces() {
        let twice = match piece.kind.code() {
            "TB" | "SM" => false,
            "FG" | "HL" => true,
            _ => continue,
        };
        let o = (sq.file() as i32, sq.rank() as i32);
        if piece.color != us || frozen.contains(&o) {
            continue;
        }
        let from = sq.to_string();
        // Adjacent enemies of `at` still standing.
        let adjacent = |at: (i32, i32), removed: &[(i32, i32)]| -> Vec<(i32, i32)> {
            KING.iter()
                .filter_map(|&d| board.shift(at, d, us))
                .filter(|&p| p != o && !removed.contains(&p))
                .filter(|&p| board.at(p).is_some_and(|q| q.color != us))
                .collect()
        };
        let mut effects: BTreeSet<Effect> = BTreeSet::new();
        for &a in &jumps {
            let Some(p1) = board.shift(o, a, us) else {
                continue;
            };
            let r1 = match landing(&board, piece, o, p1, &[]) {
                Landing::Blocked => continue,
                Landing::Free => vec![],
                Landing::Capture => vec![p1],
            };
            // After the first jump: no shot or one shot.
            let mut after_first = vec![r1.clone()];
            for t in adjacent(p1, &r1) {
                let mut r = r1.clone();
                r.push(t);
                after_first.push(r);
            }
            for r in &after_first {
                effects.insert(effect(p1, r));
                if !twice {
                    continue;
                }
                for &b in &jumps {
                    let Some(p2) = board.shift(p1, b, us) else {
                        continue;
                    };
                    let r2 = match landing(&board, piece, o, p2, r) {
                        Landing::Blocked => continue,
                        Landing::Free => r.clone(),
                        Landing::Capture => {
                            let mut x = r.clone();
                            x.push(p2);
                            x
                        }
                    };
                    effects.insert(effect(p2, &r2));
                    for t in adjacent(p2, &r2) {
                        let mut x = r2.clone();
                        x.push(t);
                        effects.insert(effect(p2, &x));
                    }
                }
            }
        }
        for (p, r) in effects {
            out.insert((from.clone(), describe(p, &r)));
        }
    }
    out
}

fn engine_priests(game: &Game) -> BTreeSet<(String, String)> {
    let pos = game.position();
    game.legal_moves()
        .into_iter()
        .filter(|m| {
            pos.piece_at(m.origin())
                .is_some_and(|p| matches!(p.kind.code(), "TB" | "SM" | "FG" | "HL"))
        })
        .map(|m| {
            let removed: Vec<String> = m.removed_points().iter().map(|s| s.to_string()).collect();
            (
                m.origin().to_string(),
                format!("{} x {}", m.destination(), removed.join(",")),
            )
        })
        .collect()
}

#[test]
fn priest_family_effects_match_the_oracle_in_scrambles() {
    let scrambles = playouts() * 5;
    let priests = ["TB", "SM", "FG", "HL"];
    let others = [
        "P", "SP", "SU", "HF", "E", "DR", "WR", "TB", "SM", "FG", "HL", "LB", "SK",
    ];
    let mut shots_seen = 0;
    for seed in 0..scrambles {
        let mut rng = ChaCha8Rng::seed_from_u64(30_000 + seed);
        // 4 priests of the side to move and 30 others.
        let board = box_scramble(&mut rng, seed, &priests, 4, &others, 36);
        let text = scrambled_ksfen(&board, seed);
        let game = Game::from_position(
            Position::from_ksfen(&text).unwrap(),
            RulesOptions::default(),
        );
        let expected = oracle_priests(game.position());
        let got = engine_priests(&game);
        shots_seen += game
            .legal_moves()
            .iter()
            .filter(|m| !m.shots().is_empty())
            .count();
        if expected != got {
            panic!(
                "scramble {seed}: {text}\nmissing {:?}\nextra {:?}",
                expected.difference(&got).collect::<Vec<_>>(),
                got.difference(&expected).collect::<Vec<_>>()
            );
        }
    }
    assert!(shots_seen > 100, "only {shots_seen} shooting moves seen");
}

/// The promotion choices §8 allows for a move with a given effect, read independently:
/// capture-triggered (rules 1–3, shots included) → only `+`; else a move ending in the owner's
/// zone → `+` and `=`; else none. Only unpromoted pieces with a promoted type may promote, and a
/// drum or banner not while its side has no Taoist priest (TB or FG) on the board.
fn oracle_promotions(
    pos: &Position,
    origin: Square,
    dest: Square,
    removed: &[Square],
) -> BTreeSet<koshogi_rules::Promotion> {
    use koshogi_rules::Promotion;
    let mover = pos.piece_at(origin).unwrap();
    let code = mover.kind.code();
    let priest_alive = pos
        .pieces()
        .any(|(_, p)| p.color == mover.color && matches!(p.kind.code(), "TB" | "FG"));
    let promotable = !mover.promoted
        && mover.kind.promotes_to().is_some()
        && (priest_alive || !matches!(code, "D" | "B"));
    if !promotable {
        return [Promotion::None].into();
    }
    let captured: Vec<&str> = removed
        .iter()
        .filter_map(|&s| pos.piece_at(s))
        .map(|p| p.kind.code())
        .collect();
    const STEP_MOVERS: [&str; 15] = [
        "A", "SR", "GH", "CS", "EN", "MA", "D", "B", "SN", "FW", "LB", "SB", "C", "P", "SP",
    ];
    let rule1 = captured
        .iter()
        .any(|k| matches!(*k, "G" | "GV" | "MA" | "B" | "D"));
    let rule2 = STEP_MOVERS.contains(&code)
        && captured
            .iter()
            .any(|k| matches!(*k, "WR" | "DR" | "FL" | "TC"));
    let rule3 = code == "HS" && captured.contains(&"FW");
    if rule1 || rule2 || rule3 {
        return [Promotion::Promote].into();
    }
    let in_zone = match mover.color {
        Color::Black => dest.rank() <= 6,
        Color::White => dest.rank() >= 14,
    };
    if in_zone {
        [Promotion::Promote, Promotion::Decline].into()
    } else {
        [Promotion::None].into()
    }
}

fn compare_promotions(game: &Game, context: &str) {
    type Key = (Square, Square, Vec<Square>);
    let mut engine: BTreeMap<Key, BTreeSet<koshogi_rules::Promotion>> = BTreeMap::new();
    for m in game.legal_moves() {
        engine
            .entry((m.origin(), m.destination(), m.removed_points()))
            .or_default()
            .insert(m.promotion());
    }
    for ((origin, dest, removed), got) in engine {
        let expected = oracle_promotions(game.position(), origin, dest, &removed);
        assert_eq!(
            got,
            expected,
            "{context}: promotion choices of {origin}->{dest} removing {removed:?} in {}",
            game.position().to_ksfen(true)
        );
    }
}

#[test]
fn promotion_choices_match_the_oracle() {
    for_playout_positions(11_000, 500, 5, compare_promotions);
    // Scrambles with every type, both colours, commanders and lion pieces close together.
    for seed in 0..playouts() * 5 {
        let mut rng = ChaCha8Rng::seed_from_u64(12_000 + seed);
        let mut board: BTreeMap<usize, String> = BTreeMap::new();
        board.insert(0, "G".into());
        board.insert(360, "g".into());
        while board.len() < 50 {
            let kind = koshogi_rules::PieceKind::ALL[rng.random_range(0..57)];
            if kind.code() == "G" {
                continue;
            }
            let mut t = kind.code().to_string();
            if rng.random_bool(0.5) {
                t = t.to_lowercase();
            }
            let p = Square::new(rng.random_range(4..=16u8), rng.random_range(1..=19u8))
                .unwrap()
                .index();
            board.entry(p).or_insert(t);
        }
        let text = scrambled_ksfen(&board, seed);
        let game = Game::from_position(
            Position::from_ksfen(&text).unwrap(),
            RulesOptions::default(),
        );
        compare_promotions(&game, &format!("scramble {seed}"));
    }
}
