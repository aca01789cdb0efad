//! The textual player syntax of `koshogi arena` (`--a`, `--b`).
//!
//! | spec | player |
//! |---|---|
//! | `random` | uniformly random legal moves |
//! | `greedy` | one-ply material grabber (see [`koshogi_baselines::greedy`]) |
//! | `ab:<depth>` | alpha-beta over material, depth 1 to 4 (see [`koshogi_baselines::alphabeta`]) |
//! | `classic[@<settings>]` | the classical engine, e.g. `classic@movetime=1000` or `classic@nodes=50000` (see [`koshogi_baselines::classic`]) |
//! | `material:<sims>[@<settings>]` | the `mcts:` search with `<sims>` simulations, uniform priors and the material value instead of a network: what the search reaches with a hand-made evaluation |
//! | `policy:<ckpt>` | the network's most probable move, no search |
//! | `mcts:<ckpt>[@<settings>]` | tree search with the network, default simulations |
//! | `mcts:<ckpt>:<sims>[@<settings>]` | tree search with `<sims>` simulations per move |
//! | `engine:<command>[@<limits>]` | a program speaking the engine protocol, run as a subprocess (see [`crate::players::engine`]; e.g. `engine:koshogi engine --model run/step-1@nodes=64`) |
//!
//! The first four are the classical players, named and parsed by koshogi-baselines
//! ([`BaselineSpec`], which self-play's fixed opponent reads too): a text is offered to it first,
//! and only a text that is none of its names is read as one of the others.
//!
//! The search players' settings ([`SearchSettings`]): `movetime=MS` (equal time per move; the
//! simulation count then only sizes the first move), `utility=U` and `forced=off` (the
//! hand-written parts of the search off, for the controls of `koshogi eval`).
//!
//! `<ckpt>` is a checkpoint directory (e.g. `run/checkpoints/step-000001200`) or the model card
//! file inside it. Because paths may contain `:`, only a final all-digit `:<sims>` is split off.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use koshogi_baselines::{BaselineSpec, BaselineSpecError, MAX_DEPTH};
use koshogi_mcts::MAX_SIMULATIONS;

use super::engine::{EngineSpec, EngineSpecError};
use super::search_settings::{SearchSettings, SearchSettingsError};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerSpec {
    /// `random`, `greedy` or `ab:<depth>`: a classical player, no network.
    Baseline(BaselineSpec),
    MaterialSearch {
        simulations: u32,
        settings: SearchSettings,
    },
    Policy {
        checkpoint: PathBuf,
    },
    Mcts {
        checkpoint: PathBuf,
        simulations: Option<u32>,
        settings: SearchSettings,
    },
    /// An external program speaking the engine protocol.
    Engine(EngineSpec),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlayerSpecError {
    #[error(
        "unknown player `{0}`: expected random, greedy, ab:<depth>, classic[@<settings>], \
         material:<sims>[@<settings>], policy:<ckpt>, mcts:<ckpt>[:<sims>][@<settings>] or \
         engine:<command>[@<limits>]"
    )]
    Unknown(String),
    #[error("player `{0}`: {1}")]
    Engine(String, EngineSpecError),
    #[error("player `{0}`: the alpha-beta depth must be a whole number from 1 to {MAX_DEPTH}")]
    BadDepth(String),
    #[error("player `{0}`: {1}")]
    Classic(String, koshogi_baselines::ClassicSpecError),
    #[error("player `{0}` needs a checkpoint path after the colon")]
    MissingCheckpoint(String),
    #[error("player `{0}`: the number of simulations must be from 1 to {MAX_SIMULATIONS}")]
    BadSimulations(String),
    #[error("player `{0}`: {1}")]
    Search(String, SearchSettingsError),
    #[error("player `{0}`: utility= weighs a network's value; material: has no network")]
    UtilityWithoutNetwork(String),
}

/// Splits `text` into what comes before a final `@<settings>` and the settings (the defaults
/// when there is none). A final `@` part without `=` is no settings: it belongs to a path.
fn split_search_settings(
    spec: &str,
    text: &str,
) -> Result<(String, SearchSettings), PlayerSpecError> {
    match text.rsplit_once('@') {
        Some((head, tail)) if tail.contains('=') || tail.trim().is_empty() => {
            let settings =
                SearchSettings::parse(tail).map_err(|e| PlayerSpecError::Search(spec.into(), e))?;
            Ok((head.to_string(), settings))
        }
        _ => Ok((text.to_string(), SearchSettings::default())),
    }
}

