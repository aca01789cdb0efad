//! Exact policy encoding: every legal move gets its own logit.
//!
//! The network's policy head outputs [`POLICY_PLANES`] planes over the 19×19 points. A move is
//! encoded as a short, sorted list of *legs*, each one entry `plane · 361 + point` of that
//! output; the move's logit is the sum of its legs' entries and the policy is a softmax over the
//! position's legal moves only (never over all `POLICY_PLANES × 361` entries).
//!
//! A move is encoded by its **effect** (§4.10 of the rules: origin, final point, the points whose
//! pieces it removes, promotion choice), never by its leg path. Two reasons: (1) the rules treat
//! all paths with one effect as one move, and (2) the canonical path is chosen in Black's
//! absolute coordinates (§11.2), so a path-based encoding would differ between a position and its
//! colour-flipped twin, and between a move and its mirror image. An effect-based encoding is a
//! pure function of geometry in the mover's frame, hence identical for twins and exactly
//! mirrorable. It is injective because two distinct legal moves differ in effect.
//!
//! Legs (all points and offsets in the mover's frame, see `docs/move-encoding.md`):
//! * one **destination** leg at the origin: the plane of the offset final − origin;
//! * one **removal** leg at the final point per removed piece other than the one on the final
//!   point itself (captured on the way by a multi-leg move, by igui, or shot): the plane of the
//!   offset removed point − final point;
//! * one **promotion** leg at the final point if the move carries a promote / decline choice.
//!
//! Everything here except [`encode_move`] is independent of the rules crate.

use crate::error::EncodingError;
use crate::geometry::{mirror_point, offset_between, Offset, POINTS};

/// Version of the plane table and leg rules; bump on any change (checkpoints record it).
pub const MOVE_ENCODING_VERSION: u32 = 1;

/// Largest |Δ| of the offsets in the 9×9 "near" square used by both leg families.
pub const NEAR: i8 = 4;
/// Number of points in the near square (including the centre).
const NEAR_SQUARE: usize = 81;
/// The eight prime directions in the mover's frame as (Δfile, Δrank), in plane order:
/// forward, forward-left, left, backward-left, backward, backward-right, right, forward-right.
/// (Rank 1 is the far side from the mover, so forward is Δrank = −1; file numbers grow to the
/// mover's left, as for Black in §1.4 of the rules.)
pub const DIRECTIONS: [Offset; 8] = [
    Offset { file: 0, rank: -1 },
    Offset { file: 1, rank: -1 },
    Offset { file: 1, rank: 0 },
    Offset { file: 1, rank: 1 },
    Offset { file: 0, rank: 1 },
    Offset { file: -1, rank: 1 },
    Offset { file: -1, rank: 0 },
    Offset { file: -1, rank: -1 },
];
/// Longest line move on a 19×19 board.
pub const MAX_RAY: i8 = 18;
/// Longest shot (Frankish cannon / chariot of the gods).
pub const MAX_SHOT: i8 = 7;

/// First destination plane and count: the near square (81, centre = igui/pass), then the rays of
/// length 5..=18 in the 8 directions (112).
pub const DESTINATION_PLANES: std::ops::Range<usize> =
    0..NEAR_SQUARE + 8 * (MAX_RAY as usize - NEAR as usize);
/// Removal planes: the near square without its centre (80), then rays of length 5..=7 (24).
pub const REMOVAL_PLANES: std::ops::Range<usize> = DESTINATION_PLANES.end
    ..DESTINATION_PLANES.end + (NEAR_SQUARE - 1) + 8 * (MAX_SHOT as usize - NEAR as usize);
/// The promotion plane (the mover promotes by choice).
pub const PROMOTE_PLANE: usize = REMOVAL_PLANES.end;
/// The declined-promotion plane.
pub const DECLINE_PLANE: usize = PROMOTE_PLANE + 1;
/// Number of policy planes the network outputs.
pub const POLICY_PLANES: usize = DECLINE_PLANE + 1;
/// Most legs one move can have (1 destination + up to 4 removals on the way of a thunderclap or
/// flag waver, or 1 + 3 for a fog/lamp; + 1 promotion); with margin.
pub const MAX_LEGS: usize = 8;

