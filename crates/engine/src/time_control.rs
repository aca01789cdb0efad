//! Time management: how long to think about one move under a clock.
//!
//! Every move costs more than its search: the `position` line is read and replayed, the last
//! batch of leaves overshoots the deadline, `bestmove` goes through a pipe and the GUI reads
//! it. That cost (`overhead`, a few milliseconds on one machine) is paid on every move,
//! searched or not, so the clock must keep it in hand for every move still to come. And Ko
//! shogi games are long (hundreds of plies), so the number of moves still to come follows the
//! game's length rather than a fixed count:
//!
//! ```text
//! moves   = movestogo if given, else max(MIN_MOVES_LEFT, ⌈(EXPECTED_GAME_PLIES − ply) / 2⌉)
//! hard    = remaining + byoyomi                         what the clock allows for this move
//! income  = remaining + increment × (moves − 1)         the time of the moves to come
//! reserve = overhead × moves                            the cost outside the searches to come
//! target  = max(0, income − reserve) / moves + byoyomi
//! budget  = min(target, hard − overhead)                if hard > overhead
//!           0                                           otherwise (move at once)
//! ```
//!
//! Why the clock does not run out while the overhead covers the real cost per move: the slack
//! `T = income − reserve` stays positive. Each move spends `T / moves` plus at most
//! `overhead`, and `moves` falls by one per move of the side, so the invariant carries over
//! (`T' = T(1 − 1/m) + R − c ≥ 0` for a real cost `c ≤ R`). With an increment the cost is paid
//! out of the increment too: an engine that searched the whole increment and then paid its
//! overhead on top lost a little on every move. Past the horizon, at the floor of [`MIN_MOVES_LEFT`] moves, the reserve still
//! pays for that many more moves. What no budget can change is that a clock without increment
//! ends a game of `remaining / c` moves: at 2 s and a real 5 ms a move, 400 moves (800 plies).
//! The old rule, `remaining / 50` with no reserve, shrank the clock geometrically to a few
//! milliseconds by ply 300 and then lost to the fixed cost.
//!
//! The increment of *this* move is never counted on (UCI adds it after the move), byoyomi is spent nearly whole (it does not accumulate), and the budget never
//! exceeds `hard − overhead`.

use std::time::Duration;

/// The game length the move horizon assumes, in plies. Ko shogi games between programs last
/// hundreds of plies (self-play caps them at 300 to 800, the arena at 1,000 by default, and
/// uniformly random games run ~1,400), so the clock is planned for 600: 300 moves of the side
/// to move from the start position.
pub const EXPECTED_GAME_PLIES: u32 = 600;

/// The fewest moves the horizon ever assumes are left (without `movestogo`): past the
/// expected length a game may go on for a long time still, so the clock is never planned to
/// reach zero within a few moves.
pub const MIN_MOVES_LEFT: u32 = 40;

/// Default cost of one move outside its search (`setoption name overhead`), reserved for
/// every move still to come and kept off the hard limit. Measured around 1–5 ms a move on one
/// machine (docs/engine-protocol.md); 10 ms leaves room for a busy machine. Raise it behind a
/// slow link or GUI.
pub const DEFAULT_OVERHEAD: Duration = Duration::from_millis(10);

/// The engine's estimate of what a move costs past its budget (a search answering late, or
/// the clock charging more than the search took), after a move that cost `observed` past it
/// (`None`: a move that did not search, or could not tell): the
/// largest recent cost, forgotten by an eighth a move, so one slow move on a busy machine does
/// not stop the engine from searching for long. The estimate is added to the overhead
/// ([`move_budget`]): a CPU network's search answers one evaluation late (10–40 ms), far more
/// than the default overhead, and a clock that reserved only the overhead lost on time.
pub fn learn_overshoot(estimate: Duration, observed: Option<Duration>) -> Duration {
    let decayed = estimate - estimate / 8;
    decayed.max(observed.unwrap_or_default())
}

/// Moves the side to move is assumed to have left in a game at `ply` (half-moves since the
/// game's first move) when the clock gives no `movestogo`: the rest of
/// [`EXPECTED_GAME_PLIES`], never fewer than [`MIN_MOVES_LEFT`].
pub fn moves_left(ply: u32) -> u32 {
    EXPECTED_GAME_PLIES
        .saturating_sub(ply)
        .div_ceil(2)
        .max(MIN_MOVES_LEFT)
}

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
    /// Half-moves played since the game's first move (the position's ply), which sets the
    /// move horizon when there is no `movestogo`.
    pub ply: u32,
}

impl SideClock {
    /// The most this move may take before the side loses on time.
    pub fn hard_limit(&self) -> Duration {
        self.remaining.saturating_add(self.byoyomi)
    }

    /// The same clock in a game at `ply`.
    pub fn at_ply(self, ply: u32) -> SideClock {
        SideClock { ply, ..self }
    }

