//! Hodges-style notation (§11.1), the human-readable form: piece code (a promoted piece as `+` and
//! the code it promoted from), the origin only when needed to tell pieces apart, then the landing
//! points (`-` / `x`), igui as `!` + the captured point, a pass as `origin-origin`, shots as
//! `*` + point, and `+` / `=` for a promotion taken / declined.
//!
//! Examples: `P-16n`, `CUx19f`, `SP16n-15m`, `WRx12q-12p`, `WR!12q`, `WR13s-13s`,
//! `FW-9p*9j*3p`, `MAx7c=`.
//!
//! Disambiguation rule: the origin is written exactly when the text without it would fit legal
//! moves of more than one piece — which is what the parser checks, so formatting and parsing
//! always agree (a written pass always carries its origin, as in §11.1).

use super::canonical::{check_path, find_same_effect, MovePath, Reader};
use super::NotationError;
use crate::{Move, Piece, PieceKind, Position, Promotion, Square};
use std::fmt::Write as _;

/// The designation of a piece: its code, or `+` and the code of the type it promoted from.
pub fn piece_designation(piece: Piece) -> String {
    if !piece.promoted {
        return piece.kind.code().to_string();
    }
    match promoted_from(piece.kind) {
        Some(base) => format!("+{}", base.code()),
        None => piece.kind.code().to_string(),
    }
}

/// The unpromoted type a promoted piece of `kind` came from. A commissar can come from a patrol
/// unit or from the vanguard and the board does not remember which, so `PU` is returned.
fn promoted_from(kind: PieceKind) -> Option<PieceKind> {
    PieceKind::ALL
        .iter()
        .copied()
        .find(|k| !k.is_promoted_only() && k.promotes_to() == Some(kind))
}

/// A leg as written in Hodges notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WrittenLeg {
    /// `-point` or `xpoint`.
    Land(Square, bool),
    /// `!point`: capture there and return to where the leg started.
    Igui(Square),
}

/// A Hodges move text split into its parts.
#[derive(Clone, Debug)]
struct HodgesText {
    kind: PieceKind,
    promoted: bool,
    designation: String,
    origin: Option<Square>,
    legs: Vec<WrittenLeg>,
    shots: Vec<Square>,
    promotion: Promotion,
}

/// Formats `mv` (legal in `position`, whose legal moves are `legal`) in Hodges notation.
pub fn format_hodges(position: &Position, legal: &[Move], mv: &Move) -> String {
    let Some(piece) = position.piece_at(mv.origin()) else {
        return mv.to_string();
    };
    let designation = piece_designation(piece);
    let tail = hodges_tail(mv);
    if mv.is_stationary() {
        return format!(
            "{designation}{origin}-{origin}{promo}",
            origin = mv.origin(),
            promo = promotion_mark(mv.promotion())
        );
    }
    let short = format!("{designation}{tail}");
    let needs_origin = match parse_hodges_all(position, legal, &short) {
        Ok(matches) => matches.iter().any(|m| m.origin() != mv.origin()),
        Err(_) => true,
    };
    if needs_origin {
        format!("{designation}{}{tail}", mv.origin())
    } else {
        short
    }
}

fn promotion_mark(p: Promotion) -> &'static str {
    match p {
        Promotion::None => "",
        Promotion::Promote => "+",
        Promotion::Decline => "=",
    }
}

/// Everything after the piece (and origin): legs, shots, promotion mark.
fn hodges_tail(mv: &Move) -> String {
    let legs = mv.legs();
    let mut out = String::new();
    if legs.len() == 2 && mv.leg_captures(0) && legs[1] == mv.origin() {
        let _ = write!(out, "!{}", legs[0]);
    } else {
        for (i, sq) in legs.iter().enumerate() {
            let _ = write!(out, "{}{sq}", if mv.leg_captures(i) { 'x' } else { '-' });
        }
    }
    for sq in mv.shots() {
        let _ = write!(out, "*{sq}");
    }
    out.push_str(promotion_mark(mv.promotion()));
    out
}

/// Reads a Hodges-style move and returns the matching legal move of `position`.
pub fn parse_hodges(
    position: &Position,
    legal: &[Move],
    text: &str,
) -> Result<Move, NotationError> {
    let text = text.trim();
    let matches = parse_hodges_all(position, legal, text)?;
    let mut origins: Vec<Square> = matches.iter().map(|m| m.origin()).collect();
    origins.sort();
    origins.dedup();
    if origins.len() > 1 {
        let list: Vec<String> = origins.iter().map(|s| s.to_string()).collect();
        return Err(NotationError::Ambiguous {
            text: text.to_string(),
            origins: list.join(", "),
        });
    }
    Ok(matches[0])
}