/// What a plane means (for documentation, mirroring and tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaneMeaning {
    /// Leg at the origin: the move ends at origin + offset.
    Destination(Offset),
    /// Leg at the final point: the piece at final + offset is removed.
    Removal(Offset),
    Promote,
    Decline,
}

fn near_index(offset: Offset) -> Option<usize> {
    let (f, r) = (offset.file, offset.rank);
    if f.abs() <= NEAR && r.abs() <= NEAR {
        Some(((r + NEAR) as usize) * 9 + (f + NEAR) as usize)
    } else {
        None
    }
}

/// (direction index, distance) if the offset lies on a prime line.
fn ray_of(offset: Offset) -> Option<(usize, i8)> {
    let (f, r) = (offset.file, offset.rank);
    let distance = f.abs().max(r.abs());
    if distance == 0 || !(f == 0 || r == 0 || f.abs() == r.abs()) {
        return None;
    }
    let unit = Offset {
        file: f.signum(),
        rank: r.signum(),
    };
    DIRECTIONS
        .iter()
        .position(|&d| d == unit)
        .map(|dir| (dir, distance))
}

/// Plane of a destination leg for `offset` = final − origin, if the table has one.
pub fn destination_plane(offset: Offset) -> Option<usize> {
    if let Some(i) = near_index(offset) {
        return Some(DESTINATION_PLANES.start + i);
    }
    let (dir, distance) = ray_of(offset)?;
    (distance <= MAX_RAY)
        .then(|| DESTINATION_PLANES.start + NEAR_SQUARE + (distance - NEAR - 1) as usize * 8 + dir)
}

/// Plane of a removal leg for `offset` = removed point − final point, if the table has one.
pub fn removal_plane(offset: Offset) -> Option<usize> {
    if let Some(i) = near_index(offset) {
        let centre = NEAR_SQUARE / 2;
        return match i.cmp(&centre) {
            std::cmp::Ordering::Less => Some(REMOVAL_PLANES.start + i),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(REMOVAL_PLANES.start + i - 1),
        };
    }
    let (dir, distance) = ray_of(offset)?;
    (distance <= MAX_SHOT).then(|| {
        REMOVAL_PLANES.start + (NEAR_SQUARE - 1) + (distance - NEAR - 1) as usize * 8 + dir
    })
}

/// The meaning of plane `plane` (`None` if out of range).
pub fn plane_meaning(plane: usize) -> Option<PlaneMeaning> {
    let near_offset = |i: usize| Offset {
        file: (i % 9) as i8 - NEAR,
        rank: (i / 9) as i8 - NEAR,
    };
    let ray_offset = |i: usize| {
        let d = DIRECTIONS[i % 8];
        let distance = (i / 8) as i8 + NEAR + 1;
        Offset {
            file: d.file * distance,
            rank: d.rank * distance,
        }
    };
    if DESTINATION_PLANES.contains(&plane) {
        let i = plane - DESTINATION_PLANES.start;
        let offset = if i < NEAR_SQUARE {
            near_offset(i)
        } else {
            ray_offset(i - NEAR_SQUARE)
        };
        Some(PlaneMeaning::Destination(offset))
    } else if REMOVAL_PLANES.contains(&plane) {
        let i = plane - REMOVAL_PLANES.start;
        let offset = if i < NEAR_SQUARE - 1 {
            near_offset(if i < NEAR_SQUARE / 2 { i } else { i + 1 })
        } else {
            ray_offset(i - (NEAR_SQUARE - 1))
        };
        Some(PlaneMeaning::Removal(offset))
    } else if plane == PROMOTE_PLANE {
        Some(PlaneMeaning::Promote)
    } else if plane == DECLINE_PLANE {
        Some(PlaneMeaning::Decline)
    } else {
        None
    }
}

/// The plane of the left–right mirror image of a leg on `plane`.
pub fn mirror_plane(plane: usize) -> usize {
    match plane_meaning(plane) {
        Some(PlaneMeaning::Destination(o)) => {
            destination_plane(o.mirrored()).expect("the destination table is mirror-symmetric")
        }
        Some(PlaneMeaning::Removal(o)) => {
            removal_plane(o.mirrored()).expect("the removal table is mirror-symmetric")
        }
        _ => plane,
    }
}

