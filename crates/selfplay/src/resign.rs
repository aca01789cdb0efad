//! Resignation and its audit.
//!
//! A side resigns after its root value stays below `-threshold` for `consecutive_moves` of its
//! own moves. In a fraction of games resignation is disabled; there the tracker only notes who
//! *would* have resigned, and at the end of the game a would-be resigner that did not lose counts
//! as a false resignation. The false-resignation rate tells whether the threshold is safe.
//!
//! An audit game also measures each side's *resign depth*: the highest threshold at which that
//! side would have resigned (the best, over every run of `consecutive_moves` own moves, of the
//! run's least hopeless value). With the game's result it is what
//! [`crate::resign_calibration`] needs to choose the threshold for a target false rate, whatever
//! threshold was in force when the game was played.

use std::collections::VecDeque;

use koshogi_rules::Color;

use crate::config::ResignConfig;

/// Per-game resignation state.
#[derive(Clone, Debug)]
pub struct ResignTracker {
    enabled: bool,
    audit: bool,
    streak: [u32; 2],
    would_have_resigned: Option<Color>,
    /// Audit games only: each side's last `consecutive_moves` values of `-value` since `min_ply`.
    recent: [VecDeque<f32>; 2],
    /// Audit games only: each side's resign depth so far (`None` = no full run yet).
    depth: [Option<f32>; 2],
}

/// One side of an audit game, as the calibration sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AuditedSide {
    /// The highest threshold at which this side would have resigned: it resigns at threshold
    /// `t` exactly when `depth > t`.
    pub depth: f32,
    /// Whether this side lost the game (a resignation would have been right).
    pub lost: bool,
}

impl ResignTracker {
    /// `disabled` = this game is one of the audit games played to the end.
    pub fn new(config: &ResignConfig, disabled: bool) -> ResignTracker {
        ResignTracker {
            enabled: config.enabled && !disabled,
            audit: config.enabled && disabled,
            streak: [0; 2],
            would_have_resigned: None,
            recent: [VecDeque::new(), VecDeque::new()],
            depth: [None; 2],
        }
    }

    /// Whether this game may end by resignation.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Records `mover`'s root value at `ply` against the `threshold` in force (the configured
    /// one, or the calibrated one); true if `mover` resigns now.
    pub fn observe(
        &mut self,
        config: &ResignConfig,
        threshold: f32,
        mover: Color,
        ply: u32,
        value: f32,
    ) -> bool {
        if !config.enabled {
            return false;
        }
        let run = config.consecutive_moves.max(1) as usize;
        // Plies only grow within a game, so the window fills from `min_ply` on and never
        // needs clearing.
        if self.audit && ply >= config.min_ply {
            let recent = &mut self.recent[mover.index()];
            if recent.len() == run {
                recent.pop_front();
            }
            recent.push_back(-value);
            if recent.len() == run {
                let least = recent.iter().copied().fold(f32::INFINITY, f32::min);
                let depth = &mut self.depth[mover.index()];
                *depth = Some(depth.map_or(least, |d| d.max(least)));
            }
        }
        let streak = &mut self.streak[mover.index()];
        if ply >= config.min_ply && value < -threshold {
            *streak += 1;
        } else {
            *streak = 0;
        }
        if (*streak as usize) < run {
            return false;
        }
        if self.enabled {
            return true;
        }
        self.would_have_resigned.get_or_insert(mover);
        false
    }

    /// In an audit game: `Some(true)` if the side that would have resigned did not lose,
    /// `Some(false)` if it did lose, `None` if nobody would have resigned.
    pub fn false_resignation(&self, winner: Option<Color>) -> Option<bool> {
        self.would_have_resigned
            .map(|side| winner != Some(side.opposite()))
    }

