//! The `engine:<command>[@<limits>]` player syntax.
//!
//! `<command>` is the program and its arguments, split like a shell would
//! ([`super::command_line`]); `<limits>` is a comma-separated list of `key=value`:
//!
//! | key | meaning |
//! |---|---|
//! | `nodes=N` | `go nodes N`: N simulations per move (the default, with `--sims`, when no limit is given) |
//! | `movetime=MS` | `go movetime MS` |
//! | `time=MS` | a clock: MS of main time per game … |
//! | `inc=MS` | … plus MS after each move (Fischer) … |
//! | `byoyomi=MS` | … and MS per move once the main time is spent (USI) |
//! | `timeout=S` | without a clock: give up waiting for a move after S seconds (default: 60, or `movetime` + 10 s) |
//!
//! Why a final `@`: paths and arguments rarely end in `@key=value`, so only a suffix after the
//! last `@` that contains `=` and no space is read as limits; anything else is the command.

use std::fmt;
use std::time::Duration;

use koshogi_engine::go_limits::MAX_TIME_MS;

use super::command_line::{split_command_line, CommandLineError};

/// A clock for the engine: main time, increment, byoyomi.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockSpec {
    pub time: Duration,
    pub inc: Duration,
    pub byoyomi: Duration,
}

/// What bounds each of the engine's moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineLimits {
    pub nodes: Option<u32>,
    pub movetime: Option<Duration>,
    pub clock: Option<ClockSpec>,
    /// How long to wait for a move when there is no clock.
    pub timeout: Option<Duration>,
}

impl EngineLimits {
    /// Whether anything bounds the search itself (`timeout` does not).
    pub fn bounds_search(&self) -> bool {
        self.nodes.is_some() || self.movetime.is_some() || self.clock.is_some()
    }

    fn is_empty(&self) -> bool {
        *self == EngineLimits::default()
    }
}

/// `engine:<command>[@<limits>]`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The command as written (it names the player).
    pub command: String,
    /// The program and its arguments.
    pub argv: Vec<String>,
    pub limits: EngineLimits,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EngineSpecError {
    #[error(transparent)]
    CommandLine(#[from] CommandLineError),
    #[error(
        "unknown engine limit `{0}`: expected nodes=N, movetime=MS, time=MS, inc=MS, \
         byoyomi=MS or timeout=S"
    )]
    UnknownKey(String),
    #[error("engine limit `{0}` needs a whole number{1}")]
    BadValue(String, &'static str),
    #[error("engine limit `{0}` is given twice")]
    Duplicate(String),
    #[error("an engine clock needs time=MS or byoyomi=MS above zero (inc alone is no clock)")]
    NoClock,
}

impl EngineSpec {
    /// Parses what follows `engine:`.
    pub fn parse(text: &str) -> Result<EngineSpec, EngineSpecError> {
        let (command, limits) = match text.rsplit_once('@') {
            Some((command, suffix))
                if suffix.contains('=') && !suffix.contains(char::is_whitespace) =>
            {
                (command, parse_limits(suffix)?)
            }
            _ => (text, EngineLimits::default()),
        };
        let command = command.trim().to_string();
        let argv = split_command_line(&command)?;
        Ok(EngineSpec {
            command,
            argv,
            limits,
        })
    }
}

fn parse_limits(text: &str) -> Result<EngineLimits, EngineSpecError> {
    let mut limits = EngineLimits::default();
    let mut clock: Option<ClockSpec> = None;
    let mut seen: Vec<&str> = Vec::new();
    for item in text.split(',') {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| EngineSpecError::UnknownKey(item.to_string()))?;
        if seen.contains(&key) {
            return Err(EngineSpecError::Duplicate(key.to_string()));
        }
        seen.push(key);
        let number = |min: u64, max: u64, what: &'static str| {
            value
                .parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| EngineSpecError::BadValue(item.to_string(), what))
        };
        let ms = |min: u64| {
            let what = if min > 0 {
                " of milliseconds above zero"
            } else {
                " of milliseconds"
            };
            number(min, MAX_TIME_MS, what).map(Duration::from_millis)
        };
        match key {
            "nodes" => limits.nodes = Some(number(1, u32::MAX as u64, " above zero")? as u32),
            "movetime" => limits.movetime = Some(ms(1)?),
            "time" => clock.get_or_insert_with(ClockSpec::default).time = ms(0)?,
            "inc" => clock.get_or_insert_with(ClockSpec::default).inc = ms(0)?,
            "byoyomi" => clock.get_or_insert_with(ClockSpec::default).byoyomi = ms(0)?,
            "timeout" => {
                let seconds = number(1, 86_400 * 365, " of seconds above zero")?;
                limits.timeout = Some(Duration::from_secs(seconds));
            }
            _ => return Err(EngineSpecError::UnknownKey(key.to_string())),
        }
    }
    if let Some(clock) = clock {
        if clock.time.is_zero() && clock.byoyomi.is_zero() {
            return Err(EngineSpecError::NoClock);
        }
        limits.clock = Some(clock);
    }
    Ok(limits)
}