/// `@<settings>` when any differ from the defaults.
fn settings_suffix(settings: &SearchSettings) -> String {
    if settings.is_default() {
        String::new()
    } else {
        format!("@{settings}")
    }
}

/// Splits a comma-separated list of players (`--anchors`, `--opponents`): an item of the form
/// `key=value` that is no player continues the settings of the item before it, so that
/// `greedy,classic@nodes=20000,eval=material` is two players. Items are trimmed; empty ones
/// are kept (each caller decides whether `a,,b` is an error).
pub fn split_player_list(text: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for item in text.split(',').map(str::trim) {
        let continues_settings = item.contains('=')
            && !item.contains('@')
            && !item.contains(':')
            && items.last().is_some_and(|last| last.contains('@'));
        match items.last_mut() {
            Some(last) if continues_settings => {
                last.push(',');
                last.push_str(item);
            }
            _ => items.push(item.to_string()),
        }
    }
    items
}

/// A comma-separated list of players (`koshogi eval --opponents`), split by
/// [`split_player_list`], empty items skipped.
pub fn parse_player_list(text: &str) -> Result<Vec<PlayerSpec>, PlayerSpecError> {
    split_player_list(text)
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<PlayerSpec>())
        .collect()
}

impl FromStr for PlayerSpec {
    type Err = PlayerSpecError;

