//! A move as the rules identify it (§4.10): origin, landing points of its legs (canonical path,
//! §11.2), points removed by shots, and the promotion decision. The per-leg capture flags make the
//! canonical notation printable without the position.

use crate::Square;
use std::fmt;

/// The promotion part of a move's identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Promotion {
    /// No promotion happens and none was available.
    #[default]
    None,
    /// The mover promotes at the end of the move: either the owner chose to (zone promotion) or
    /// the promotion was mandatory (capture-triggered, §8.4). Written `+`.
    Promote,
    /// An optional promotion was available and declined. Written `=`.
    Decline,
}

/// Maximum number of legs of any move (the thunderclap's five).
pub const MAX_LEGS: usize = 5;
/// Maximum number of shots in one move (Frankish cannon / chariot of the gods; the priest
/// family's fog and lamp also shoot at most twice).
pub const MAX_SHOTS: usize = 2;

/// One legal move, in canonical form when produced by the generator.
///
/// Equality and hashing are structural. Generated moves are canonical (one per effect), so two
/// generated moves are equal iff they have the same effect; to compare a move parsed from a
/// non-canonical path, use [`Move::same_effect`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    origin: Square,
    legs: [Square; MAX_LEGS],
    shots: [Square; MAX_SHOTS],
    n_legs: u8,
    n_shots: u8,
    /// Bit i set = leg i ends by displacing an enemy piece (`x`), else `-`.
    capture_mask: u8,
    promotion: Promotion,
}

/// Why [`Move::from_parts`] refused its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveBuildError {
    #[error("a move needs 1 to {MAX_LEGS} legs (0 only for a stationary shot), got {0}")]
    LegCount(usize),
    #[error("a move has at most {MAX_SHOTS} shots, got {0}")]
    ShotCount(usize),
}

impl Move {
    /// Builds a move from its parts: `legs` are (landing point, captures-by-displacement) pairs.
    /// No legality check: compare against generated moves (by [`Move::same_effect`]) for that.
    pub fn from_parts(
        origin: Square,
        legs: &[(Square, bool)],
        shots: &[Square],
        promotion: Promotion,
    ) -> Result<Move, MoveBuildError> {
        if (legs.is_empty() && shots.is_empty()) || legs.len() > MAX_LEGS {
            return Err(MoveBuildError::LegCount(legs.len()));
        }
        if shots.len() > MAX_SHOTS {
            return Err(MoveBuildError::ShotCount(shots.len()));
        }
        let mut mv = Move {
            origin,
            legs: [Square::default(); MAX_LEGS],
            shots: [Square::default(); MAX_SHOTS],
            n_legs: legs.len() as u8,
            n_shots: shots.len() as u8,
            capture_mask: 0,
            promotion,
        };
        for (i, (sq, captures)) in legs.iter().enumerate() {
            mv.legs[i] = *sq;
            if *captures {
                mv.capture_mask |= 1 << i;
            }
        }
        mv.shots[..shots.len()].copy_from_slice(shots);
        Ok(mv)
    }

    /// Fast internal constructor used by the generator (slices already bounded).
    #[inline]
    pub(crate) fn raw(
        origin: Square,
        legs: &[Square],
        capture_mask: u8,
        shots: &[Square],
        promotion: Promotion,
    ) -> Move {
        let mut mv = Move {
            origin,
            legs: [Square::default(); MAX_LEGS],
            shots: [Square::default(); MAX_SHOTS],
            n_legs: legs.len() as u8,
            n_shots: shots.len() as u8,
            capture_mask,
            promotion,
        };
        mv.legs[..legs.len()].copy_from_slice(legs);
        mv.shots[..shots.len()].copy_from_slice(shots);
        mv
    }

    /// Fast internal constructor of a one-leg move without shots.
    #[inline]
    pub(crate) fn single(origin: Square, to: Square, captures: bool, promotion: Promotion) -> Move {
        let mut legs = [Square::default(); MAX_LEGS];
        legs[0] = to;
        Move {
            origin,
            legs,
            shots: [Square::default(); MAX_SHOTS],
            n_legs: 1,
            n_shots: 0,
            capture_mask: captures as u8,
            promotion,
        }
    }

    /// Point the piece starts from.
    pub fn origin(&self) -> Square {
        self.origin
    }

    /// Landing points of the legs in order (1..=5; igui and passes end on the origin). Empty only
    /// for a stationary shot, which exists only under `shoot_mode = stationary_only | either`.
    pub fn legs(&self) -> &[Square] {
        &self.legs[..self.n_legs as usize]
    }

    /// Whether leg `i` displaced an enemy piece (`x` in notation).
    pub fn leg_captures(&self, i: usize) -> bool {
        i < self.n_legs as usize && self.capture_mask & (1 << i) != 0
    }

    /// Bit i set = leg i captured by displacement.
    pub fn capture_mask(&self) -> u8 {
        self.capture_mask
    }

    /// Final point of the mover.
    pub fn destination(&self) -> Square {
        match self.n_legs {
            0 => self.origin,
            n => self.legs[n as usize - 1],
        }
    }

    /// Points whose pieces were shot (0..=2), in notation order.
    pub fn shots(&self) -> &[Square] {
        &self.shots[..self.n_shots as usize]
    }

    /// The promotion decision.
    pub fn promotion(&self) -> Promotion {
        self.promotion
    }