impl fmt::Display for EngineLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items = Vec::new();
        if let Some(n) = self.nodes {
            items.push(format!("nodes={n}"));
        }
        if let Some(t) = self.movetime {
            items.push(format!("movetime={}", t.as_millis()));
        }
        if let Some(c) = self.clock {
            items.push(format!("time={}", c.time.as_millis()));
            if !c.inc.is_zero() {
                items.push(format!("inc={}", c.inc.as_millis()));
            }
            if !c.byoyomi.is_zero() {
                items.push(format!("byoyomi={}", c.byoyomi.as_millis()));
            }
        }
        if let Some(t) = self.timeout {
            items.push(format!("timeout={}", t.as_secs()));
        }
        f.write_str(&items.join(","))
    }
}

impl fmt::Display for EngineSpec {
    /// `<command>[@<limits>]` (without the `engine:` prefix).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.command)?;
        if !self.limits.is_empty() {
            write!(f, "@{}", self.limits)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_command_with_and_without_limits() {
        let spec = EngineSpec::parse("koshogi engine --model run/step-1").unwrap();
        assert_eq!(spec.argv, ["koshogi", "engine", "--model", "run/step-1"]);
        assert_eq!(spec.limits, EngineLimits::default());
        assert_eq!(spec.to_string(), "koshogi engine --model run/step-1");

        let spec = EngineSpec::parse("koshogi engine@nodes=16").unwrap();
        assert_eq!(spec.argv, ["koshogi", "engine"]);
        assert_eq!(spec.limits.nodes, Some(16));
        assert_eq!(spec.to_string(), "koshogi engine@nodes=16");

        let spec = EngineSpec::parse("'/opt/my engine' --x@time=2000,inc=100,timeout=5").unwrap();
        assert_eq!(spec.argv, ["/opt/my engine", "--x"]);
        assert_eq!(
            spec.limits.clock,
            Some(ClockSpec {
                time: ms(2000),
                inc: ms(100),
                byoyomi: ms(0)
            })
        );
        assert_eq!(spec.limits.timeout, Some(Duration::from_secs(5)));
        assert_eq!(spec.limits.to_string(), "time=2000,inc=100,timeout=5");

        let spec = EngineSpec::parse("usi-engine@byoyomi=1000,movetime=300").unwrap();
        assert_eq!(spec.limits.clock.unwrap().byoyomi, ms(1000));
        assert_eq!(spec.limits.movetime, Some(ms(300)));
    }

    #[test]
    fn an_at_sign_that_is_no_limit_list_stays_in_the_command() {
        let spec = EngineSpec::parse("ssh me@host koshogi engine").unwrap();
        assert_eq!(spec.argv, ["ssh", "me@host", "koshogi", "engine"]);
        let spec = EngineSpec::parse("ssh me@host koshogi engine@nodes=4").unwrap();
        assert_eq!(spec.argv, ["ssh", "me@host", "koshogi", "engine"]);
        assert_eq!(spec.limits.nodes, Some(4));
    }

    #[test]
    fn display_parses_back() {
        for text in [
            "koshogi engine",
            "a b@nodes=8",
            "a@movetime=100,timeout=3",
            "a@time=0,byoyomi=500",
            "a@nodes=1,time=60000,inc=500",
        ] {
            let spec = EngineSpec::parse(text).unwrap();
            assert_eq!(
                EngineSpec::parse(&spec.to_string()).unwrap(),
                spec,
                "{text}"
            );
        }
    }

    #[test]
    fn bad_limits_are_clear_errors() {
        use EngineSpecError::*;
        let err = |text: &str| EngineSpec::parse(text).unwrap_err();
        assert!(matches!(err("e@depth=3"), UnknownKey(k) if k == "depth"));
        assert!(matches!(err("e@nodes=0"), BadValue(..)));
        assert!(matches!(err("e@nodes=x"), BadValue(..)));
        assert!(matches!(err("e@nodes=99999999999"), BadValue(..)));
        assert!(matches!(err("e@movetime=0"), BadValue(..)));
        assert!(matches!(err("e@timeout=0"), BadValue(..)));
        assert!(matches!(err("e@nodes=1,nodes=2"), Duplicate(_)));
        assert!(matches!(err("e@inc=100"), NoClock));
        assert!(matches!(err("e@time=0"), NoClock));
        assert!(matches!(err("e@nodes=4,x"), UnknownKey(_)));
        assert!(matches!(
            err("@nodes=4"),
            CommandLine(CommandLineError::Empty)
        ));
        assert!(matches!(
            err("'unterminated"),
            CommandLine(CommandLineError::UnclosedQuote)
        ));
        assert!(err("e@nodes=0").to_string().contains("above zero"));
    }
}
