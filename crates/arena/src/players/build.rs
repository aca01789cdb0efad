//! Building Ko shogi players from their textual specs ([`PlayerSpec`]).

use koshogi_baselines::BaselineSpec;
use koshogi_nn::checkpoint::read_card;
use koshogi_nn::RuntimeConfig;
use koshogi_rules::{Game, RulesOptions};

use super::baselines::{AlphaBetaPlayer, ClassicPlayer, GreedyPlayer};
use super::engine::EnginePlayer;
use super::network::{card_rules_options, resolve_card, MctsPlayer, PolicyPlayer};
use super::spec::PlayerSpec;
use crate::matches::{Player, RandomPlayer};

/// What network players need besides their checkpoint.
#[derive(Clone, Debug)]
pub struct PlayerOptions {
    pub runtime: RuntimeConfig,
    /// Simulations for `mcts:<ckpt>` without an explicit count, and the `go nodes` of an
    /// `engine:` player without limits.
    pub default_simulations: u32,
    /// Network players take their best move that does not repeat a position
    /// ([`best_fresh_move`](super::repetition::best_fresh_move)); off, deterministic players often draw by fourfold repetition.
    pub avoid_repetition: bool,
}

impl Default for PlayerOptions {
    fn default() -> Self {
        Self {
            runtime: RuntimeConfig::default(),
            default_simulations: 32,
            avoid_repetition: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BuildPlayerError {
    #[error(transparent)]
    Path(#[from] crate::players::CheckpointPathError),
    #[error("loading {spec}: {message}")]
    Load { spec: String, message: String },
}

/// A built player and, for network players, the rule options its checkpoint was trained under.
pub struct BuiltPlayer {
    pub player: Box<dyn Player<Game>>,
    pub rules_options: Option<RulesOptions>,
}

pub fn build_player(
    spec: &PlayerSpec,
    options: &PlayerOptions,
) -> Result<BuiltPlayer, BuildPlayerError> {
    let load_error = |message: String| BuildPlayerError::Load {
        spec: spec.to_string(),
        message,
    };
    Ok(match spec {
        PlayerSpec::Baseline(baseline) => BuiltPlayer {
            player: match *baseline {
                BaselineSpec::Random => Box::new(RandomPlayer::new()),
                BaselineSpec::Greedy => Box::new(GreedyPlayer::new()),
                BaselineSpec::AlphaBeta { depth } => Box::new(AlphaBetaPlayer::new(depth)),
                BaselineSpec::Classic(classic) => Box::new(ClassicPlayer::new(classic)),
            },
            rules_options: None,
        },
        PlayerSpec::MaterialSearch {
            simulations,
            settings,
        } => {
            let eval = koshogi_mcts::EvalThread::spawn(|| Ok(koshogi_mcts::MaterialEvaluator))
                .map_err(|e| load_error(e.to_string()))?;
            let config =
                MctsPlayer::evaluation_config_with(*simulations, settings.forced_candidates);
            let player = MctsPlayer::with_thread(eval, config, spec.to_string())
                .with_avoid_repetition(options.avoid_repetition)
                .with_movetime(settings.movetime(), settings.forced_candidates);
            BuiltPlayer {
                player: Box::new(player),
                rules_options: None,
            }
        }
        PlayerSpec::Policy { checkpoint } => {
            let card_path = resolve_card(checkpoint)?;
            let card = read_card(&card_path).map_err(|e| load_error(e.to_string()))?;
            let player = PolicyPlayer::load(&card_path, &options.runtime, spec.to_string())
                .map_err(|e| load_error(e.to_string()))?
                .with_avoid_repetition(options.avoid_repetition);
            BuiltPlayer {
                player: Box::new(player),
                rules_options: Some(card_rules_options(&card)),
            }
        }
        PlayerSpec::Mcts {
            checkpoint,
            simulations,
            settings,
        } => {
            let card_path = resolve_card(checkpoint)?;
            let card = read_card(&card_path).map_err(|e| load_error(e.to_string()))?;
            let config = MctsPlayer::evaluation_config_with(
                simulations.unwrap_or(options.default_simulations),
                settings.forced_candidates,
            );
            let player = MctsPlayer::load_with_utility(
                &card_path,
                &options.runtime,
                config,
                spec.to_string(),
                settings.utility(),
            )
            .map_err(|e| load_error(e.to_string()))?
            .with_avoid_repetition(options.avoid_repetition)
            .with_movetime(settings.movetime(), settings.forced_candidates);
            BuiltPlayer {
                player: Box::new(player),
                rules_options: Some(card_rules_options(&card)),
            }
        }
        PlayerSpec::Engine(engine) => BuiltPlayer {
            player: Box::new(
                EnginePlayer::start(engine, options.default_simulations)
                    .map_err(|e| load_error(e.to_string()))?,
            ),
            // The engine plays whatever rules the match is played under (sent if not default).
            rules_options: None,
        },
    })
}

/// The rules a match between these players is played under: the networks' (which must agree),
/// else the defaults.
pub fn match_rules(players: &[&BuiltPlayer]) -> Result<RulesOptions, String> {
    let mut chosen: Option<RulesOptions> = None;
    for p in players {
        if let Some(options) = &p.rules_options {
            match &chosen {
                Some(c) if c != options => {
                    return Err(
                        "the two checkpoints were trained under different rule options".into(),
                    )
                }
                _ => chosen = Some(*options),
            }
        }
    }
    Ok(chosen.unwrap_or_default())
}
