//! Canonical machine notation (§11.2): `<origin>` then `-`/`x` + landing point per leg, `*` + point
//! per shot, then `+` (promote), `=` (declined promotion) or nothing.
//!
//! Formatting is [`Move`]'s `Display` (generated moves carry their canonical path). Parsing reads
//! the text into a [`MovePath`], checks the path against the board (capture markers, no landing on
//! a friendly piece) and returns the legal move with the same effect (§4.10), so any legal path of
//! a move is accepted, not only the canonical one.

use super::NotationError;
use crate::{Color, Move, Position, Promotion, Square};

/// A move as written: an origin, legs, shots and a promotion mark, not yet checked for legality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovePath {
    pub origin: Square,
    /// Landing points in order with their written capture mark (`x` = true).
    pub legs: Vec<(Square, bool)>,
    pub shots: Vec<Square>,
    pub promotion: Promotion,
}

/// The canonical notation of a generated move (the same text as its `Display`).
pub fn format_canonical(mv: &Move) -> String {
    mv.to_string()
}

/// Reads canonical notation into a path without looking at a position.
pub fn parse_canonical_path(text: &str) -> Result<MovePath, NotationError> {
    let mut reader = Reader::new(text);
    let origin = reader.point()?;
    let mut tail = reader.tail()?;
    if tail.legs.is_empty() && tail.shots.is_empty() {
        return Err(reader.error(
            "expected '-' or 'x' and a landing point (or '*' and a shot) after the origin",
        ));
    }
    tail.origin = origin;
    Ok(tail)
}

/// Reads canonical notation and returns the matching move among `legal` (the legal moves of
/// `position`).
pub fn parse_canonical(
    position: &Position,
    legal: &[Move],
    text: &str,
) -> Result<Move, NotationError> {
    let path = parse_canonical_path(text.trim())?;
    resolve_path(position, legal, text.trim(), &path)
}

/// Checks `path` against the board and finds the legal move with its effect.
pub(crate) fn resolve_path(
    position: &Position,
    legal: &[Move],
    text: &str,
    path: &MovePath,
) -> Result<Move, NotationError> {
    let candidate = check_path(position, text, path)?;
    find_same_effect(legal, &candidate).ok_or_else(|| NotationError::Illegal {
        text: text.to_string(),
    })
}

/// The legal move with the effect of `candidate` (cheap fields compared first).
pub(crate) fn find_same_effect(legal: &[Move], candidate: &Move) -> Option<Move> {
    legal
        .iter()
        .filter(|m| {
            m.origin() == candidate.origin()
                && m.destination() == candidate.destination()
                && m.promotion() == candidate.promotion()
        })
        .find(|m| m.same_effect(candidate))
        .copied()
}

/// Validates the written path on the board (a leg ends on a free point or an enemy piece, marked
/// `-` or `x` accordingly; the vacated origin counts as free; a point captured earlier in the move
/// is free again; shots hit enemy pieces still standing) and builds the move it describes.
pub(crate) fn check_path(
    position: &Position,
    text: &str,
    path: &MovePath,
) -> Result<Move, NotationError> {
    let mover = position
        .piece_at(path.origin)
        .ok_or_else(|| NotationError::NoPieceAtOrigin {
            text: text.to_string(),
            origin: path.origin,
        })?;
    if mover.color != position.side_to_move() {
        return Err(NotationError::NotSideToMove {
            text: text.to_string(),
            origin: path.origin,
        });
    }
    let mut removed: Vec<Square> = Vec::new();
    let mut previous = path.origin;
    for (i, &(point, written_capture)) in path.legs.iter().enumerate() {
        let leg = i + 1;
        if point == previous {
            return Err(NotationError::Syntax {
                text: text.to_string(),
                reason: format!("leg {leg} does not move (lands on {point} again)"),
            });
        }
        let occupant = if point == path.origin || removed.contains(&point) {
            None
        } else {
            position.piece_at(point)
        };
        let is_enemy = match occupant {
            None => false,
            Some(p) if p.color == mover.color => {
                return Err(NotationError::LandsOnFriend {
                    text: text.to_string(),
                    leg,
                    point,
                });
            }
            Some(_) => true,
        };
        if is_enemy != written_capture {
            let (actual, expected) = if is_enemy {
                ("holding an enemy piece", 'x')
            } else {
                ("which is free", '-')
            };
            return Err(NotationError::CaptureMarker {
                text: text.to_string(),
                leg,
                point,
                actual,
                expected,
            });
        }
        if is_enemy {
            removed.push(point);
        }
        previous = point;
    }
    let destination = previous;
    for &point in &path.shots {
        let standing = point != destination && point != path.origin && !removed.contains(&point);
        match position.piece_at(point) {
            Some(p) if standing && p.color == opposite(mover.color) => removed.push(point),
            _ => {
                return Err(NotationError::ShotAtNothing {
                    text: text.to_string(),
                    point,
                })
            }
        }
    }
    Move::from_parts(path.origin, &path.legs, &path.shots, path.promotion).map_err(|e| {
        NotationError::Syntax {
            text: text.to_string(),
            reason: e.to_string(),
        }
    })
}

