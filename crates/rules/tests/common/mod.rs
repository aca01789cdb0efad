//! Shared helpers for the rules integration tests: build positions from a short list of pieces
//! (written independently of the engine's own KSFEN writer) and look at the legal moves.
//!
//! Everything here is deliberately simple so that a test's expected values come from the rules
//! reference, not from the engine.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use koshogi_rules::{Color, Game, Move, Position, Promotion, RulesOptions, Square};

/// The knight's eight jumps (file, rank), in the owner's frame: the horse soldier's move
/// and the single leaps of the cavalry and the thunderclap.
pub const KNIGHT_JUMPS: [(i32, i32); 8] = [
    (1, 2),
    (-1, 2),
    (1, -2),
    (-1, -2),
    (2, 1),
    (-2, 1),
    (2, -1),
    (-2, -1),
];

/// A count from the environment variable `name`, `default` where it is unset or not a number:
/// how the long-running tests are scaled up for a soak.
pub fn env_count(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `KOSHOGI_PLAYOUTS` (default 60): how many seeded random games the playout tests play (the
/// oracle's scramble tests draw five times as many boards); set it higher for a long soak.
pub fn playouts() -> u64 {
    env_count("KOSHOGI_PLAYOUTS", 60)
}

/// The lines of a fixture file with their numbers, comments (`#` to the end of the line) and
/// blank lines dropped.
pub fn content_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.split('#').next().unwrap().trim().to_string()))
        .filter(|(_, line)| !line.is_empty())
        .collect()
}

/// A point from its text (`"10j"`); panics on a typo in a test.
pub fn sq(text: &str) -> Square {
    text.parse()
        .unwrap_or_else(|e| panic!("bad point {text:?} in a test: {e}"))
}

/// The KSFEN of a board holding exactly `pieces` — `(token, point)` with the KSFEN token of the
/// piece (`"G"` Black general, `"wr"` White sumo wrestler, `"+Q"` promoted quartermaster) —
/// and `side` to move (`'b'` or `'w'`). Written here from §14.1, not with the engine's writer.
pub fn ksfen(pieces: &[(&str, &str)], side: char) -> String {
    let mut grid: Vec<Vec<Option<String>>> = vec![vec![None; 19]; 19];
    for (token, point) in pieces {
        let s = sq(point);
        let slot = &mut grid[s.rank() as usize - 1][19 - s.file() as usize];
        assert!(slot.is_none(), "two pieces on {point} in a test");
        *slot = Some(token.to_string());
    }
    let ranks: Vec<String> = grid
        .iter()
        .map(|row| {
            let mut tokens = Vec::new();
            let mut empty = 0;
            for cell in row {
                match cell {
                    None => empty += 1,
                    Some(token) => {
                        if empty > 0 {
                            tokens.push(empty.to_string());
                            empty = 0;
                        }
                        tokens.push(token.clone());
                    }
                }
            }
            if empty > 0 {
                tokens.push(empty.to_string());
            }
            tokens.join(",")
        })
        .collect();
    format!("{} {side}", ranks.join("/"))
}

/// Both generals placed where they touch nothing near the centre (so that both sides survive,
/// §10.1 — a side without commanding pieces has no legal moves, §14.2).
pub const QUIET_GENERALS: [(&str, &str); 2] = [("G", "18s"), ("g", "2a")];

/// A position holding `pieces` plus the two quiet generals.
pub fn position_with_generals(pieces: &[(&str, &str)], side: char) -> Position {
    let mut all: Vec<(&str, &str)> = QUIET_GENERALS.to_vec();
    all.extend_from_slice(pieces);
    position(&all, side)
}

/// A position holding `pieces` (`(KSFEN token, point)`) and, unless they include a general or a
/// governor of that colour, the quiet generals of Black on 18s and White on 2a.
pub fn pieces_position(pieces: &[(&str, &str)], side: Color) -> Position {
    let commands = |general: &str, governor: &str| {
        pieces
            .iter()
            .any(|&(token, _)| token == general || token == governor)
    };
    let mut all: Vec<(&str, &str)> = QUIET_GENERALS
        .iter()
        .copied()
        .filter(|&(general, _)| match general {
            "G" => !commands("G", "GV"),
            _ => !commands("g", "gv"),
        })
        .collect();
    all.extend_from_slice(pieces);
    position(&all, if side == Color::Black { 'b' } else { 'w' })
}