    /// True if the move removes at least one enemy piece by displacement, igui or shot (burning
    /// is a consequence and not counted).
    pub fn is_capture(&self) -> bool {
        self.capture_mask != 0 || self.n_shots != 0
    }

    /// True for a pass (§4.6, AMB-29): a stationary move ([`Move::is_stationary`]) that
    /// promotes nothing, so the board is as it was (only the turn changes; under the
    /// non-default `flame_mode = tenjiku_like` an enemy flame next to the origin still burns
    /// the passer). This is the one definition of a pass: search, notation, statistics and
    /// tools all ask it.
    pub fn is_pass(&self) -> bool {
        self.is_stationary() && self.promotion != Promotion::Promote
    }

    /// True for legs that end back on the origin removing nothing: a pass, or one that
    /// promotes the piece in place. A stationary shot (no legs) captures, so it is never
    /// stationary in this sense; igui ends on the origin but captures.
    pub fn is_stationary(&self) -> bool {
        self.n_legs > 1 && self.destination() == self.origin && !self.is_capture()
    }

    /// Points whose enemy pieces this move removes: its capturing legs, then its shots, in
    /// that order (a point may come twice); [`Move::removed_points`] without the allocation.
    pub fn removals(&self) -> impl Iterator<Item = Square> + '_ {
        (0..self.n_legs as usize)
            .filter(|&i| self.leg_captures(i))
            .map(|i| self.legs[i])
            .chain(self.shots().iter().copied())
    }

    /// Points whose enemy pieces this move removes by displacement, igui or shot, sorted and
    /// de-duplicated (the "removed set" of §4.10).
    pub fn removed_points(&self) -> Vec<Square> {
        let mut v: Vec<Square> = self.removals().collect();
        v.sort();
        v.dedup();
        v
    }

    /// Whether the move removes the enemy piece on `point` (by displacement, igui or shot):
    /// [`Move::removed_points`] contains it, asked without building the set.
    pub fn removes(&self, point: Square) -> bool {
        (0..self.n_legs as usize).any(|i| self.leg_captures(i) && self.legs[i] == point)
            || self.shots().contains(&point)
    }

    /// Same effect (§4.10): origin, final point, removed set and promotion decision agree.
    pub fn same_effect(&self, other: &Move) -> bool {
        self.origin == other.origin
            && self.destination() == other.destination()
            && self.promotion == other.promotion
            && self.removed_points() == other.removed_points()
    }

    /// The move with a different promotion decision.
    pub fn with_promotion(mut self, promotion: Promotion) -> Move {
        self.promotion = promotion;
        self
    }
}

impl fmt::Display for Move {
    /// Canonical machine notation (§11.2), e.g. `13sx12r-13s`, `17q-16p*16m`, `19nx19f+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        for (i, sq) in self.legs().iter().enumerate() {
            let sep = if self.leg_captures(i) { 'x' } else { '-' };
            write!(f, "{sep}{sq}")?;
        }
        for sq in self.shots() {
            write!(f, "*{sq}")?;
        }
        match self.promotion {
            Promotion::None => Ok(()),
            Promotion::Promote => f.write_str("+"),
            Promotion::Decline => f.write_str("="),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn display_is_canonical_notation() {
        let m = Move::from_parts(
            sq("13s"),
            &[(sq("12r"), true), (sq("13s"), false)],
            &[],
            Promotion::None,
        )
        .unwrap();
        assert_eq!(m.to_string(), "13sx12r-13s");
        assert_eq!(m.destination(), sq("13s"));
        let m = Move::from_parts(
            sq("17q"),
            &[(sq("16p"), false)],
            &[sq("16m")],
            Promotion::None,
        )
        .unwrap();
        assert_eq!(m.to_string(), "17q-16p*16m");
        let m = Move::from_parts(sq("19n"), &[(sq("19f"), true)], &[], Promotion::Promote).unwrap();
        assert_eq!(m.to_string(), "19nx19f+");
        assert_eq!(m.with_promotion(Promotion::Decline).to_string(), "19nx19f=");
    }

    #[test]
    fn a_pass_returns_to_its_origin_and_removes_nothing() {
        let pass = |promotion| {
            Move::from_parts(
                sq("13s"),
                &[(sq("13r"), false), (sq("13s"), false)],
                &[],
                promotion,
            )
            .unwrap()
        };
        assert!(pass(Promotion::None).is_pass());
        assert!(pass(Promotion::Decline).is_pass());
        assert!(!pass(Promotion::Promote).is_pass());
        let igui = Move::from_parts(
            sq("13s"),
            &[(sq("12r"), true), (sq("13s"), false)],
            &[],
            Promotion::None,
        )
        .unwrap();
        assert!(!igui.is_pass());
        let two_steps = Move::from_parts(
            sq("13s"),
            &[(sq("13r"), false), (sq("13q"), false)],
            &[],
            Promotion::None,
        )
        .unwrap();
        assert!(!two_steps.is_pass());
    }

    #[test]
    fn effect_ignores_the_path() {
        let a = Move::from_parts(
            sq("10j"),
            &[(sq("10i"), false), (sq("10h"), false)],
            &[],
            Promotion::None,
        )
        .unwrap();
        let b = Move::from_parts(sq("10j"), &[(sq("10h"), false)], &[], Promotion::None).unwrap();
        assert!(a.same_effect(&b));
        assert_ne!(a, b);
        assert!(Move::from_parts(sq("10j"), &[], &[], Promotion::None).is_err());
        assert!(std::mem::size_of::<Move>() <= 24);
    }
}
