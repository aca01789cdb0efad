//! The classical engine's name and settings: `classic[@key=value,...]`.
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `movetime=MS` | think this many milliseconds per move | — |
//! | `nodes=N` | visit at most N positions per move | 100000 when no other limit is given |
//! | `depth=D` | deepest iteration, 1 to 64 | — |
//! | `eval=full\|material` | evaluation terms ([`EvalTerms`]) | `full` |
//! | `lmr=on\|off\|log` | late-move reductions: one or two plies, none, or growing with depth and move number | `on` |
//! | `null=on\|off`, `see=on\|off`, `futility=on\|off`, `threats=on\|off`, `lmp=on\|off`, `hanging=on\|off` | null move, exchange pruning, frontier futility pruning, threat-aware ordering (evasions), late-move pruning, a quiescence stand-pat that pays for a second threatened piece | `on`, except `threats`, `lmp` and `hanging`: `off` |
//! | `cap=on\|off` | know the game's ply cap and material adjudication (`classic::cap`) | `off` |
//! | `artillery=PERCENT` | weight of the artillery's piece values (`classic::values`), 25 to 400 (100: the baselines' scale) | 200 |
//! | `hash=MIB` | transposition table size in MiB, 1 to 4096 | 16 |
//!
//! Several limits may be given; the first reached stops the search. `nodes` and `depth` make
//! play reproducible (the same moves for the same seed); `movetime` compares programs at equal
//! time. The switches exist for the measurements that justify each part (docs/arena.md).

use std::fmt;
use std::time::Duration;

use super::eval::EvalTerms;
use super::search::{ClassicConfig, ClassicLimits, Reductions, MAX_DEPTH};
use super::values::ARTILLERY_PERCENT_RANGE;

/// Nodes per move when no limit is named: about a second on one core of a 2-core Xeon.
pub const DEFAULT_NODES: u64 = 100_000;
/// Largest `movetime` accepted: one hour.
pub const MAX_MOVETIME_MS: u64 = 3_600_000;
/// What [`parse_movetime_ms`] accepts, as its callers' errors say it.
pub const MOVETIME_RANGE: &str = "milliseconds from 1 to 3600000";
/// Largest `hash` accepted, in MiB.
pub const MAX_HASH_MIB: u32 = 4096;
/// What `hash=` accepts, as its error says it.
const HASH_RANGE: &str = "MiB from 1 to 4096";
/// What `depth=` accepts ([`MAX_DEPTH`]).
const DEPTH_RANGE: &str = "a whole number from 1 to 64";
/// What `nodes=` accepts (a node count fits 32 bits).
const NODES_RANGE: &str = "a whole number from 1 to 4294967295";
/// What `artillery=` accepts ([`ARTILLERY_PERCENT_RANGE`]).
const ARTILLERY_RANGE: &str = "percent from 25 to 400";

/// Where one switch lives in the engine's configuration.
type SwitchField = fn(&mut ClassicConfig) -> &mut bool;

/// The engine's on/off switches by their setting names, in the order they are printed: the one
/// table that reading and printing a spec share.
const SWITCHES: [(&str, SwitchField); 7] = [
    ("null", |c| &mut c.null_move),
    ("see", |c| &mut c.exchange_pruning),
    ("futility", |c| &mut c.futility),
    ("threats", |c| &mut c.threats),
    ("lmp", |c| &mut c.late_move_pruning),
    ("hanging", |c| &mut c.hanging),
    ("cap", |c| &mut c.cap),
];

/// The `lmr` setting's values: the one table that reading and printing a spec share.
const REDUCTIONS: [(&str, Reductions); 3] = [
    ("on", Reductions::Fixed),
    ("off", Reductions::Off),
    ("log", Reductions::Logarithmic),
];

/// A `movetime=MS` value: whole milliseconds from 1 to [`MAX_MOVETIME_MS`]. Every player that
/// thinks by time reads it this way (`classic@movetime`, the arena's search players), so that
/// equal time means the same bounds on both sides.
pub fn parse_movetime_ms(value: &str) -> Option<u64> {
    value
        .parse::<u64>()
        .ok()
        .filter(|ms| (1..=MAX_MOVETIME_MS).contains(ms))
}

/// A `classic` player's settings, as named: the limits of each search and the engine's own
/// configuration (its switches, evaluation and table size, with [`ClassicConfig`]'s defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ClassicSpec {
    pub movetime_ms: Option<u64>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub engine: ClassicConfig,
}

const MIB: usize = 1 << 20;

/// Why a `classic@…` text is refused; each case names the offending part.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClassicSpecError {
    #[error(
        "unknown classic setting `{0}`: expected movetime=MS, nodes=N, depth=D, \
         eval=full|material, null=on|off, lmr=on|off|log, see=on|off, futility=on|off, \
         threats=on|off, lmp=on|off, hanging=on|off, cap=on|off, artillery=PERCENT or hash=MIB"
    )]
    UnknownKey(String),
    #[error("classic setting `{0}`: {1}")]
    BadValue(String, &'static str),
    #[error("classic setting `{0}` is given twice")]
    Duplicate(String),
    #[error("`classic@` needs at least one setting after the @")]
    Empty,
}

