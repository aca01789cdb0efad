//! Time management: how long to think about one move under a clock.
//!
//! The budget is a share of the remaining time plus what comes back (the increment) or does not
//! accumulate (byoyomi), capped by the hard limit of this move minus a safety margin for
//! everything outside the search (the last batch, writing `bestmove`, the pipe, the GUI):
//!
//! ```text
//! hard   = remaining + byoyomi                 what the clock allows for this move
//! target = remaining / moves + increment + byoyomi
//!          moves = movestogo if given, else MOVES_HORIZON
//! budget = min(target, hard − overhead)        if hard > overhead
//!          hard / 2                            otherwise (in time trouble: move at once)
//! ```
//!
//! Why this is safe: the budget never exceeds `hard − overhead`, and the increment of *this*
//! move is never counted on (UCI adds it after the move; if a GUI already included it in
//! `btime`, the engine is merely a little cautious). Why it does not run out of time with no
//! increment: each move spends at most `1/moves` of what is left, so the remaining time shrinks
//! geometrically instead of reaching zero. With an increment the remaining time settles near
//! `overhead + increment` at worst, as long as the real overhead per move stays below the
//! margin. The search checks the deadline between batches of leaves, so it overshoots its
//! budget by at most one batch (milliseconds), which the margin also covers.

use std::time::Duration;

/// Moves left assumed when the clock gives no `movestogo`. Ko shogi games are long (hundreds
/// of plies), so a small horizon would spend most of the time in the opening; 50 keeps a
/// sudden-death clock at a third of its time after 50 moves.
pub const MOVES_HORIZON: u32 = 50;

/// Default safety margin per move (`setoption name overhead`): covers one search batch, the
/// reply and a pipe on a busy machine.
pub const DEFAULT_OVERHEAD: Duration = Duration::from_millis(50);

/// The clock of the side to move, from a `go` line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideClock {
    /// Main time left (`btime`/`wtime`).
    pub remaining: Duration,
    /// Added after each move (`binc`/`winc`).
    pub increment: Duration,
    /// Per-move time once the main time is spent (USI); it does not accumulate.
    pub byoyomi: Duration,
    /// Moves to the next time control, if the clock has one.
    pub moves_to_go: Option<u32>,
}

impl SideClock {
    /// The most this move may take before the side loses on time.
    pub fn hard_limit(&self) -> Duration {
        self.remaining.saturating_add(self.byoyomi)
    }
}

/// The search time for this move (module docs). Always below [`SideClock::hard_limit`] when
/// that is positive.
pub fn move_budget(clock: &SideClock, overhead: Duration) -> Duration {
    let hard = clock.hard_limit();
    if hard <= overhead {
        return hard / 2;
    }
    let moves = clock.moves_to_go.unwrap_or(MOVES_HORIZON).max(1);
    let target = (clock.remaining / moves)
        .saturating_add(clock.increment)
        .saturating_add(clock.byoyomi);
    target.min(hard - overhead)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn clock(remaining: u64, increment: u64, byoyomi: u64) -> SideClock {
        SideClock {
            remaining: ms(remaining),
            increment: ms(increment),
            byoyomi: ms(byoyomi),
            moves_to_go: None,
        }
    }

    #[test]
    fn sudden_death_spends_a_share_of_the_remaining_time() {
        assert_eq!(
            move_budget(&clock(60_000, 0, 0), DEFAULT_OVERHEAD),
            ms(1_200)
        );
    }

    #[test]
    fn the_increment_is_used_because_it_comes_back() {
        let without = move_budget(&clock(2_000, 0, 0), DEFAULT_OVERHEAD);
        let with = move_budget(&clock(2_000, 100, 0), DEFAULT_OVERHEAD);
        assert_eq!(with, without + ms(100));
        assert_eq!(with, ms(140));
    }

    #[test]
    fn byoyomi_alone_is_spent_almost_whole() {
        assert_eq!(move_budget(&clock(0, 0, 1_000), ms(50)), ms(950));
        // With main time left too, byoyomi is still this move's to use.
        assert_eq!(move_budget(&clock(10_000, 0, 1_000), ms(50)), ms(1_200));
    }

    #[test]
    fn movestogo_divides_the_time_until_the_control() {
        let mut c = clock(10_000, 0, 0);
        c.moves_to_go = Some(10);
        assert_eq!(move_budget(&c, ms(50)), ms(1_000));
        c.moves_to_go = Some(1);
        assert_eq!(
            move_budget(&c, ms(50)),
            ms(9_950),
            "the last move before the control"
        );
    }

    #[test]
    fn a_large_increment_never_pushes_past_the_remaining_time() {
        // Target 100 + 2 ms, but only 120 ms are left: the cap is 120 - 50.
        assert_eq!(move_budget(&clock(120, 100, 0), ms(50)), ms(70));
    }

    #[test]
    fn in_time_trouble_it_moves_at_once() {
        assert_eq!(move_budget(&clock(40, 0, 0), ms(50)), ms(20));
        assert_eq!(move_budget(&clock(0, 0, 0), ms(50)), ms(0));
    }

    /// The property that matters: over a grid of clocks, margins and `movestogo`, the budget
    /// plus the margin never exceeds the time left, and with any margin at all the budget is
    /// below the time left whenever there is any.
    #[test]
    fn never_over_the_remaining_time() {
        let times = [0, 1, 7, 49, 50, 51, 120, 999, 2_000, 60_000, 3_600_000];
        for &remaining in &times {
            for &increment in &[0, 1, 100, 5_000, 100_000] {
                for &byoyomi in &[0, 10, 1_000, 30_000] {
                    for &overhead in &[0, 10, 50, 1_000] {
                        for moves_to_go in [None, Some(1), Some(2), Some(40)] {
                            let c = SideClock {
                                moves_to_go,
                                ..clock(remaining, increment, byoyomi)
                            };
                            let budget = move_budget(&c, ms(overhead));
                            let hard = c.hard_limit();
                            assert!(budget <= hard, "{c:?} {overhead}: {budget:?}");
                            if hard > ms(overhead) {
                                assert!(budget + ms(overhead) <= hard, "{c:?}: {budget:?}");
                            }
                            if hard > Duration::ZERO && overhead > 0 {
                                assert!(budget < hard, "{c:?}: {budget:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Plays out games on the clock: each move takes its budget plus a real overhead of 30 ms
    /// (below the margin). With an increment or byoyomi the clock never runs out; in sudden
    /// death a fixed cost per move must end a long enough game, but 100 moves of a 60 s clock
    /// still leave time.
    #[test]
    fn a_simulated_game_never_loses_on_time() {
        for (start, increment, byoyomi, moves) in [
            (2_000, 100, 0, 1_000),
            (60_000, 0, 0, 100),
            (0, 0, 500, 1_000),
            (1_000, 0, 300, 1_000),
        ] {
            let mut remaining = ms(start);
            for _ in 0..moves {
                let c = clock(remaining.as_millis() as u64, increment, byoyomi);
                let used = move_budget(&c, DEFAULT_OVERHEAD) + ms(30);
                assert!(used <= c.hard_limit(), "lost on time at {c:?}");
                remaining = remaining.saturating_sub(used) + ms(increment);
            }
            assert!(
                remaining + ms(byoyomi) > DEFAULT_OVERHEAD,
                "{start} {increment}"
            );
        }
    }
}