/// The promotion decision carried by a move, as far as the encoding cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PromotionChoice {
    /// No choice was offered (includes mandatory promotions: they follow from the board).
    #[default]
    None,
    Promote,
    Decline,
}

/// A move's effect in the mover's frame (points are mover-frame indices 0..361).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MoveEffect {
    pub origin: u16,
    pub destination: u16,
    /// Points whose enemy pieces the move removes, other than the destination (in any order;
    /// duplicates are ignored).
    pub removed: Vec<u16>,
    pub promotion: PromotionChoice,
}

/// The legs of one move: sorted, distinct entries `plane · 361 + point` of the policy output.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveLegs {
    len: u8,
    entries: [u32; MAX_LEGS],
}

impl std::fmt::Debug for MoveLegs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(
                self.iter()
                    .map(|e| (e as usize / POINTS, e as usize % POINTS)),
            )
            .finish()
    }
}

impl Default for MoveLegs {
    fn default() -> Self {
        MoveLegs {
            len: 0,
            entries: [0; MAX_LEGS],
        }
    }
}

impl MoveLegs {
    /// Builds a leg list from entries (sorted here; duplicate entries are an error because the
    /// logit would count them twice).
    pub fn from_entries(entries: &[u32]) -> Result<MoveLegs, EncodingError> {
        if entries.is_empty() || entries.len() > MAX_LEGS {
            return Err(EncodingError::UnencodableMove(format!(
                "{} legs (allowed 1..={MAX_LEGS})",
                entries.len()
            )));
        }
        let mut legs = MoveLegs {
            len: entries.len() as u8,
            entries: [0; MAX_LEGS],
        };
        legs.entries[..entries.len()].copy_from_slice(entries);
        legs.entries[..entries.len()].sort_unstable();
        if legs.as_slice().windows(2).any(|w| w[0] == w[1]) {
            return Err(EncodingError::UnencodableMove(format!(
                "duplicate leg in {legs:?}"
            )));
        }
        if let Some(&bad) = legs
            .as_slice()
            .iter()
            .find(|&&e| e as usize >= POLICY_PLANES * POINTS)
        {
            return Err(EncodingError::UnencodableMove(format!(
                "leg entry {bad} out of range"
            )));
        }
        Ok(legs)
    }

