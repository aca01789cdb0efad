//! What the protocol thread can tell a running search: `stop`, `ponderhit`, and when to end.
//!
//! Shared between the protocol thread and the search thread. The search asks
//! [`SearchControl::should_stop`] between batches of leaves (a lock per batch costs nothing next
//! to an evaluation) and, when it is done, waits in [`SearchControl::wait_until_released`]
//! while its `bestmove` is held back: `go infinite` and `go ponder` must not answer before
//! `stop` (or `ponderhit`), even if the tree is complete. The search notes when it answered, so
//! that the engine learns how far past their deadlines its searches end
//! ([`SearchControl::overshoot`]).

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct State {
    stopped: bool,
    /// `bestmove` waits for `stop`/`ponderhit`.
    held: bool,
    pondering: bool,
    deadline: Option<Instant>,
    /// A pondering search's time limit, counted from `ponderhit`.
    budget_after_ponderhit: Option<Duration>,
    /// When the search wrote its `bestmove`.
    answered: Option<Instant>,
}

#[derive(Debug)]
pub struct SearchControl {
    state: Mutex<State>,
    released: Condvar,
}

impl SearchControl {
    /// A search that ends at `deadline` (if any), or only on `stop` when `held`.
    pub fn new(deadline: Option<Instant>, held: bool) -> SearchControl {
        SearchControl::with_state(State {
            stopped: false,
            held,
            pondering: false,
            deadline,
            budget_after_ponderhit: None,
            answered: None,
        })
    }

    /// A `go ponder` search: held and without a deadline until `ponderhit`, which turns it
    /// into a normal search with `budget` (if any) from that moment.
    pub fn pondering(budget: Option<Duration>) -> SearchControl {
        SearchControl::with_state(State {
            stopped: false,
            held: true,
            pondering: true,
            deadline: None,
            budget_after_ponderhit: budget,
            answered: None,
        })
    }

    fn with_state(state: State) -> SearchControl {
        SearchControl {
            state: Mutex::new(state),
            released: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `stop`: end now and answer.
    pub fn stop(&self) {
        let mut state = self.lock();
        state.stopped = true;
        state.held = false;
        self.released.notify_all();
    }

    /// `ponderhit`: the pondered move was played; search on under the `go`'s limits from
    /// `now`. Returns false (and changes nothing) if the search was not pondering.
    pub fn ponderhit(&self, now: Instant) -> bool {
        let mut state = self.lock();
        if !state.pondering {
            return false;
        }
        state.pondering = false;
        state.held = false;
        state.deadline = state
            .budget_after_ponderhit
            .and_then(|budget| now.checked_add(budget));
        self.released.notify_all();
        true
    }

    /// Whether `bestmove` is still held back (`go infinite`, or `go ponder` before
    /// `ponderhit`). Such a search never ends by itself.
    pub fn is_held(&self) -> bool {
        self.lock().held
    }

    /// Whether the search should end now: `stop`, or its deadline has passed.
    pub fn should_stop(&self, now: Instant) -> bool {
        let state = self.lock();
        state.stopped || state.deadline.is_some_and(|d| now >= d)
    }

    /// Notes that the search wrote its `bestmove` at `at`.
    pub fn answered(&self, at: Instant) {
        self.lock().answered = Some(at);
    }

    /// How far past its deadline the search answered (zero when it answered before): what a
    /// searched move costs beyond its budget — the batch in flight at the deadline, or the
    /// root's evaluation when the budget is shorter than that. `None` for a search without a
    /// deadline, one ended by `stop`, or one that has not answered.
    pub fn overshoot(&self) -> Option<Duration> {
        let state = self.lock();
        if state.stopped {
            return None;
        }
        Some(state.answered?.saturating_duration_since(state.deadline?))
    }

    /// Blocks while `bestmove` is held back.
    pub fn wait_until_released(&self) {
        let mut state = self.lock();
        while state.held {
            state = self.released.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_deadline_stops_the_search_when_it_passes() {
        let now = Instant::now();
        let control = SearchControl::new(Some(now + Duration::from_millis(100)), false);
        assert!(!control.should_stop(now));
        assert!(control.should_stop(now + Duration::from_millis(100)));
        assert!(!control.is_held());
    }

    #[test]
    fn the_overshoot_is_how_late_past_the_deadline_it_answered() {
        let now = Instant::now();
        let deadline = now + Duration::from_millis(100);
        let control = SearchControl::new(Some(deadline), false);
        assert_eq!(control.overshoot(), None, "not answered yet");
        control.answered(deadline + Duration::from_millis(30));
        assert_eq!(control.overshoot(), Some(Duration::from_millis(30)));
        control.answered(now);
        assert_eq!(control.overshoot(), Some(Duration::ZERO), "early is zero");
        let unbounded = SearchControl::new(None, false);
        unbounded.answered(now);
        assert_eq!(unbounded.overshoot(), None, "no deadline");
        control.stop();
        assert_eq!(control.overshoot(), None, "ended by stop");
    }

    #[test]
    fn a_held_search_waits_for_stop() {
        let control = Arc::new(SearchControl::new(None, true));
        assert!(control.is_held());
        assert!(!control.should_stop(Instant::now() + Duration::from_secs(3600)));
        let waiter = {
            let control = control.clone();
            std::thread::spawn(move || control.wait_until_released())
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(!waiter.is_finished());
        control.stop();
        waiter.join().unwrap();
        assert!(control.should_stop(Instant::now()));
    }

    #[test]
    fn ponderhit_starts_the_clock_then_and_only_for_a_pondering_search() {
        let control = SearchControl::pondering(Some(Duration::from_millis(500)));
        let later = Instant::now() + Duration::from_secs(10);
        assert!(!control.should_stop(later), "no deadline while pondering");
        assert!(control.ponderhit(later));
        assert!(!control.is_held());
        assert!(!control.should_stop(later + Duration::from_millis(499)));
        assert!(control.should_stop(later + Duration::from_millis(500)));
        assert!(!control.ponderhit(later), "only once");
        assert!(!SearchControl::new(None, true).ponderhit(later));
    }
}