    /// Moves this clock has to last: `movestogo`, else [`moves_left`] of the ply.
    pub fn horizon(&self) -> u32 {
        self.moves_to_go
            .unwrap_or_else(|| moves_left(self.ply))
            .max(1)
    }
}

/// The search time for this move (module docs): zero (move at once) when the clock has no
/// more than `overhead` left, otherwise at most [`SideClock::hard_limit`] − `overhead`.
pub fn move_budget(clock: &SideClock, overhead: Duration) -> Duration {
    let hard = clock.hard_limit();
    if hard <= overhead {
        return Duration::ZERO;
    }
    let moves = clock.horizon();
    // Every increment still to come is money for the moves to come (this move's arrives after
    // it), and every move, this one included, pays the overhead out of it.
    let income = clock
        .remaining
        .saturating_add(clock.increment.saturating_mul(moves - 1));
    let reserve = overhead.saturating_mul(moves);
    let target = (income.saturating_sub(reserve) / moves).saturating_add(clock.byoyomi);
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
            ply: 0,
        }
    }

    #[test]
    fn the_horizon_follows_the_game_and_never_falls_below_its_floor() {
        assert_eq!(moves_left(0), 300);
        assert_eq!(moves_left(1), 300, "White's first move");
        assert_eq!(moves_left(400), 100);
        assert_eq!(moves_left(EXPECTED_GAME_PLIES - 2 * MIN_MOVES_LEFT), 40);
        for ply in [560, 599, 600, 5_000, u32::MAX] {
            assert_eq!(moves_left(ply), MIN_MOVES_LEFT, "{ply}");
        }
        let late = clock(10_000, 0, 0).at_ply(400);
        assert_eq!(late.horizon(), 100);
        let with_control = SideClock {
            moves_to_go: Some(7),
            ..late
        };
        assert_eq!(with_control.horizon(), 7, "movestogo wins over the horizon");
    }

    #[test]
    fn sudden_death_spends_its_share_after_the_reserve() {
        // 60 s at the start: (60,000 − 10 × 300) / 300.
        assert_eq!(move_budget(&clock(60_000, 0, 0), ms(10)), ms(190));
        // The same time at ply 400 lasts 100 moves: (60,000 − 1,000) / 100.
        assert_eq!(
            move_budget(&clock(60_000, 0, 0).at_ply(400), ms(10)),
            ms(590)
        );
        // Without an overhead the share is the plain remaining / moves.
        assert_eq!(move_budget(&clock(60_000, 0, 0), ms(0)), ms(200));
    }

    #[test]
    fn a_clock_smaller_than_its_reserve_spends_only_the_increment() {
        // 2 s cannot reserve 10 ms for 300 moves: nothing is spent from it. With an increment,
        // (2,000 + 100 × 299 − 10 × 300) / 300: the increment less the overhead, and a share.
        assert_eq!(move_budget(&clock(2_000, 0, 0), ms(10)), ms(0));
        assert_eq!(
            move_budget(&clock(2_000, 100, 0), ms(10)),
            Duration::from_nanos(96_333_333)
        );
    }

    #[test]
    fn byoyomi_alone_is_spent_almost_whole() {
        assert_eq!(move_budget(&clock(0, 0, 1_000), ms(50)), ms(950));
        // With main time left too, byoyomi is still this move's to use.
        assert_eq!(move_budget(&clock(30_000, 0, 1_000), ms(50)), ms(1_050));
    }

    #[test]
    fn movestogo_divides_the_time_until_the_control() {
        let mut c = clock(10_000, 0, 0);
        c.moves_to_go = Some(10);
        assert_eq!(move_budget(&c, ms(50)), ms(950));
        c.moves_to_go = Some(1);
        assert_eq!(
            move_budget(&c, ms(50)),
            ms(9_950),
            "the last move before the control"
        );
    }

    #[test]
    fn a_large_increment_never_pushes_past_the_remaining_time() {
        // The increments to come make a target of (120 + 100 × 299 − 50 × 300) / 300, about
        // 50 ms; with a larger increment the cap, 120 − 50, holds.
        assert_eq!(
            move_budget(&clock(120, 100, 0), ms(50)),
            Duration::from_nanos(50_066_666)
        );
        assert_eq!(move_budget(&clock(120, 1_000, 0), ms(50)), ms(70));
    }

    #[test]
    fn the_overshoot_estimate_rises_at_once_and_is_forgotten_slowly() {
        let mut estimate = learn_overshoot(Duration::ZERO, Some(ms(40)));
        assert_eq!(estimate, ms(40));
        assert_eq!(learn_overshoot(estimate, Some(ms(60))), ms(60));
        for _ in 0..30 {
            estimate = learn_overshoot(estimate, None);
        }
        assert!(estimate < ms(1), "{estimate:?}");
        assert_eq!(learn_overshoot(ms(80), Some(ms(2))), ms(70));
    }

    #[test]
    fn in_time_trouble_it_moves_at_once() {
        assert_eq!(move_budget(&clock(40, 0, 0), ms(50)), ms(0));
        assert_eq!(move_budget(&clock(0, 0, 0), ms(50)), ms(0));
        assert_eq!(move_budget(&clock(0, 0, 0), ms(0)), ms(0));
    }

    /// Over a grid of clocks, overheads, plies and `movestogo`, the budget plus the overhead never
    /// exceeds the time left, and with any overhead at all the budget is below the time left
    /// whenever there is any.
    #[test]
    fn never_over_the_remaining_time() {
        let times = [0, 1, 7, 49, 50, 51, 120, 999, 2_000, 60_000, 3_600_000];
        for &remaining in &times {
            for &increment in &[0, 1, 100, 5_000, 100_000] {
                for &byoyomi in &[0, 10, 1_000, 30_000] {
                    for &overhead in &[0, 10, 50, 1_000] {
                        for moves_to_go in [None, Some(1), Some(2), Some(40)] {
                            for ply in [0, 1, 300, 599, 10_000] {
                                let c = SideClock {
                                    moves_to_go,
                                    ..clock(remaining, increment, byoyomi).at_ply(ply)
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
    }

    /// Plays one side of a game on the clock, each move taking its budget plus `cost` outside
    /// the search; returns the ply at which it lost on time, `None` if it lasted `plies`.
    fn ply_lost_on_time(
        start: u64,
        increment: u64,
        byoyomi: u64,
        overhead: u64,
        cost: u64,
        plies: u32,
    ) -> Option<u32> {
        let mut remaining = ms(start);
        for ply in (0..plies).step_by(2) {
            let c = SideClock {
                remaining,
                ..clock(0, increment, byoyomi).at_ply(ply)
            };
            let used = move_budget(&c, ms(overhead)) + ms(cost);
            if used > c.hard_limit() {
                return Some(ply);
            }
            remaining = remaining.saturating_sub(used) + ms(increment);
        }
        None
    }

    /// The games of the issue: 2 s sudden death and a few milliseconds per move outside the
    /// search. A share of remaining / 50 lost on time near ply 200 at 5 ms a move; with the
    /// reserve and the horizon the side lasts the expected game and well past it.
    #[test]
    fn a_long_sudden_death_game_is_not_lost_on_time() {
        for cost in [1, 3, 5] {
            assert_eq!(
                ply_lost_on_time(2_000, 0, 0, 10, cost, 700),
                None,
                "2 s + 0 at {cost} ms a move"
            );
        }
        // A fixed cost per move must end a game without increment at some point: 2 s at
        // 10 ms a move is 200 moves, whatever the budget.
        assert_eq!(ply_lost_on_time(2_000, 0, 0, 10, 10, 700), Some(400));
    }

    /// While the overhead covers the real cost of a move, a clock that starts with its reserve
    /// in hand lasts the expected game (and with time to spare, the floor's moves past it);
    /// with an increment or byoyomi above the cost it never runs out.
    #[test]
    fn a_clock_with_its_reserve_in_hand_lasts_the_horizon() {
        let past_the_horizon = EXPECTED_GAME_PLIES + 2 * MIN_MOVES_LEFT;
        for start in [10_000, 60_000] {
            assert_eq!(
                ply_lost_on_time(start, 0, 0, 10, 10, past_the_horizon),
                None,
                "{start} ms"
            );
        }
        // 3 s is exactly 10 ms for each of 300 moves: it lasts the expected game, no more.
        assert_eq!(
            ply_lost_on_time(3_000, 0, 0, 10, 10, EXPECTED_GAME_PLIES),
            None
        );
        assert_eq!(
            ply_lost_on_time(3_000, 0, 0, 10, 10, past_the_horizon),
            Some(EXPECTED_GAME_PLIES)
        );
        // 10 s + 100 ms with a network that costs 40 ms a move beyond its budget: spending the
        // whole increment and paying the cost on top drained the clock by 40 ms a move, to
        // about one increment by ply 500, where one slow move lost the game; paying the cost
        // out of the increment keeps over half a second in hand to the end.
        let mut remaining = ms(10_000);
        for ply in (0..EXPECTED_GAME_PLIES).step_by(2) {
            let c = SideClock {
                remaining,
                ..clock(0, 100, 0).at_ply(ply)
            };
            remaining = remaining - move_budget(&c, ms(40)) - ms(40) + ms(100);
            assert!(remaining > ms(500), "{remaining:?} left at ply {ply}");
        }
        for (start, increment, byoyomi) in [
            (2_000, 100, 0),
            (10_000, 100, 0),
            (0, 0, 500),
            (1_000, 0, 300),
        ] {
            assert_eq!(
                ply_lost_on_time(start, increment, byoyomi, 10, 10, 5_000),
                None,
                "{start} {increment} {byoyomi}"
            );
        }
    }
}