fn opposite(c: Color) -> Color {
    c.opposite()
}

/// A small hand-written scanner shared by both notations (the grammar is tiny and the error
/// messages should point at the offending character).
pub(crate) struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    pub(crate) fn error(&self, reason: &str) -> NotationError {
        if self.text.is_empty() {
            return NotationError::Empty;
        }
        NotationError::Syntax {
            text: self.text.to_string(),
            reason: format!("{reason} (at character {})", self.pos + 1),
        }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(crate) fn bump(&mut self) {
        self.pos += 1;
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// True if a point (a digit) starts here.
    pub(crate) fn at_point(&self) -> bool {
        self.peek().is_some_and(|b| b.is_ascii_digit())
    }

    /// A point: 1–2 digits then a rank letter a–s.
    pub(crate) fn point(&mut self) -> Result<Square, NotationError> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) && self.pos - start < 2 {
            self.bump();
        }
        if self.pos == start {
            return Err(self.error("expected a point such as 10j"));
        }
        match self.peek() {
            Some(b) if b.is_ascii_alphabetic() => self.bump(),
            _ => return Err(self.error("expected a rank letter a-s after the file number")),
        }
        let token = &self.text[start..self.pos];
        token.parse::<Square>().map_err(|e| NotationError::Syntax {
            text: self.text.to_string(),
            reason: e.to_string(),
        })
    }

    /// Legs (`-`/`x` + point), shots (`*` + point) and the promotion mark, up to the end of the
    /// text. The returned path's origin is a placeholder.
    pub(crate) fn tail(&mut self) -> Result<MovePath, NotationError> {
        let mut path = MovePath {
            origin: Square::default(),
            legs: Vec::new(),
            shots: Vec::new(),
            promotion: Promotion::None,
        };
        while let Some(b) = self.peek() {
            match b {
                b'-' | b'x' | b'X' if path.shots.is_empty() => {
                    self.bump();
                    let point = self.point()?;
                    path.legs.push((point, b != b'-'));
                }
                b'*' => {
                    // No legs before a shot = a stationary shot (`shoot_mode` alternatives).
                    self.bump();
                    path.shots.push(self.point()?);
                }
                b'+' | b'=' => {
                    self.bump();
                    path.promotion = if b == b'+' {
                        Promotion::Promote
                    } else {
                        Promotion::Decline
                    };
                    if !self.at_end() {
                        return Err(self.error("nothing may follow the promotion mark"));
                    }
                }
                _ => return Err(self.error("expected '-', 'x', '*', '+' or '='")),
            }
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn paths_are_read_with_all_their_parts() {
        let p = parse_canonical_path("13sx12r-13s").unwrap();
        assert_eq!(p.origin, sq("13s"));
        assert_eq!(p.legs, vec![(sq("12r"), true), (sq("13s"), false)]);
        let p = parse_canonical_path("17q-16p*16m").unwrap();
        assert_eq!(p.shots, vec![sq("16m")]);
        assert_eq!(
            parse_canonical_path("19nx19f+").unwrap().promotion,
            Promotion::Promote
        );
        assert_eq!(
            parse_canonical_path("19n-19g=").unwrap().promotion,
            Promotion::Decline
        );
        let p = parse_canonical_path("10j-11i*11h*11f").unwrap();
        assert_eq!(p.shots, vec![sq("11h"), sq("11f")]);
    }

    #[test]
    fn malformed_text_is_rejected_with_a_reason() {
        for bad in [
            "",
            "10j",
            "10j-",
            "10j-10",
            "j10-10i",
            "10j10i",
            "10j-10t",
            "10j-20a",
            "10j-10i+=",
            "10j-10i*",
            "10j-10i*10h-10g",
            "10j-10i-10h-10g-10f-10e-10d",
        ] {
            let result = parse_canonical_path(bad);
            // Six legs parse as a path but cannot become a move: checked in check_path.
            if bad.matches('-').count() >= 6 {
                assert!(result.is_ok());
                continue;
            }
            assert!(result.is_err(), "{bad:?} accepted");
        }
    }
}
