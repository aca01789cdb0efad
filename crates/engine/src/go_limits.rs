//! The arguments of `go`: what bounds one search (docs/engine-protocol.md, "go").
//!
//! UCI and USI clients send the same words (`nodes`, `movetime`, `btime`, `wtime`, `binc`,
//! `winc`, `byoyomi`, `movestogo`, `infinite`, `ponder`), so any match runner or GUI written for
//! them can drive the engine. Parsing is total: every input is a [`GoLimits`] or an error
//! message. [`GoLimits`] also prints itself as a `go` line ([`std::fmt::Display`]), which is how
//! the arena's `engine:` player writes its requests, so both sides share one grammar.

use std::fmt;
use std::time::Duration;

use koshogi_rules::Color;

use crate::time_control::SideClock;

/// Time values above this many milliseconds (about 31 years) are read as this value, so that
/// adding them to an `Instant` or to each other can never overflow.
pub const MAX_TIME_MS: u64 = 1_000_000_000_000;

/// The clock fields of a `go` line (all milliseconds). `btime`/`binc` belong to Black, the side
/// that moves first (sente in USI), `wtime`/`winc` to White.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoClock {
    pub btime: Option<Duration>,
    pub wtime: Option<Duration>,
    pub binc: Option<Duration>,
    pub winc: Option<Duration>,
    /// Per-move time once the main time is used up (USI); it does not accumulate.
    pub byoyomi: Option<Duration>,
    /// Moves until the next time control (UCI); `None` = the rest of the game.
    pub movestogo: Option<u32>,
}

impl GoClock {
    /// Whether the line named any clock at all.
    pub fn is_set(&self) -> bool {
        self.btime.is_some()
            || self.wtime.is_some()
            || self.binc.is_some()
            || self.winc.is_some()
            || self.byoyomi.is_some()
    }

    /// The clock of the side to move, `None` when the line named no clock. A side whose own
    /// fields are missing has zero time left: the safe reading of a half-given clock (the
    /// engine then moves at once rather than risk a loss on time). The ply is 0: the caller
    /// sets the game's with [`SideClock::at_ply`].
    pub fn for_side(&self, color: Color) -> Option<SideClock> {
        if !self.is_set() {
            return None;
        }
        let (time, inc) = match color {
            Color::Black => (self.btime, self.binc),
            Color::White => (self.wtime, self.winc),
        };
        Some(SideClock {
            remaining: time.unwrap_or_default(),
            increment: inc.unwrap_or_default(),
            byoyomi: self.byoyomi.unwrap_or_default(),
            moves_to_go: self.movestogo,
            ply: 0,
        })
    }
}

/// The limits of one `go`. The search ends at the first limit reached; with none it runs the
/// `simulations` option. `infinite` and `ponder` hold the `bestmove` back until `stop` (or
/// `ponderhit`, after which a pondering search runs on under its limits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoLimits {
    /// `nodes N` (UCI/USI) or `visits N`: N new simulations.
    pub visits: Option<u32>,
    /// `movetime MS`: search this long.
    pub movetime: Option<Duration>,
    pub clock: GoClock,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search the position (the GUI's guess of the opponent's move already played) until
    /// `ponderhit` (then as if the `go` arrived now) or `stop`.
    pub ponder: bool,
}

impl GoLimits {
    /// Whether `bestmove` must wait for `stop`/`ponderhit`.
    pub fn holds_bestmove(&self) -> bool {
        self.infinite || self.ponder
    }
}

/// `go [nodes|visits N] [movetime MS] [btime MS] [wtime MS] [binc MS] [winc MS] [byoyomi MS]
/// [movestogo N] [infinite] [ponder]`, in any order (`words` excludes `go` itself).
pub fn parse_go(words: &[&str]) -> Result<GoLimits, String> {
    let mut limits = GoLimits::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        match key {
            "infinite" => {
                limits.infinite = true;
                i += 1;
                continue;
            }
            "ponder" => {
                limits.ponder = true;
                i += 1;
                continue;
            }
            _ => {}
        }
        let value = words.get(i + 1).copied();
        match key {
            "visits" | "nodes" => {
                let n = positive(key, value)?;
                limits.visits = Some(n.min(u32::MAX as u64) as u32);
            }
            "movetime" => limits.movetime = Some(millis(positive(key, value)?)),
            "movestogo" => {
                limits.clock.movestogo = Some(positive(key, value)?.min(u32::MAX as u64) as u32)
            }
            "btime" => limits.clock.btime = Some(clock_time(key, value)?),
            "wtime" => limits.clock.wtime = Some(clock_time(key, value)?),
            "binc" => limits.clock.binc = Some(clock_time(key, value)?),
            "winc" => limits.clock.winc = Some(clock_time(key, value)?),
            "byoyomi" => limits.clock.byoyomi = Some(clock_time(key, value)?),
            other => {
                return Err(format!(
                    "unknown go argument {other:?} (nodes N, visits N, movetime MS, btime MS, \
                     wtime MS, binc MS, winc MS, byoyomi MS, movestogo N, infinite, ponder)"
                ))
            }
        }
        i += 2;
    }
    Ok(limits)
}

fn positive(key: &str, value: Option<&str>) -> Result<u64, String> {
    value
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("go {key} needs a positive whole number"))
}

