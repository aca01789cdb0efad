//! Win/draw/loss value triples.
//!
//! Values are always stored from the point of view of the side to move in the position they
//! describe; moving one ply up the tree swaps win and loss.

use serde::{Deserialize, Serialize};

/// Probabilities (or averages of them) of win, draw and loss for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Wdl {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
}

impl Wdl {
    pub const WIN: Wdl = Wdl {
        win: 1.0,
        draw: 0.0,
        loss: 0.0,
    };
    pub const DRAW: Wdl = Wdl {
        win: 0.0,
        draw: 1.0,
        loss: 0.0,
    };
    pub const LOSS: Wdl = Wdl {
        win: 0.0,
        draw: 0.0,
        loss: 1.0,
    };
    pub const ZERO: Wdl = Wdl {
        win: 0.0,
        draw: 0.0,
        loss: 0.0,
    };

    pub fn new(win: f32, draw: f32, loss: f32) -> Wdl {
        Wdl { win, draw, loss }
    }

    /// A WDL with no draw mass whose expected score `win - loss` equals `value` (clamped to
    /// [-1, 1]); lets scalar evaluators speak WDL.
    pub fn from_scalar(value: f32) -> Wdl {
        let v = value.clamp(-1.0, 1.0);
        Wdl {
            win: (1.0 + v) / 2.0,
            draw: 0.0,
            loss: (1.0 - v) / 2.0,
        }
    }

    /// The same outcome seen by the other side.
    pub fn flip(self) -> Wdl {
        Wdl {
            win: self.loss,
            draw: self.draw,
            loss: self.win,
        }
    }

    /// Expected score in [-1, 1]: `win - loss`.
    pub fn scalar(self) -> f32 {
        self.win - self.loss
    }

    pub fn scale(self, factor: f32) -> Wdl {
        Wdl {
            win: self.win * factor,
            draw: self.draw * factor,
            loss: self.loss * factor,
        }
    }

    /// Sum of the three parts (1 for a proper distribution).
    pub fn total(self) -> f32 {
        self.win + self.draw + self.loss
    }

    /// True if all parts are finite, non-negative and sum to 1 within `tolerance`.
    pub fn is_distribution(self, tolerance: f32) -> bool {
        [self.win, self.draw, self.loss]
            .iter()
            .all(|p| p.is_finite() && *p >= 0.0)
            && (self.total() - 1.0).abs() <= tolerance
    }
}

impl std::ops::Add for Wdl {
    type Output = Wdl;

    fn add(self, other: Wdl) -> Wdl {
        Wdl {
            win: self.win + other.win,
            draw: self.draw + other.draw,
            loss: self.loss + other.loss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_swaps_win_and_loss_and_negates_the_scalar() {
        let w = Wdl::new(0.6, 0.3, 0.1);
        assert_eq!(w.flip(), Wdl::new(0.1, 0.3, 0.6));
        assert!((w.flip().scalar() + w.scalar()).abs() < 1e-6);
    }

    #[test]
    fn from_scalar_keeps_the_expected_score() {
        for v in [-1.0f32, -0.5, 0.0, 0.25, 1.0] {
            let w = Wdl::from_scalar(v);
            assert!((w.scalar() - v).abs() < 1e-6);
            assert!(w.is_distribution(1e-6));
        }
    }
}
