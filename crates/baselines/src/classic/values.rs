//! What the engine counts a piece as: the baselines' material scale in centipawns, with the
//! artillery weighted (`artillery=PERCENT`, double by default).
//!
//! Why a weight for the artillery alone: the games the engine lost to `ab:3` were decided by
//! shooters (docs/results.md, CL3 and CL4), above all the Frankish cannon, which after one
//! diagonal step shoots twice, along any of the eight lines, at range 7 (§4.7), and is worth
//! 8 pawns on the baselines' scale — less than the two pieces it can take in one move. With the
//! artillery counted double the engine scored 93.8 % against `ab:3` at 100,000 nodes (19 of 32
//! games won by the command) where it had scored 76.6 % (4 by the command; docs/results.md,
//! CL5). Every part of the search that weighs pieces (evaluation, capture order, exchange
//! evaluation, threats) reads the same [`PieceValues`], so the engine's view stays consistent.

use std::sync::OnceLock;

use koshogi_rules::material::baseline_piece_value;
use koshogi_rules::PieceKind;

/// Centipawns of one piece of `kind` on the baselines' scale
/// ([`baseline_piece_value`] × 100).
pub fn piece_centipawns(kind: PieceKind) -> i32 {
    BASELINE.get_or_init(baseline_table)[kind.index()]
}

/// [`baseline_piece_value`] in centipawns, by [`PieceKind::index`] (read at every node).
static BASELINE: OnceLock<[i32; PieceKind::COUNT]> = OnceLock::new();

fn baseline_table() -> [i32; PieceKind::COUNT] {
    let mut table = [0; PieceKind::COUNT];
    for kind in PieceKind::ALL {
        table[kind.index()] = (baseline_piece_value(kind) * 100.0).round() as i32;
    }
    table
}

/// The artillery of §4.7.1: shooters other than the priest family (longbow, crossbow, cannon,
/// Frankish cannon and their promotions).
pub fn is_artillery(kind: PieceKind) -> bool {
    use PieceKind::*;
    matches!(
        kind,
        Longbow
            | Crossbow
            | Cannon
            | FrankishCannon
            | LongbowCavalry
            | CrossbowCavalry
            | WarCart
            | ChariotOfTheGods
    )
}

/// Default artillery weight, in percent of the baselines' scale (measured against 100 and 150
/// in docs/results.md, CL5).
pub const DEFAULT_ARTILLERY_PERCENT: u16 = 200;
/// What `artillery=PERCENT` accepts.
pub const ARTILLERY_PERCENT_RANGE: std::ops::RangeInclusive<u16> = 25..=400;

/// The engine's centipawns per piece kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceValues {
    centipawns: [i32; PieceKind::COUNT],
}

impl Default for PieceValues {
    fn default() -> Self {
        Self::with_artillery(DEFAULT_ARTILLERY_PERCENT)
    }
}

impl PieceValues {
    /// The baselines' scale unchanged (what `greedy` and `ab:<depth>` count).
    pub fn baseline() -> Self {
        Self::with_artillery(100)
    }

    /// The baselines' scale with every artillery piece weighted by `percent` (100: unchanged).
    pub fn with_artillery(percent: u16) -> Self {
        let mut centipawns = *BASELINE.get_or_init(baseline_table);
        for kind in PieceKind::ALL
            .into_iter()
            .filter(|&kind| is_artillery(kind))
        {
            let value = &mut centipawns[kind.index()];
            *value = *value * i32::from(percent) / 100;
        }
        Self { centipawns }
    }

    /// Centipawns of one piece of `kind`.
    #[inline]
    pub fn of(&self, kind: PieceKind) -> i32 {
        self.centipawns[kind.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PieceKind::*;

    #[test]
    fn the_baseline_is_the_baselines_scale() {
        let values = PieceValues::baseline();
        for kind in PieceKind::ALL {
            assert_eq!(values.of(kind), piece_centipawns(kind), "{kind:?}");
        }
        assert_eq!(values.of(Pawn), 100);
        assert_eq!(values.of(FrankishCannon), 800);
    }

    #[test]
    fn the_artillery_weight_moves_the_eight_shooters_only() {
        let doubled = PieceValues::with_artillery(200);
        let artillery: Vec<_> = PieceKind::ALL
            .into_iter()
            .filter(|&kind| is_artillery(kind))
            .collect();
        assert_eq!(artillery.len(), 8);
        for kind in PieceKind::ALL {
            let expected = piece_centipawns(kind) * if is_artillery(kind) { 2 } else { 1 };
            assert_eq!(doubled.of(kind), expected, "{kind:?}");
        }
        assert_eq!(doubled.of(ChariotOfTheGods), 2800);
        // The priest family shoots too, but is not artillery (§4.7.1).
        assert!(!is_artillery(TaoistPriest) && !is_artillery(FiveLiFog));
    }
}