    /// The entries `plane · 361 + point`, ascending.
    pub fn as_slice(&self) -> &[u32] {
        &self.entries[..self.len as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.as_slice().iter().copied()
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The legs of the left–right mirror image of this move (for mirror augmentation: the rules
    /// are mirror-symmetric, so the mirrored move is legal in the mirrored position).
    pub fn mirrored(&self) -> MoveLegs {
        let mut out = *self;
        for entry in &mut out.entries[..self.len as usize] {
            let (plane, point) = (*entry as usize / POINTS, *entry as usize % POINTS);
            *entry = (mirror_plane(plane) * POINTS + mirror_point(point as u16) as usize) as u32;
        }
        out.entries[..self.len as usize].sort_unstable();
        out
    }
}

/// Encodes a move effect (mover's frame) into its legs.
pub fn encode_effect(effect: &MoveEffect) -> Result<MoveLegs, EncodingError> {
    let entry = |plane: usize, point: u16| (plane * POINTS + point as usize) as u32;
    if effect.origin as usize >= POINTS || effect.destination as usize >= POINTS {
        return Err(EncodingError::UnencodableMove(format!(
            "point out of range in {effect:?}"
        )));
    }
    let mut entries = [0u32; MAX_LEGS];
    let mut len = 0usize;
    let mut push = |e: u32| -> Result<(), EncodingError> {
        if entries[..len].contains(&e) {
            return Ok(()); // the same removed point listed twice
        }
        if len == MAX_LEGS {
            return Err(EncodingError::UnencodableMove(format!(
                "more than {MAX_LEGS} legs in {effect:?}"
            )));
        }
        entries[len] = e;
        len += 1;
        Ok(())
    };
    let travel = offset_between(effect.origin, effect.destination);
    let plane = destination_plane(travel).ok_or_else(|| {
        EncodingError::UnencodableMove(format!("no destination plane for offset {travel:?}"))
    })?;
    push(entry(plane, effect.origin))?;
    for &removed in &effect.removed {
        if removed == effect.destination {
            continue; // a capture on the final point follows from the board
        }
        if removed as usize >= POINTS {
            return Err(EncodingError::UnencodableMove(format!(
                "point out of range in {effect:?}"
            )));
        }
        let offset = offset_between(effect.destination, removed);
        let plane = removal_plane(offset).ok_or_else(|| {
            EncodingError::UnencodableMove(format!("no removal plane for offset {offset:?}"))
        })?;
        push(entry(plane, effect.destination))?;
    }
    match effect.promotion {
        PromotionChoice::None => {}
        PromotionChoice::Promote => push(entry(PROMOTE_PLANE, effect.destination))?,
        PromotionChoice::Decline => push(entry(DECLINE_PLANE, effect.destination))?,
    }
    MoveLegs::from_entries(&entries[..len])
}

/// Encodes a legal move of `position` (the position *before* the move).
pub fn encode_move(
    position: &koshogi_rules::Position,
    mv: &koshogi_rules::Move,
) -> Result<MoveLegs, EncodingError> {
    use crate::geometry::to_mover_frame;
    use koshogi_rules::Promotion;
    let mover = position.side_to_move();
    let frame = |sq: koshogi_rules::Square| to_mover_frame(sq, mover);
    let removed = mv.removed_points();
    let effect = MoveEffect {
        origin: frame(mv.origin()),
        destination: frame(mv.destination()),
        // The removed set of §4.10 (displacement on the way, igui, shots); a capture on the final
        // point is implied by the board and skipped by encode_effect.
        removed: removed.into_iter().map(frame).collect(),
        promotion: match mv.promotion() {
            Promotion::None => PromotionChoice::None,
            Promotion::Promote => PromotionChoice::Promote,
            Promotion::Decline => PromotionChoice::Decline,
        },
    };
    encode_effect(&effect)
}

/// Encodes all `moves` of `position` into `out` (cleared first), in the same order.
pub fn encode_moves(
    position: &koshogi_rules::Position,
    moves: &[koshogi_rules::Move],
    out: &mut Vec<MoveLegs>,
) -> Result<(), EncodingError> {
    out.clear();
    out.reserve(moves.len());
    for mv in moves {
        out.push(encode_move(position, mv)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::point;

    #[test]
    fn plane_counts_match_the_documented_table() {
        assert_eq!(DESTINATION_PLANES.len(), 81 + 14 * 8);
        assert_eq!(REMOVAL_PLANES.len(), 80 + 3 * 8);
        assert_eq!(POLICY_PLANES, 193 + 104 + 2);
    }

    #[test]
    fn every_plane_has_a_unique_meaning_that_maps_back() {
        let mut seen = std::collections::HashSet::new();
        for plane in 0..POLICY_PLANES {
            let meaning = plane_meaning(plane).expect("in range");
            assert!(
                seen.insert(format!("{meaning:?}")),
                "plane {plane} repeats {meaning:?}"
            );
            let back = match meaning {
                PlaneMeaning::Destination(o) => destination_plane(o),
                PlaneMeaning::Removal(o) => removal_plane(o),
                PlaneMeaning::Promote => Some(PROMOTE_PLANE),
                PlaneMeaning::Decline => Some(DECLINE_PLANE),
            };
            assert_eq!(back, Some(plane));
        }
        assert_eq!(plane_meaning(POLICY_PLANES), None);
    }

    #[test]
    fn tables_cover_every_geometry_the_rules_need() {
        // Line moves to distance 18 in all 8 directions (§4.3), knight leaps (§4.4) and every
        // destination of the 2-leg and 5-leg pieces (all within the 9×9 square, §5).
        for d in DIRECTIONS {
            for k in 1..=MAX_RAY {
                assert!(destination_plane(Offset {
                    file: d.file * k,
                    rank: d.rank * k
                })
                .is_some());
            }
            for k in 1..=MAX_SHOT {
                assert!(removal_plane(Offset {
                    file: d.file * k,
                    rank: d.rank * k
                })
                .is_some());
            }
        }
        for file in -4..=4 {
            for rank in -4..=4 {
                assert!(destination_plane(Offset { file, rank }).is_some());
            }
        }
        assert_eq!(removal_plane(Offset { file: 0, rank: 0 }), None);
        assert_eq!(destination_plane(Offset { file: 5, rank: 1 }), None);
        assert_eq!(removal_plane(Offset { file: 0, rank: 8 }), None);
    }

    #[test]
    fn mirror_is_an_involution_that_negates_file_offsets() {
        for plane in 0..POLICY_PLANES {
            let m = mirror_plane(plane);
            assert_eq!(mirror_plane(m), plane);
            match (plane_meaning(plane).unwrap(), plane_meaning(m).unwrap()) {
                (PlaneMeaning::Destination(a), PlaneMeaning::Destination(b))
                | (PlaneMeaning::Removal(a), PlaneMeaning::Removal(b)) => {
                    assert_eq!((a.file, a.rank), (-b.file, b.rank));
                }
                (a, b) => assert_eq!(a, b),
            }
        }
    }

    #[test]
    fn a_simple_step_has_one_leg_at_the_origin() {
        // Mover-frame 10j -> 10i (one step forward).
        let effect = MoveEffect {
            origin: point(10, 10),
            destination: point(10, 9),
            ..Default::default()
        };
        let legs = encode_effect(&effect).unwrap();
        let plane = destination_plane(Offset { file: 0, rank: -1 }).unwrap();
        assert_eq!(
            legs.as_slice(),
            &[(plane * POINTS + point(10, 10) as usize) as u32]
        );
    }

    #[test]
    fn igui_capture_and_pass_differ_and_mirror_correctly() {
        let origin = point(10, 10);
        let pass = MoveEffect {
            origin,
            destination: origin,
            ..Default::default()
        };
        let igui = MoveEffect {
            origin,
            destination: origin,
            removed: vec![point(11, 9)],
            ..Default::default()
        };
        let (pass_legs, igui_legs) = (encode_effect(&pass).unwrap(), encode_effect(&igui).unwrap());
        assert_ne!(pass_legs, igui_legs);
        assert_eq!(igui_legs.len(), 2);
        // Mirror image: file f -> 20 - f, so the victim at 11i is at 9i in the mirror.
        let mirrored = MoveEffect {
            origin,
            destination: origin,
            removed: vec![point(9, 9)],
            ..Default::default()
        };
        assert_eq!(igui_legs.mirrored(), encode_effect(&mirrored).unwrap());
        assert_eq!(igui_legs.mirrored().mirrored(), igui_legs);
    }

    #[test]
    fn removal_order_and_duplicates_do_not_matter_but_promotion_does() {
        let base = MoveEffect {
            origin: point(10, 10),
            destination: point(10, 13),
            removed: vec![point(10, 11), point(10, 12), point(10, 11)],
            promotion: PromotionChoice::None,
        };
        let reordered = MoveEffect {
            removed: vec![point(10, 12), point(10, 11)],
            ..base.clone()
        };
        assert_eq!(
            encode_effect(&base).unwrap(),
            encode_effect(&reordered).unwrap()
        );
        let promote = MoveEffect {
            promotion: PromotionChoice::Promote,
            ..base.clone()
        };
        let decline = MoveEffect {
            promotion: PromotionChoice::Decline,
            ..base.clone()
        };
        let legs = [&base, &promote, &decline].map(|e| encode_effect(e).unwrap());
        assert_ne!(legs[0], legs[1]);
        assert_ne!(legs[1], legs[2]);
        assert_ne!(legs[0], legs[2]);
    }

    #[test]
    fn capture_on_the_final_point_is_implied_not_encoded() {
        let plain = MoveEffect {
            origin: point(3, 3),
            destination: point(3, 5),
            ..Default::default()
        };
        let listed = MoveEffect {
            removed: vec![point(3, 5)],
            ..plain.clone()
        };
        assert_eq!(
            encode_effect(&plain).unwrap(),
            encode_effect(&listed).unwrap()
        );
    }

    #[test]
    fn out_of_table_geometry_is_an_error_not_a_panic() {
        let far_shot = MoveEffect {
            origin: point(1, 1),
            destination: point(1, 2),
            removed: vec![point(1, 12)],
            ..Default::default()
        };
        assert!(encode_effect(&far_shot).is_err());
        let knightish_far = MoveEffect {
            origin: point(1, 1),
            destination: point(2, 7),
            ..Default::default()
        };
        assert!(encode_effect(&knightish_far).is_err());
    }
}
