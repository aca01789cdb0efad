//! How far a piece's moves can remove anything, bounded cheaply, so that a generator can skip
//! work that cannot produce a capture:
//! * [`Reach`], per movement table: a generator asked for the captures of one point
//!   ([`super::captures::generate_captures_removing`]) skips the pieces that cannot possibly take
//!   there, without walking their moves;
//! * [`shot_star`]: the points a shot from a landing point may hit; a shooter's shots from there
//!   are tried only if an enemy piece stands on them.
//!
//! Why: static exchange evaluation asks, after every capture on a point, which enemy moves
//! retake on that point; generating all of a side's captures to keep those few, and walking the
//! eight lines of every shooter's every landing point, were most of an engine's time in the
//! middle game (~90 pieces a side, a handful within reach of any point).
//!
//! The bounds are deliberately loose, never tight: a piece passes if the point is within its
//! finite reach (Chebyshev distance: steps, jumps, both legs of a lion move, the multi-step
//! specials, short slides, plus the range of the shot it may make after moving) or on a line
//! through it when it has an unlimited slide. A slider that may also shoot after moving can
//! reach anywhere. Exactness is not needed (the moves of a passing piece are still filtered
//! by what they remove); only that nothing that can capture is skipped, which the property tests
//! check against full generation on random boards ([`super::captures`]) and against a naive
//! enumeration of shots (`movegen::tests`).

use super::tables::{KindMoves, Special, INF, PRIME, TABLES};
use crate::mailbox::{file_rank, CELLS, MB_TO_SQ, WIDTH};
use crate::position::OCC_WORDS;
use crate::Color;
use std::sync::LazyLock;

/// Chebyshev distance beyond any on the board: "reaches every point".
const EVERYWHERE: i32 = 19;

/// The points a piece of one movement table may remove pieces from, bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reach {
    /// Every point within this Chebyshev distance.
    near: i32,
    /// And every point on a file, rank or diagonal through the piece.
    lines: bool,
}

impl Reach {
    /// Whether a piece on mailbox cell `from` may remove a piece on the point of `to`'s file
    /// and rank ([`file_rank`], computed once by the caller).
    #[inline]
    pub(crate) fn may_remove(self, from: usize, to: (i32, i32)) -> bool {
        let (from_file, from_rank) = file_rank(from);
        let (df, dr) = ((to.0 - from_file).abs(), (to.1 - from_rank).abs());
        df.max(dr) <= self.near || (self.lines && (df == 0 || dr == 0 || df == dr))
    }

    fn of(km: &KindMoves) -> Reach {
        let distance = |offset: &i32| {
            let (df, dr) = file_rank_delta(*offset);
            df.abs().max(dr.abs())
        };
        let farthest = |offsets: &[i32]| offsets.iter().map(distance).max().unwrap_or(0);
        let lines = km.slides.iter().any(|&(_, limit)| limit >= INF);
        let short_slides = km
            .slides
            .iter()
            .filter(|&&(_, limit)| limit < INF)
            .map(|&(d, limit)| distance(&d) * i32::from(limit))
            .max()
            .unwrap_or(0);
        let special = match km.special {
            Special::None | Special::Pawn => 1,
            // A knight jump, then a second one (same major direction or back).
            Special::Cavalry => 4,
            // Five orthogonal steps; one to five in a line.
            Special::Thunderclap | Special::FlagWaver => 5,
            // Two priest jumps, each followed by an adjacent shot.
            Special::PriestDouble => 2 * (farthest(&km.jumps) + 1),
        };
        let moves = farthest(&km.steps)
            .max(farthest(&km.jumps))
            .max(2 * farthest(&km.lion))
            .max(short_slides)
            .max(special);
        // A shot's line distance under either reading of its range.
        let shot = km.shot.range(true);
        if lines && shot > 0 {
            return Reach {
                near: EVERYWHERE,
                lines,
            };
        }
        Reach {
            near: moves + shot,
            lines,
        }
    }
}

/// `REACH[color][table index]`, indexed like [`TABLES`].
pub(crate) static REACH: LazyLock<[Vec<Reach>; 2]> =
    LazyLock::new(|| Color::ALL.map(|color| TABLES[color.index()].iter().map(Reach::of).collect()));

/// The (Δfile, Δrank) of a movement table's offset (|Δfile| ≤ 2 there; any |Δfile| up to 11
/// decodes uniquely in a 23-wide row, by rounding to the nearest row).
#[inline]
fn file_rank_delta(offset: i32) -> (i32, i32) {
    let drank = (offset + WIDTH / 2).div_euclid(WIDTH);
    (offset - drank * WIDTH, drank)
}

/// The points on the eight lines through a cell within a line distance, as occupancy bits
/// over the mailbox: where a shot from a landing point may land. Most landing points of a
/// shooter in its own camp have no enemy piece on theirs.
pub(crate) type Star = [u64; OCC_WORDS];

/// Line distances the stars are kept for: a bow's range (3 or 5) or a cannon's (5) plus one
/// for `shot_range = free_points`, and the Frankish cannon's 7 plus one.
const STAR_RANGES: [i32; 2] = [6, 8];

/// `STARS[range class][mailbox cell]` (border cells keep empty stars).
static STARS: LazyLock<Vec<[Star; CELLS]>> = LazyLock::new(|| {
    STAR_RANGES
        .iter()
        .map(|&range| {
            let mut stars = [[0u64; OCC_WORDS]; CELLS];
            for (cell, star) in stars.iter_mut().enumerate() {
                if MB_TO_SQ[cell] == u16::MAX {
                    continue;
                }
                for direction in PRIME {
                    let mut point = cell as i32;
                    for _ in 0..range {
                        point += direction;
                        if !(0..CELLS as i32).contains(&point)
                            || MB_TO_SQ[point as usize] == u16::MAX
                        {
                            break;
                        }
                        star[point as usize / 64] |= 1 << (point as usize % 64);
                    }
                }
            }
            stars
        })
        .collect()
});

/// The star of `cell` for shots of up to `range` points (at most the longest in
/// [`STAR_RANGES`]).
#[inline]
pub(crate) fn shot_star(cell: usize, range: i32) -> &'static Star {
    let class = usize::from(range > STAR_RANGES[0]);
    debug_assert!(range <= STAR_RANGES[class]);
    &STARS[class][cell]
}

/// Whether any bit of `pieces` is on `star`.
#[inline]
pub(crate) fn meets(star: &Star, pieces: &[u64; OCC_WORDS]) -> bool {
    star.iter().zip(pieces).any(|(a, b)| a & b != 0)
}