/// A position holding exactly `pieces`.
pub fn position(pieces: &[(&str, &str)], side: char) -> Position {
    let text = ksfen(pieces, side);
    Position::from_ksfen(&text).unwrap_or_else(|e| panic!("test KSFEN rejected: {e}\n{text}"))
}

/// A game with default options from a position.
pub fn game(pos: Position) -> Game {
    Game::from_position(pos, RulesOptions::default())
}

/// All legal moves of the piece on `origin`.
pub fn moves_from(game: &Game, origin: &str) -> Vec<Move> {
    let origin = sq(origin);
    game.legal_moves()
        .into_iter()
        .filter(|m| m.origin() == origin)
        .collect()
}

/// The set of final points of the legal moves of the piece on `origin`.
pub fn destinations(game: &Game, origin: &str) -> BTreeSet<String> {
    moves_from(game, origin)
        .iter()
        .map(|m| m.destination().to_string())
        .collect()
}

/// Points in the mover's (Black's) frame: `(d_file_left, d_forward)` offsets from `origin`,
/// i.e. left = +file, forward = −rank for Black (§1.4). Off-board offsets are dropped.
pub fn offsets_black(origin: &str, offsets: &[(i32, i32)]) -> BTreeSet<String> {
    let o = sq(origin);
    offsets
        .iter()
        .filter_map(|&(left, fwd)| {
            let file = o.file() as i32 + left;
            let rank = o.rank() as i32 - fwd;
            if (1..=19).contains(&file) && (1..=19).contains(&rank) {
                Some(Square::new(file as u8, rank as u8).unwrap().to_string())
            } else {
                None
            }
        })
        .collect()
}

/// The position after playing `mv` on `game` (the game is left unchanged).
pub fn after(game: &Game, mv: Move) -> Position {
    let mut g = game.clone();
    g.play(mv);
    g.position().clone()
}

/// The legal move whose canonical notation is `text`, or a panic listing the moves of its piece.
pub fn find_move(game: &Game, text: &str) -> Move {
    let moves = game.legal_moves();
    if let Some(m) = moves.iter().find(|m| m.to_string() == text) {
        return *m;
    }
    let listing: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    panic!("move {text} is not legal; legal moves: {listing:?}")
}

/// Whether the legal move `text` exists.
pub fn is_legal(game: &Game, text: &str) -> bool {
    game.legal_moves().iter().any(|m| m.to_string() == text)
}

/// Canonical notations of the moves of the piece on `origin`, sorted.
pub fn notations_from(game: &Game, origin: &str) -> Vec<String> {
    let mut v: Vec<String> = moves_from(game, origin)
        .iter()
        .map(|m| m.to_string())
        .collect();
    v.sort();
    v
}

/// The piece token (KSFEN spelling) on `point`, or "." when empty.
pub fn token_at(pos: &Position, point: &str) -> String {
    match pos.piece_at(sq(point)) {
        None => ".".to_string(),
        Some(p) => {
            let text = format!(
                "{}{}",
                if p.promoted && needs_plus(p.kind.code()) {
                    "+"
                } else {
                    ""
                },
                p.kind.code()
            );
            if p.color == Color::White {
                text.to_lowercase()
            } else {
                text
            }
        }
    }
}

fn needs_plus(code: &str) -> bool {
    matches!(code, "Q" | "FH" | "CA" | "PU" | "SU" | "CU" | "DU")
}

/// Number of moves grouped by promotion choice.
pub fn promotion_counts(moves: &[Move]) -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for m in moves {
        let key = match m.promotion() {
            Promotion::None => "none",
            Promotion::Promote => "promote",
            Promotion::Decline => "decline",
        };
        *out.entry(key).or_insert(0) += 1;
    }
    out
}