impl ClassicSpec {
    /// Reads the settings after `classic@` (the text after the `@`).
    pub fn parse_settings(text: &str) -> Result<Self, ClassicSpecError> {
        if text.trim().is_empty() {
            return Err(ClassicSpecError::Empty);
        }
        let mut spec = ClassicSpec::default();
        let mut seen: Vec<&str> = Vec::new();
        for item in text.split(',') {
            let item = item.trim();
            let Some((key, value)) = item.split_once('=') else {
                return Err(ClassicSpecError::UnknownKey(item.into()));
            };
            let (key, value) = (key.trim(), value.trim());
            if seen.contains(&key) {
                return Err(ClassicSpecError::Duplicate(key.into()));
            }
            let bad = |why| ClassicSpecError::BadValue(item.into(), why);
            let switch = |value: &str| match value {
                "on" => Ok(true),
                "off" => Ok(false),
                _ => Err(bad("expected on or off")),
            };
            match key {
                "movetime" => {
                    spec.movetime_ms =
                        Some(parse_movetime_ms(value).ok_or_else(|| bad(MOVETIME_RANGE))?)
                }
                "nodes" => {
                    spec.nodes = Some(
                        value
                            .parse::<u64>()
                            .ok()
                            .filter(|n| (1..=u64::from(u32::MAX)).contains(n))
                            .ok_or_else(|| bad(NODES_RANGE))?,
                    )
                }
                "depth" => {
                    spec.depth = Some(
                        value
                            .parse::<u32>()
                            .ok()
                            .filter(|d| (1..=MAX_DEPTH).contains(d))
                            .ok_or_else(|| bad(DEPTH_RANGE))?,
                    )
                }
                "eval" => {
                    spec.engine.eval = match value {
                        "full" => EvalTerms::Full,
                        "material" => EvalTerms::Material,
                        _ => return Err(bad("expected full or material")),
                    }
                }
                "lmr" => {
                    spec.engine.late_move_reductions = REDUCTIONS
                        .iter()
                        .find(|(name, _)| *name == value)
                        .map(|&(_, reductions)| reductions)
                        .ok_or_else(|| bad("expected on, off or log"))?
                }
                "artillery" => {
                    spec.engine.artillery_percent = value
                        .parse::<u16>()
                        .ok()
                        .filter(|percent| ARTILLERY_PERCENT_RANGE.contains(percent))
                        .ok_or_else(|| bad(ARTILLERY_RANGE))?
                }
                "hash" => {
                    let mib = value
                        .parse::<u32>()
                        .ok()
                        .filter(|m| (1..=MAX_HASH_MIB).contains(m))
                        .ok_or_else(|| bad(HASH_RANGE))?;
                    spec.engine.table_bytes = mib as usize * MIB;
                }
                _ => match SWITCHES.iter().find(|(name, _)| *name == key) {
                    Some((_, field)) => *field(&mut spec.engine) = switch(value)?,
                    None => return Err(ClassicSpecError::UnknownKey(item.into())),
                },
            }
            seen.push(key);
        }
        Ok(spec)
    }

    /// The engine configuration these settings select.
    pub fn config(&self) -> ClassicConfig {
        self.engine
    }

    /// The limits of one search ([`DEFAULT_NODES`] when none is named).
    pub fn limits(&self) -> ClassicLimits {
        let none = self.movetime_ms.is_none() && self.nodes.is_none() && self.depth.is_none();
        ClassicLimits {
            movetime: self.movetime_ms.map(Duration::from_millis),
            nodes: if none {
                Some(DEFAULT_NODES)
            } else {
                self.nodes
            },
            depth: self.depth,
            stop: None,
        }
    }
}

