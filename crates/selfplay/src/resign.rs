//! Resignation and its audit.
//!
//! A side resigns after its root value stays below `-threshold` for `consecutive_moves` of its
//! own moves. In a fraction of games resignation is disabled; there the tracker only notes who
//! *would* have resigned, and at the end of the game a would-be resigner that did not lose counts
//! as a false resignation. The false-resignation rate tells whether the threshold is safe.

use koshogi_rules::Color;

use crate::config::ResignConfig;

/// Per-game resignation state.
#[derive(Clone, Debug)]
pub struct ResignTracker {
    enabled: bool,
    streak: [u32; 2],
    would_have_resigned: Option<Color>,
}

impl ResignTracker {
    /// `disabled` = this game is one of the audit games played to the end.
    pub fn new(config: &ResignConfig, disabled: bool) -> ResignTracker {
        ResignTracker {
            enabled: config.enabled && !disabled,
            streak: [0; 2],
            would_have_resigned: None,
        }
    }

    /// Whether this game may end by resignation.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Records `mover`'s root value at `ply`; true if `mover` resigns now.
    pub fn observe(&mut self, config: &ResignConfig, mover: Color, ply: u32, value: f32) -> bool {
        if !config.enabled {
            return false;
        }
        let streak = &mut self.streak[mover.index()];
        if ply >= config.min_ply && value < -config.threshold {
            *streak += 1;
        } else {
            *streak = 0;
        }
        if *streak < config.consecutive_moves.max(1) {
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
        }
    }

    #[test]
    fn resigns_after_enough_consecutive_hopeless_moves_only() {
        let cfg = config();
        let mut t = ResignTracker::new(&cfg, false);
        assert!(!t.observe(&cfg, Color::Black, 10, -0.9));
        assert!(!t.observe(&cfg, Color::White, 11, -0.9));
        assert!(!t.observe(&cfg, Color::Black, 12, -0.9));
        // A better value resets the streak.
        assert!(!t.observe(&cfg, Color::Black, 14, -0.5));
        assert!(!t.observe(&cfg, Color::Black, 16, -0.9));
        assert!(!t.observe(&cfg, Color::Black, 18, -0.9));
        assert!(t.observe(&cfg, Color::Black, 20, -0.95));
    }

    #[test]
    fn no_resignation_before_min_ply() {
        let cfg = config();
        let mut t = ResignTracker::new(&cfg, false);
        for ply in 0..5 {
            assert!(!t.observe(&cfg, Color::Black, ply * 2, -1.0));
        }
    }

    #[test]
    fn audit_games_count_false_resignations() {
        let cfg = config();
        let mut t = ResignTracker::new(&cfg, true);
        assert!(!t.is_enabled());
        for ply in [10, 12, 14, 16] {
            assert!(!t.observe(&cfg, Color::White, ply, -0.99));
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
}