    /// In an audit game, the sides that had a full run of moves since `min_ply`, with their
    /// resign depth and whether they lost (empty outside audit games).
    pub fn audited_sides(&self, winner: Option<Color>) -> Vec<AuditedSide> {
        [Color::Black, Color::White]
            .into_iter()
            .filter_map(|side| {
                self.depth[side.index()].map(|depth| AuditedSide {
                    depth,
                    lost: winner == Some(side.opposite()),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ResignConfig {
        ResignConfig {
            enabled: true,
            threshold: 0.8,
            consecutive_moves: 3,
            disabled_fraction: 0.0,
            min_ply: 10,
            ..ResignConfig::default()
        }
    }

    #[test]
    fn resigns_after_enough_consecutive_hopeless_moves_only() {
        let cfg = config();
        let mut t = ResignTracker::new(&cfg, false);
        assert!(!t.observe(&cfg, cfg.threshold, Color::Black, 10, -0.9));
        assert!(!t.observe(&cfg, cfg.threshold, Color::White, 11, -0.9));
        assert!(!t.observe(&cfg, cfg.threshold, Color::Black, 12, -0.9));
        // A better value resets the streak.
        assert!(!t.observe(&cfg, cfg.threshold, Color::Black, 14, -0.5));
        assert!(!t.observe(&cfg, cfg.threshold, Color::Black, 16, -0.9));
        assert!(!t.observe(&cfg, cfg.threshold, Color::Black, 18, -0.9));
        assert!(t.observe(&cfg, cfg.threshold, Color::Black, 20, -0.95));
    }

    #[test]
    fn no_resignation_before_min_ply() {
        let cfg = config();
        let mut t = ResignTracker::new(&cfg, false);
        for ply in 0..5 {
            assert!(!t.observe(&cfg, cfg.threshold, Color::Black, ply * 2, -1.0));
        }
    }

    #[test]
    fn audit_games_count_false_resignations() {
        let cfg = config();
        let mut t = ResignTracker::new(&cfg, true);
        assert!(!t.is_enabled());
        for ply in [10, 12, 14, 16] {
            assert!(!t.observe(&cfg, cfg.threshold, Color::White, ply, -0.99));
        }
        assert_eq!(
            t.false_resignation(Some(Color::Black)),
            Some(false),
            "White lost: resigning was right"
        );
        assert_eq!(
            t.false_resignation(None),
            Some(true),
            "a draw: resigning would have been wrong"
        );
        assert_eq!(t.false_resignation(Some(Color::White)), Some(true));
        let quiet = ResignTracker::new(&cfg, true);
        assert_eq!(quiet.false_resignation(None), None);
    }

    /// The depth an audit game measures is exactly the threshold below which a game with
    /// resignation on would have resigned, at every threshold, in random games of values.
    #[test]
    fn an_audit_games_depth_says_at_which_thresholds_a_side_would_have_resigned() {
        use rand::{Rng, SeedableRng};
        let cfg = config();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let plies = rng.random_range(0..60u32);
            let values: Vec<f32> = (0..plies).map(|_| -rng.random_range(0.6f32..1.0)).collect();
            let mut audit = ResignTracker::new(&cfg, true);
            for (ply, &v) in values.iter().enumerate() {
                let mover = if ply % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                audit.observe(&cfg, cfg.threshold, mover, ply as u32, v);
            }
            let sides = audit.audited_sides(None);
            for threshold in [0.6f32, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99] {
                let mut live = ResignTracker::new(&cfg, false);
                let resigner = values.iter().enumerate().find_map(|(ply, &v)| {
                    let mover = if ply % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    live.observe(&cfg, threshold, mover, ply as u32, v)
                        .then_some(mover)
                });
                // The live game stops at the first resignation; the audit game shows every
                // side that would resign at this threshold, the first of them among them.
                let deeper =
                    |side: Color| audit.depth[side.index()].is_some_and(|depth| depth > threshold);
                match resigner {
                    Some(side) => assert!(deeper(side), "{values:?} at {threshold}"),
                    None => assert!(
                        !deeper(Color::Black) && !deeper(Color::White),
                        "{values:?} at {threshold}"
                    ),
                }
            }
            assert!(sides.len() <= 2);
        }
    }

    #[test]
    fn audited_sides_carry_their_depth_and_result_and_live_games_have_none() {
        let cfg = config();
        let mut audit = ResignTracker::new(&cfg, true);
        // Black: -0.9, -0.95, -0.85 then -0.5; its best run of three is 0.85 deep.
        for (ply, v) in [(10, -0.9), (12, -0.95), (14, -0.85), (16, -0.5)] {
            audit.observe(&cfg, cfg.threshold, Color::Black, ply, v);
        }
        // White: only two moves, no full run.
        for ply in [11, 13] {
            audit.observe(&cfg, cfg.threshold, Color::White, ply, -1.0);
        }
        let sides = audit.audited_sides(Some(Color::White));
        assert_eq!(sides.len(), 1);
        assert!((sides[0].depth - 0.85).abs() < 1e-6);
        assert!(sides[0].lost);
        assert!(!audit.audited_sides(Some(Color::Black))[0].lost);

        let mut live = ResignTracker::new(&cfg, false);
        for ply in [10, 12, 14] {
            live.observe(&cfg, 0.99, Color::Black, ply, -0.9);
        }
        assert!(live.audited_sides(None).is_empty());
    }
}
