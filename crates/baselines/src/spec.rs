//! The names of the classical players, `random | greedy | ab:<depth> | classic[@…]`, and their
//! one parser.
//!
//! Why here: the arena (`koshogi arena --a/--b`, the ladder's `--anchors`, `koshogi eval
//! --opponents`) and self-play (`selfplay.fixed_opponent`) both name these players, and must
//! read the same text the same way. The arena's `PlayerSpec` hands every text to
//! [`BaselineSpec`] first and keeps the result as its `Baseline` variant; self-play reads its
//! setting with it and refuses `random`. Each caller words its own errors (which player,
//! which setting) from [`BaselineSpecError`]'s two cases.
//!
//! | name | player |
//! |---|---|
//! | `random` | uniformly random legal moves |
//! | `greedy` | the largest immediate material gain ([`crate::greedy`]) |
//! | `ab:<depth>` | alpha-beta over material, depth 1 to [`MAX_DEPTH`] ([`crate::alphabeta`]) |
//! | `classic`, `classic@<settings>` | the classical engine ([`crate::classic`]; settings such as `movetime=1000` or `nodes=50000`, see [`ClassicSpec`]) |

use std::fmt;
use std::str::FromStr;

use crate::alphabeta::MAX_DEPTH;
use crate::classic::{ClassicSpec, ClassicSpecError};

/// A classical player, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaselineSpec {
    /// `random`: a uniformly random legal move.
    Random,
    /// `greedy`: one ply, the largest immediate material gain.
    Greedy,
    /// `ab:<depth>`: alpha-beta over material at this depth (1 to [`MAX_DEPTH`]), captures
    /// extended.
    AlphaBeta { depth: u32 },
    /// `classic[@<settings>]`: the classical engine.
    Classic(ClassicSpec),
}

/// Why a text is not a [`BaselineSpec`]; each case keeps the (trimmed) text.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum BaselineSpecError {
    /// Not one of the names at all (the arena then tries its other players).
    #[error("unknown baseline `{0}`: expected random, greedy or ab:<depth>")]
    Unknown(String),
    /// `ab:` followed by anything but a depth from 1 to [`MAX_DEPTH`].
    #[error("`{0}`: the alpha-beta depth must be a whole number from 1 to {MAX_DEPTH}")]
    BadDepth(String),
    /// `classic@` followed by settings it does not accept.
    #[error("`{0}`: {1}")]
    BadClassic(String, ClassicSpecError),
}

/// A depth as `ab:<depth>` accepts it: a whole number from 1 to [`MAX_DEPTH`] (as `u32` reads
/// it: no spaces, no fraction).
pub fn parse_depth(text: &str) -> Option<u32> {
    text.parse::<u32>()
        .ok()
        .filter(|depth| (1..=MAX_DEPTH).contains(depth))
}

impl FromStr for BaselineSpec {
    type Err = BaselineSpecError;

    /// Reads a name, ignoring surrounding whitespace.
    fn from_str(text: &str) -> Result<Self, BaselineSpecError> {
        let text = text.trim();
        match text {
            "random" => Ok(BaselineSpec::Random),
            "greedy" => Ok(BaselineSpec::Greedy),
            "classic" => Ok(BaselineSpec::Classic(ClassicSpec::default())),
            _ if text.starts_with("classic@") => {
                ClassicSpec::parse_settings(&text["classic@".len()..])
                    .map(BaselineSpec::Classic)
                    .map_err(|error| BaselineSpecError::BadClassic(text.into(), error))
            }
            _ => match text.strip_prefix("ab:") {
                Some(depth) => parse_depth(depth)
                    .map(|depth| BaselineSpec::AlphaBeta { depth })
                    .ok_or_else(|| BaselineSpecError::BadDepth(text.into())),
                None => Err(BaselineSpecError::Unknown(text.into())),
            },
        }
    }
}

impl fmt::Display for BaselineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineSpec::Random => f.write_str("random"),
            BaselineSpec::Greedy => f.write_str("greedy"),
            BaselineSpec::AlphaBeta { depth } => write!(f, "ab:{depth}"),
            BaselineSpec::Classic(spec) => spec.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_name() {
        assert_eq!("random".parse(), Ok(BaselineSpec::Random));
        assert_eq!(" greedy ".parse(), Ok(BaselineSpec::Greedy));
        assert_eq!("ab:2".parse(), Ok(BaselineSpec::AlphaBeta { depth: 2 }));
        assert_eq!(" ab:4".parse(), Ok(BaselineSpec::AlphaBeta { depth: 4 }));
        assert_eq!(
            "classic".parse(),
            Ok(BaselineSpec::Classic(ClassicSpec::default()))
        );
        let timed: BaselineSpec = "classic@movetime=1000".parse().unwrap();
        assert!(matches!(timed, BaselineSpec::Classic(spec) if spec.movetime_ms == Some(1000)));
        for name in [
            "random",
            "greedy",
            "ab:1",
            "ab:2",
            "ab:3",
            "ab:4",
            "classic",
            "classic@nodes=5000",
            "classic@movetime=250,eval=material",
        ] {
            assert_eq!(name.parse::<BaselineSpec>().unwrap().to_string(), name);
        }
    }

    #[test]
    fn a_bad_depth_is_told_apart_from_an_unknown_name() {
        for bad in [
            "ab:0",
            "ab:5",
            "ab:",
            "ab:x",
            "ab:-1",
            "ab: 2",
            "ab:2:3",
            "ab:99999999999",
        ] {
            let error = bad.parse::<BaselineSpec>().unwrap_err();
            assert_eq!(error, BaselineSpecError::BadDepth(bad.into()));
            assert_eq!(
                error.to_string(),
                format!("`{bad}`: the alpha-beta depth must be a whole number from 1 to 4")
            );
        }
        for bad in ["classic@", "classic@nodes=0", "classic@speed=2"] {
            let error = bad.parse::<BaselineSpec>().unwrap_err();
            assert!(matches!(&error, BaselineSpecError::BadClassic(text, _) if text == bad));
            assert!(
                error.to_string().starts_with(&format!("`{bad}`: ")),
                "{error}"
            );
        }
        for unknown in [
            "",
            "ab",
            "alphabeta",
            "Greedy",
            "material:8",
            "policy:x",
            "classical",
        ] {
            let error = unknown.parse::<BaselineSpec>().unwrap_err();
            assert_eq!(error, BaselineSpecError::Unknown(unknown.into()));
            assert!(error.to_string().contains("random, greedy or ab:<depth>"));
        }
        assert_eq!(
            " ab:9 ".parse::<BaselineSpec>(),
            Err(BaselineSpecError::BadDepth("ab:9".into()))
        );
    }

    #[test]
    fn depths_are_whole_numbers_from_one_to_the_maximum() {
        assert_eq!(parse_depth("1"), Some(1));
        assert_eq!(parse_depth(&MAX_DEPTH.to_string()), Some(MAX_DEPTH));
        for bad in ["0", "5", "", " 1", "1.0", "x", "-1"] {
            assert_eq!(parse_depth(bad), None, "{bad}");
        }
    }
}