    fn from_str(text: &str) -> Result<Self, PlayerSpecError> {
        let text = text.trim();
        match text.parse::<BaselineSpec>() {
            Ok(baseline) => return Ok(PlayerSpec::Baseline(baseline)),
            Err(BaselineSpecError::BadDepth(_)) => {
                return Err(PlayerSpecError::BadDepth(text.into()))
            }
            Err(BaselineSpecError::BadClassic(_, error)) => {
                return Err(PlayerSpecError::Classic(text.into(), error))
            }
            // None of the classical names: one of the players below, or unknown.
            Err(BaselineSpecError::Unknown(_)) => {}
        }
        if let Some(rest) = text.strip_prefix("material:") {
            let (sims, settings) = split_search_settings(text, rest)?;
            if settings.utility().is_some() {
                return Err(PlayerSpecError::UtilityWithoutNetwork(text.into()));
            }
            return match sims.parse::<u32>() {
                Ok(simulations) if (1..=MAX_SIMULATIONS).contains(&simulations) => {
                    Ok(PlayerSpec::MaterialSearch {
                        simulations,
                        settings,
                    })
                }
                Ok(_) => Err(PlayerSpecError::BadSimulations(text.into())),
                Err(_) if !sims.is_empty() && sims.bytes().all(|b| b.is_ascii_digit()) => {
                    Err(PlayerSpecError::BadSimulations(text.into()))
                }
                Err(_) => Err(PlayerSpecError::Unknown(text.into())),
            };
        }
        if let Some(path) = text.strip_prefix("policy:") {
            if path.is_empty() {
                return Err(PlayerSpecError::MissingCheckpoint(text.into()));
            }
            return Ok(PlayerSpec::Policy {
                checkpoint: PathBuf::from(path),
            });
        }
        if let Some(command) = text.strip_prefix("engine:") {
            return EngineSpec::parse(command)
                .map(PlayerSpec::Engine)
                .map_err(|err| PlayerSpecError::Engine(text.into(), err));
        }
        if let Some(rest) = text.strip_prefix("mcts:") {
            let (rest, settings) = split_search_settings(text, rest)?;
            let (path, simulations) = match rest.rsplit_once(':') {
                Some((path, sims))
                    if !sims.is_empty() && sims.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    // All digits: a number too large for u32 is out of range, not unknown.
                    let sims = sims
                        .parse::<u32>()
                        .ok()
                        .filter(|n| (1..=MAX_SIMULATIONS).contains(n))
                        .ok_or_else(|| PlayerSpecError::BadSimulations(text.into()))?;
                    (path, Some(sims))
                }
                _ => (rest.as_str(), None),
            };
            if path.is_empty() {
                return Err(PlayerSpecError::MissingCheckpoint(text.into()));
            }
            return Ok(PlayerSpec::Mcts {
                checkpoint: PathBuf::from(path),
                simulations,
                settings,
            });
        }
        Err(PlayerSpecError::Unknown(text.into()))
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Baseline(baseline) => baseline.fmt(f),
            PlayerSpec::MaterialSearch {
                simulations,
                settings,
            } => write!(f, "material:{simulations}{}", settings_suffix(settings)),
            PlayerSpec::Policy { checkpoint } => write!(f, "policy:{}", checkpoint.display()),
            PlayerSpec::Mcts {
                checkpoint,
                simulations,
                settings,
            } => {
                write!(f, "mcts:{}", checkpoint.display())?;
                if let Some(s) = simulations {
                    write!(f, ":{s}")?;
                }
                f.write_str(&settings_suffix(settings))
            }
            PlayerSpec::Engine(spec) => write!(f, "engine:{spec}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_lists_skip_empty_items_and_name_bad_ones() {
        assert_eq!(
            parse_player_list("greedy, random,").unwrap(),
            [
                PlayerSpec::Baseline(BaselineSpec::Greedy),
                PlayerSpec::Baseline(BaselineSpec::Random)
            ]
        );
        let error = parse_player_list("greedy,alphabeta").unwrap_err();
        assert_eq!(error, PlayerSpecError::Unknown("alphabeta".into()));
        assert!(
            error.to_string().contains("unknown player `alphabeta`"),
            "{error}"
        );
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            "random".parse(),
            Ok(PlayerSpec::Baseline(BaselineSpec::Random))
        );
        assert_eq!(
            " greedy ".parse(),
            Ok(PlayerSpec::Baseline(BaselineSpec::Greedy))
        );
        assert_eq!(
            "policy:run/checkpoints/step-000000500".parse(),
            Ok(PlayerSpec::Policy {
                checkpoint: "run/checkpoints/step-000000500".into()
            })
        );
        assert_eq!(
            "mcts:ck:64".parse(),
            Ok(PlayerSpec::Mcts {
                checkpoint: "ck".into(),
                simulations: Some(64),
                settings: SearchSettings::default(),
            })
        );
        assert_eq!(
            "mcts:C:/nets/a:b".parse(),
            Ok(PlayerSpec::Mcts {
                checkpoint: "C:/nets/a:b".into(),
                simulations: None,
                settings: SearchSettings::default(),
            })
        );
        assert_eq!(
            "ab:2".parse(),
            Ok(PlayerSpec::Baseline(BaselineSpec::AlphaBeta { depth: 2 }))
        );
        assert_eq!(
            "material:16".parse(),
            Ok(PlayerSpec::MaterialSearch {
                simulations: 16,
                settings: SearchSettings::default()
            })
        );
        assert_eq!(
            "material:0".parse::<PlayerSpec>(),
            Err(PlayerSpecError::BadSimulations("material:0".into()))
        );
        assert!("material:x".parse::<PlayerSpec>().is_err());
        // Counts the search would allocate a schedule for are refused, however they are written.
        for bad in [
            "material:10000001",
            "material:4294967295",
            "material:99999999999",
            "mcts:ck:10000001",
            "mcts:ck:99999999999",
            "mcts:ck:0",
        ] {
            let error = bad.parse::<PlayerSpec>().unwrap_err();
            assert_eq!(error, PlayerSpecError::BadSimulations(bad.into()));
            assert!(error.to_string().contains("from 1 to 10000000"), "{error}");
        }
        assert_eq!(
            "mcts:ck:10000000".parse(),
            Ok(PlayerSpec::Mcts {
                checkpoint: PathBuf::from("ck"),
                simulations: Some(MAX_SIMULATIONS),
                settings: SearchSettings::default(),
            })
        );
        assert_eq!(
            PlayerSpec::MaterialSearch {
                simulations: 8,
                settings: SearchSettings::default()
            }
            .to_string(),
            "material:8"
        );
        assert_eq!(
            " ab:4".parse(),
            Ok(PlayerSpec::Baseline(BaselineSpec::AlphaBeta { depth: 4 }))
        );
        for spec in [
            "random",
            "greedy",
            "ab:1",
            "ab:3",
            "policy:x/y",
            "mcts:x:16",
            "mcts:x",
            "mcts:x:16@utility=0,forced=off",
            "mcts:x@movetime=1000",
            "material:16@movetime=500",
            "material:16@forced=off",
        ] {
            assert_eq!(spec.parse::<PlayerSpec>().unwrap().to_string(), spec);
        }
    }

    #[test]
    fn search_players_take_settings_after_an_at_sign() {
        let spec: PlayerSpec = "mcts:runs/a@b/step-1:16@utility=0,forced=off"
            .parse()
            .unwrap();
        let PlayerSpec::Mcts {
            checkpoint,
            simulations,
            settings,
        } = &spec
        else {
            panic!("{spec:?}")
        };
        assert_eq!(checkpoint, &PathBuf::from("runs/a@b/step-1"));
        assert_eq!(*simulations, Some(16));
        assert_eq!(*settings, SearchSettings::value_only());
        // A final `@` part without `=` is part of the path.
        assert_eq!(
            "mcts:nets@v2".parse(),
            Ok(PlayerSpec::Mcts {
                checkpoint: "nets@v2".into(),
                simulations: None,
                settings: SearchSettings::default(),
            })
        );
        assert_eq!(
            "material:16@movetime=1000".parse(),
            Ok(PlayerSpec::MaterialSearch {
                simulations: 16,
                settings: SearchSettings::timed(1000),
            })
        );
        let error = |text: &str| text.parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(error("material:16@utility=0").contains("has no network"));
        assert!(error("mcts:ck@movetime=0").contains("`movetime=0`"));
        assert!(error("mcts:ck:8@").contains("needs at least one setting"));
        assert!(error("mcts:ck:8@depth=2").contains("unknown search setting `depth`"));
        assert_eq!(
            split_player_list("mcts:ck:16@utility=0,forced=off,greedy"),
            ["mcts:ck:16@utility=0,forced=off", "greedy"]
        );
    }

    #[test]
    fn engine_players_keep_their_whole_command() {
        let spec: PlayerSpec = "engine:koshogi engine --model C:/nets/a:b@nodes=16"
            .parse()
            .unwrap();
        let PlayerSpec::Engine(engine) = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(engine.argv, ["koshogi", "engine", "--model", "C:/nets/a:b"]);
        assert_eq!(engine.limits.nodes, Some(16));
        assert_eq!(
            spec.to_string(),
            "engine:koshogi engine --model C:/nets/a:b@nodes=16"
        );
        let error = "engine:".parse::<PlayerSpec>().unwrap_err();
        assert!(matches!(error, PlayerSpecError::Engine(..)), "{error}");
        let error = "engine:x@nodes=0".parse::<PlayerSpec>().unwrap_err();
        assert!(error.to_string().contains("nodes=0"), "{error}");
    }

    #[test]
    fn rejects_bad_specs() {
        assert!(matches!(
            "alphabeta".parse::<PlayerSpec>(),
            Err(PlayerSpecError::Unknown(_))
        ));
        for bad in [
            "ab:0",
            "ab:5",
            "ab:",
            "ab:x",
            "ab:-1",
            "ab:2:3",
            "ab:99999999999",
        ] {
            let error = bad.parse::<PlayerSpec>().unwrap_err();
            assert_eq!(error, PlayerSpecError::BadDepth(bad.into()));
            assert!(error.to_string().contains("from 1 to 4"), "{error}");
        }
        assert!(matches!(
            "ab".parse::<PlayerSpec>(),
            Err(PlayerSpecError::Unknown(_))
        ));
        assert!(matches!(
            "policy:".parse::<PlayerSpec>(),
            Err(PlayerSpecError::MissingCheckpoint(_))
        ));
        assert!(matches!(
            "mcts::8".parse::<PlayerSpec>(),
            Err(PlayerSpecError::MissingCheckpoint(_))
        ));
        assert!(matches!(
            "mcts:x:0".parse::<PlayerSpec>(),
            Err(PlayerSpecError::BadSimulations(_))
        ));
    }

    #[test]
    fn player_lists_keep_settings_with_their_player() {
        assert_eq!(
            split_player_list(" greedy, classic@nodes=20000,eval=material , ab:2,,"),
            [
                "greedy",
                "classic@nodes=20000,eval=material",
                "ab:2",
                "",
                ""
            ]
        );
        assert_eq!(
            split_player_list("engine:koshogi engine@nodes=8,movetime=50,random"),
            ["engine:koshogi engine@nodes=8,movetime=50", "random"]
        );
        assert_eq!(split_player_list("x=1,greedy"), ["x=1", "greedy"]);
        assert_eq!(split_player_list(" , "), ["", ""]);
        let parsed: Vec<PlayerSpec> = split_player_list("classic@movetime=100,see=off")
            .iter()
            .map(|item| item.parse().unwrap())
            .collect();
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].to_string(), "classic@movetime=100,see=off");
    }
}