/// All legal moves (at most one per origin) that `text` fits; an error if none does.
fn parse_hodges_all(
    position: &Position,
    legal: &[Move],
    text: &str,
) -> Result<Vec<Move>, NotationError> {
    let parsed = read_hodges(text)?;
    let side = position.side_to_move();
    // Only pieces with a legal move can fit; when the text fixes the final point (its last
    // written leg, unless that is an igui or a pass), only pieces with a legal move ending there.
    let written_destination = match parsed.legs.last() {
        Some(WrittenLeg::Land(point, _))
            if parsed.legs.len() > 1 || parsed.origin != Some(*point) =>
        {
            Some(*point)
        }
        _ => None,
    };
    let mut candidates: Vec<Square> = match parsed.origin {
        Some(origin) => vec![origin],
        None => legal
            .iter()
            .filter(|m| written_destination.is_none_or(|d| m.destination() == d))
            .map(|m| m.origin())
            .filter(|&o| {
                position.piece_at(o).is_some_and(|p| {
                    p.color == side && p.kind == parsed.kind && p.promoted == parsed.promoted
                })
            })
            .collect(),
    };
    candidates.sort();
    candidates.dedup();
    let mut found = Vec::new();
    let mut single_error = None;
    for &origin in &candidates {
        match match_from(position, legal, text, &parsed, origin) {
            Ok(mv) => found.push(mv),
            Err(e) => single_error = Some(e),
        }
    }
    if found.is_empty() {
        if candidates.len() == 1 {
            if let Some(e) = single_error {
                return Err(e);
            }
        }
        return Err(NotationError::NoSuchPiece {
            text: text.to_string(),
            piece: parsed.designation,
        });
    }
    Ok(found)
}

/// The legal move `parsed` names when its piece stands on `origin`.
fn match_from(
    position: &Position,
    legal: &[Move],
    text: &str,
    parsed: &HodgesText,
    origin: Square,
) -> Result<Move, NotationError> {
    let illegal = || NotationError::Illegal {
        text: text.to_string(),
    };
    let piece = position
        .piece_at(origin)
        .ok_or(NotationError::NoPieceAtOrigin {
            text: text.to_string(),
            origin,
        })?;
    if piece.kind != parsed.kind
        || piece.promoted != parsed.promoted
        || piece.color != position.side_to_move()
    {
        return Err(NotationError::NoSuchPiece {
            text: text.to_string(),
            piece: parsed.designation.clone(),
        });
    }
    // A pass is written `origin-origin`.
    if parsed.legs == [WrittenLeg::Land(origin, false)] && parsed.shots.is_empty() {
        return legal
            .iter()
            .find(|m| {
                m.origin() == origin
                    && m.destination() == origin
                    && m.removed_points().is_empty()
                    && m.promotion() == parsed.promotion
            })
            .copied()
            .ok_or_else(illegal);
    }
    let mut legs = Vec::new();
    let mut at = origin;
    for leg in &parsed.legs {
        match *leg {
            WrittenLeg::Land(point, captures) => {
                legs.push((point, captures));
                at = point;
            }
            WrittenLeg::Igui(point) => {
                legs.push((point, true));
                legs.push((at, false));
            }
        }
    }
    let path = MovePath {
        origin,
        legs,
        shots: parsed.shots.clone(),
        promotion: parsed.promotion,
    };
    let candidate = check_path(position, text, &path)?;
    find_same_effect(legal, &candidate).ok_or_else(illegal)
}