impl fmt::Display for ClassicSpec {
    /// `classic`, then the settings that differ from the defaults, in a fixed order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Copies, mutable only because a switch is reached through its `SwitchField`.
        let (mut engine, mut default) = (self.engine, ClassicConfig::default());
        let mut items = Vec::new();
        if let Some(ms) = self.movetime_ms {
            items.push(format!("movetime={ms}"));
        }
        if let Some(n) = self.nodes {
            items.push(format!("nodes={n}"));
        }
        if let Some(d) = self.depth {
            items.push(format!("depth={d}"));
        }
        if engine.eval != default.eval {
            items.push("eval=material".into());
        }
        if engine.late_move_reductions != default.late_move_reductions {
            if let Some((name, _)) = REDUCTIONS
                .iter()
                .find(|(_, reductions)| *reductions == engine.late_move_reductions)
            {
                items.push(format!("lmr={name}"));
            }
        }
        for (name, field) in SWITCHES {
            let on = *field(&mut engine);
            if on != *field(&mut default) {
                items.push(format!("{name}={}", if on { "on" } else { "off" }));
            }
        }
        if engine.artillery_percent != default.artillery_percent {
            items.push(format!("artillery={}", engine.artillery_percent));
        }
        if engine.table_bytes != default.table_bytes {
            items.push(format!("hash={}", engine.table_bytes / MIB));
        }
        if items.is_empty() {
            f.write_str("classic")
        } else {
            write!(f, "classic@{}", items.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranges_in_errors_are_the_ones_parsed() {
        assert_eq!(
            MOVETIME_RANGE,
            format!("milliseconds from 1 to {MAX_MOVETIME_MS}")
        );
        assert_eq!(HASH_RANGE, format!("MiB from 1 to {MAX_HASH_MIB}"));
        assert_eq!(DEPTH_RANGE, format!("a whole number from 1 to {MAX_DEPTH}"));
        assert_eq!(
            NODES_RANGE,
            format!("a whole number from 1 to {}", u32::MAX)
        );
        let (least, most) = ARTILLERY_PERCENT_RANGE.into_inner();
        assert_eq!(ARTILLERY_RANGE, format!("percent from {least} to {most}"));
        assert_eq!(parse_movetime_ms("1"), Some(1));
        assert_eq!(
            parse_movetime_ms(&MAX_MOVETIME_MS.to_string()),
            Some(MAX_MOVETIME_MS)
        );
        assert_eq!(parse_movetime_ms("0"), None);
        assert_eq!(parse_movetime_ms(&(MAX_MOVETIME_MS + 1).to_string()), None);
    }

    #[test]
    fn reads_every_setting_and_prints_it_back() {
        let spec = ClassicSpec::parse_settings(
            "movetime=1000, nodes=5000,depth=7,eval=material,null=off,lmr=off,see=off,futility=off,threats=on,lmp=on,hanging=on,cap=on,artillery=150,hash=64",
        )
        .unwrap();
        assert_eq!(spec.movetime_ms, Some(1000));
        assert_eq!(spec.nodes, Some(5000));
        assert_eq!(spec.depth, Some(7));
        let engine = spec.engine;
        assert_eq!(engine.eval, EvalTerms::Material);
        assert!(!engine.null_move && !engine.exchange_pruning);
        assert_eq!(engine.late_move_reductions, Reductions::Off);
        assert!(!engine.futility && engine.threats && engine.late_move_pruning && engine.hanging);
        assert!(engine.cap);
        assert_eq!(engine.artillery_percent, 150);
        assert_eq!(spec.config().table_bytes, 64 << 20);
        assert_eq!(
            spec.to_string(),
            "classic@movetime=1000,nodes=5000,depth=7,eval=material,lmr=off,null=off,see=off,futility=off,threats=on,lmp=on,hanging=on,cap=on,artillery=150,hash=64"
        );
        assert_eq!(ClassicSpec::default().to_string(), "classic");
        let baseline_values = ClassicSpec::parse_settings("artillery=100").unwrap();
        assert_eq!(baseline_values.to_string(), "classic@artillery=100");
        assert_eq!(
            ClassicSpec::parse_settings("artillery=200")
                .unwrap()
                .to_string(),
            "classic",
            "the default weight is not printed"
        );
        let log = ClassicSpec::parse_settings("lmr=log").unwrap();
        assert_eq!(log.engine.late_move_reductions, Reductions::Logarithmic);
        assert_eq!(log.to_string(), "classic@lmr=log");
        let movetime = ClassicSpec::parse_settings("movetime=250").unwrap();
        assert_eq!(movetime.to_string(), "classic@movetime=250");
        let limits = movetime.limits();
        assert_eq!(limits.movetime, Some(Duration::from_millis(250)));
        assert_eq!(
            limits.nodes, None,
            "a named limit replaces the default nodes"
        );
        assert_eq!(ClassicSpec::default().limits().nodes, Some(DEFAULT_NODES));
    }

    #[test]
    fn refuses_bad_settings_with_the_offending_part() {
        use ClassicSpecError::*;
        let err = |text: &str| ClassicSpec::parse_settings(text).unwrap_err();
        assert_eq!(err(""), Empty);
        assert_eq!(err("speed=3"), UnknownKey("speed=3".into()));
        assert_eq!(err("movetime"), UnknownKey("movetime".into()));
        for bad in [
            "movetime=0",
            "movetime=x",
            "movetime=3600001",
            "nodes=0",
            "nodes=99999999999",
            "depth=0",
            "depth=65",
            "eval=neural",
            "null=yes",
            "lmp=1",
            "lmr=deep",
            "hash=0",
            "hash=4097",
            "artillery=24",
            "artillery=401",
            "artillery=x",
        ] {
            assert!(
                matches!(err(bad), BadValue(item, _) if item == bad),
                "{bad}"
            );
        }
        assert_eq!(err("nodes=5,nodes=6"), Duplicate("nodes".into()));
        assert!(err("depth=99").to_string().contains("from 1 to 64"));
    }
}