/// A clock value in milliseconds. Zero is valid (USI sends `btime 0` in byoyomi), and a negative
/// value counts as zero: some GUIs send the overrun of a side that is already out of time.
fn clock_time(key: &str, value: Option<&str>) -> Result<Duration, String> {
    let ms = value
        .and_then(|v| v.parse::<i128>().ok())
        .ok_or_else(|| format!("go {key} needs a whole number of milliseconds"))?;
    Ok(millis(ms.clamp(0, MAX_TIME_MS as i128) as u64))
}

fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms.min(MAX_TIME_MS))
}

impl fmt::Display for GoLimits {
    /// The `go` line these limits parse from (`nodes` for the visit limit: the word every
    /// UCI/USI engine knows).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        if self.ponder {
            f.write_str(" ponder")?;
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        if let Some(n) = self.visits {
            write!(f, " nodes {n}")?;
        }
        let ms = |d: Duration| d.as_millis();
        if let Some(t) = self.movetime {
            write!(f, " movetime {}", ms(t))?;
        }
        let c = &self.clock;
        for (key, value) in [
            ("btime", c.btime),
            ("wtime", c.wtime),
            ("binc", c.binc),
            ("winc", c.winc),
            ("byoyomi", c.byoyomi),
        ] {
            if let Some(t) = value {
                write!(f, " {key} {}", ms(t))?;
            }
        }
        if let Some(n) = c.movestogo {
            write!(f, " movestogo {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> Result<GoLimits, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        parse_go(&words)
    }

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn nodes_is_the_visit_limit_as_uci_and_usi_clients_send_it() {
        let limits = go("nodes 800").unwrap();
        assert_eq!(limits.visits, Some(800));
        assert_eq!(go("visits 800").unwrap(), limits);
        assert!(!limits.holds_bestmove());
    }

    #[test]
    fn a_full_clock_line_parses_in_any_order() {
        let limits = go("wtime 2000 btime 1500 winc 100 binc 50 byoyomi 0 movestogo 30").unwrap();
        assert_eq!(
            limits.clock,
            GoClock {
                btime: ms(1500),
                wtime: ms(2000),
                binc: ms(50),
                winc: ms(100),
                byoyomi: ms(0),
                movestogo: Some(30),
            }
        );
        let black = limits.clock.for_side(Color::Black).unwrap();
        assert_eq!(black.remaining, Duration::from_millis(1500));
        assert_eq!(black.increment, Duration::from_millis(50));
        let white = limits.clock.for_side(Color::White).unwrap();
        assert_eq!(white.remaining, Duration::from_millis(2000));
        assert_eq!(white.moves_to_go, Some(30));
    }

    #[test]
    fn usi_byoyomi_with_zero_main_time_is_a_clock() {
        let limits = go("btime 0 wtime 0 byoyomi 1000").unwrap();
        let clock = limits.clock.for_side(Color::White).unwrap();
        assert_eq!(clock.remaining, Duration::ZERO);
        assert_eq!(clock.byoyomi, Duration::from_millis(1000));
    }

    #[test]
    fn a_half_given_clock_leaves_the_other_side_no_time_and_no_clock_is_none() {
        let limits = go("wtime 5000").unwrap();
        assert_eq!(
            limits.clock.for_side(Color::Black).unwrap().remaining,
            Duration::ZERO
        );
        assert_eq!(go("nodes 3").unwrap().clock.for_side(Color::Black), None);
    }

    #[test]
    fn negative_and_huge_times_are_clamped_not_errors() {
        let limits = go("btime -350 wtime 99999999999999999999999").unwrap();
        assert_eq!(limits.clock.btime, ms(0));
        assert_eq!(limits.clock.wtime, ms(MAX_TIME_MS));
        assert_eq!(
            go("movetime 18446744073709551615").unwrap().movetime,
            ms(MAX_TIME_MS)
        );
    }

    #[test]
    fn infinite_and_ponder_are_flags() {
        let limits = go("infinite").unwrap();
        assert!(limits.infinite && limits.holds_bestmove());
        let limits = go("ponder btime 100 wtime 100").unwrap();
        assert!(limits.ponder && !limits.infinite);
        assert_eq!(limits.clock.btime, ms(100));
    }

    #[test]
    fn bad_arguments_are_errors() {
        for bad in [
            "nodes",
            "nodes 0",
            "nodes -5",
            "nodes many",
            "movetime 0",
            "movetime",
            "btime",
            "btime soon",
            "byoyomi 1.5",
            "movestogo 0",
            "depth 3",
            "mate 5",
            "searchmoves 10m-10l",
        ] {
            assert!(go(bad).is_err(), "{bad:?} parsed as {:?}", go(bad));
        }
        assert!(go("depth 3").unwrap_err().contains("nodes N"));
    }

    #[test]
    fn display_writes_a_line_that_parses_back_to_the_same_limits() {
        for line in [
            "",
            "nodes 16",
            "movetime 250",
            "ponder infinite",
            "nodes 5 movetime 9 btime 1 wtime 2 binc 3 winc 4 byoyomi 5 movestogo 6",
        ] {
            let limits = go(line).unwrap();
            let text = limits.to_string();
            assert!(text.starts_with("go"), "{text}");
            let words: Vec<&str> = text.split_whitespace().skip(1).collect();
            assert_eq!(parse_go(&words).unwrap(), limits, "{text}");
        }
        assert_eq!(go("visits 7").unwrap().to_string(), "go nodes 7");
    }
}