/// Splits the text into designation, optional origin, legs, shots and promotion mark.
fn read_hodges(text: &str) -> Result<HodgesText, NotationError> {
    let mut reader = Reader::new(text);
    if reader.at_end() {
        return Err(NotationError::Empty);
    }
    let plus = reader.peek() == Some(b'+');
    if plus {
        reader.bump();
    }
    let start = if plus { 1 } else { 0 };
    let bytes = text.as_bytes();
    let mut end = start;
    while end < bytes.len() && bytes[end].is_ascii_alphabetic() {
        end += 1;
    }
    // A capture mark directly after the code ("CUx19f"): no piece code ends in X.
    if end > start + 1
        && matches!(bytes[end - 1], b'x' | b'X')
        && bytes.get(end).is_some_and(|b| b.is_ascii_digit())
    {
        end -= 1;
    }
    let code = &text[start..end];
    if code.is_empty() {
        return Err(reader.error("expected a piece code such as P, WR or +A"));
    }
    for _ in start..end {
        reader.bump();
    }
    let unknown = || NotationError::UnknownPiece {
        text: text.to_string(),
        code: format!("{}{code}", if plus { "+" } else { "" }),
    };
    let base = PieceKind::from_code(code).ok_or_else(unknown)?;
    let (kind, promoted) = if plus {
        if base.is_promoted_only() {
            return Err(unknown());
        }
        (base.promotes_to().ok_or_else(unknown)?, true)
    } else {
        (base, base.is_promoted_only())
    };
    let origin = if reader.at_point() {
        Some(reader.point()?)
    } else {
        None
    };
    let mut legs = Vec::new();
    let mut shots = Vec::new();
    let mut promotion = Promotion::None;
    while let Some(b) = reader.peek() {
        match b {
            b'-' | b'x' | b'X' | b'!' if shots.is_empty() => {
                reader.bump();
                let point = reader.point()?;
                legs.push(if b == b'!' {
                    WrittenLeg::Igui(point)
                } else {
                    WrittenLeg::Land(point, b != b'-')
                });
            }
            b'*' => {
                reader.bump();
                shots.push(reader.point()?);
            }
            b'+' | b'=' if !legs.is_empty() || !shots.is_empty() => {
                reader.bump();
                promotion = if b == b'+' {
                    Promotion::Promote
                } else {
                    Promotion::Decline
                };
                if !reader.at_end() {
                    return Err(reader.error("nothing may follow the promotion mark"));
                }
            }
            _ => return Err(reader.error("expected '-', 'x', '!', '*', '+' or '='")),
        }
    }
    if legs.is_empty() && shots.is_empty() {
        return Err(reader.error(
            "expected a destination ('-', 'x' or '!' and a point) or a shot ('*' and a point)",
        ));
    }
    let designation = format!("{}{code}", if plus { "+" } else { "" }).to_ascii_uppercase();
    Ok(HodgesText {
        kind,
        promoted,
        designation,
        origin,
        legs,
        shots,
        promotion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Color;

    fn k(code: &str) -> PieceKind {
        PieceKind::from_code(code).unwrap()
    }

    #[test]
    fn designations_follow_section_11_1() {
        let p = |kind, promoted| Piece {
            color: Color::Black,
            kind,
            promoted,
        };
        assert_eq!(piece_designation(p(k("P"), false)), "P");
        assert_eq!(piece_designation(p(k("PU"), false)), "PU");
        assert_eq!(piece_designation(p(k("PU"), true)), "+P");
        assert_eq!(piece_designation(p(k("Q"), true)), "+A");
        assert_eq!(piece_designation(p(k("GV"), true)), "+MA");
        assert_eq!(piece_designation(p(k("DU"), true)), "+CU");
        assert_eq!(piece_designation(p(k("TC"), true)), "+D");
    }

    #[test]
    fn texts_split_into_their_parts() {
        let t = read_hodges("CUx19f").unwrap();
        assert_eq!((t.kind, t.promoted, t.origin), (k("CU"), false, None));
        assert_eq!(t.legs, vec![WrittenLeg::Land("19f".parse().unwrap(), true)]);
        let t = read_hodges("SP16n-15m").unwrap();
        assert_eq!(t.origin, Some("16n".parse().unwrap()));
        let t = read_hodges("+D11r-11q-12q-12p-12o-12n").unwrap();
        assert_eq!((t.kind, t.promoted, t.legs.len()), (k("TC"), true, 5));
        let t = read_hodges("WR!12q").unwrap();
        assert_eq!(t.legs, vec![WrittenLeg::Igui("12q".parse().unwrap())]);
        let t = read_hodges("FW-9p*9j*3p").unwrap();
        assert_eq!(t.shots.len(), 2);
        let t = read_hodges("MAx7c=").unwrap();
        assert_eq!(t.promotion, Promotion::Decline);
        assert!(matches!(
            read_hodges("ZZ-10j"),
            Err(NotationError::UnknownPiece { .. })
        ));
        assert!(matches!(
            read_hodges("+G-10j"),
            Err(NotationError::UnknownPiece { .. })
        ));
        assert!(read_hodges("P").is_err());
        assert!(read_hodges("P-").is_err());
        assert!(read_hodges("P-10j+x").is_err());
        assert!(read_hodges("").is_err());
    }
}
