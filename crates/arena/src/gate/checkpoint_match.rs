//! Gating between two Ko shogi checkpoints, for `koshogi run`: the candidate becomes the
//! self-play model only if it passes a match against the incumbent (see [`gate`] for the
//! decision rule).

use std::path::Path;

use koshogi_nn::checkpoint::read_card;
use koshogi_nn::RuntimeConfig;
use koshogi_rules::Game;

use super::rule::{gate, GateResult, GateSettings};
use crate::ladder::LadderPlayerKind;
use crate::matches::{new_game, MatchError, MatchObserver, MatchSettings, Player};
use crate::players::{
    card_rules_options, resolve_card, CheckpointPathError, MctsPlayer, PolicyPlayer,
};

/// `[gate]` of a run configuration: whether `koshogi run` lets a new checkpoint play self-play
/// only after it passes a match against the one playing now, and how that match is played.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateConfig {
    pub enabled: bool,
    /// Games of one gate match (each opening with both colours).
    pub games: usize,
    /// Plies after which a gate game is a draw.
    pub max_plies: u32,
    /// Simulations per move of both players (0 = raw policy, the cheapest gate).
    pub simulations: u32,
    /// Score the candidate needs to pass.
    pub required_score: f64,
    /// Gate games played at once (their network calls share batches).
    pub parallel_games: usize,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            enabled: false,
            games: 20,
            max_plies: 300,
            simulations: 0,
            required_score: 0.5,
            parallel_games: 20,
        }
    }
}

/// The most games of one gate match, and the most played at once: a gate decides between two
/// checkpoints in minutes, and each game in flight holds a search tree.
pub const MAX_GATE_GAMES: usize = 100_000;

impl GateConfig {
    /// Checks every value, so that a bad `[gate]` section fails when the run starts, with the
    /// key named, instead of at the first checkpoint (or never, as a gate that cannot decide).
    pub fn validate(&self) -> Result<(), GateError> {
        let bad = |message: String| Err(GateError::Config(message));
        if !(1..=MAX_GATE_GAMES).contains(&self.games) {
            return bad(format!("gate.games must be in 1..={MAX_GATE_GAMES}"));
        }
        if !(1..=MAX_GATE_GAMES).contains(&self.parallel_games) {
            return bad(format!(
                "gate.parallel_games must be in 1..={MAX_GATE_GAMES}"
            ));
        }
        if self.max_plies == 0 {
            return bad("gate.max_plies must be at least 1".into());
        }
        if self.simulations > koshogi_mcts::MAX_SIMULATIONS {
            return bad(format!(
                "gate.simulations must be at most {} (0 = raw policy)",
                koshogi_mcts::MAX_SIMULATIONS
            ));
        }
        if !(0.0..=1.0).contains(&self.required_score) {
            return bad("gate.required_score must be in [0, 1]".into());
        }
        Ok(())
    }

    /// The players of a gate match.
    pub fn player_kind(&self) -> LadderPlayerKind {
        if self.simulations == 0 {
            LadderPlayerKind::Policy
        } else {
            LadderPlayerKind::Mcts(MctsPlayer::evaluation_config(self.simulations))
        }
    }

    /// The match settings of a gate match (`seed` varies the openings between gates).
    pub fn settings(&self, seed: u64) -> GateSettings {
        GateSettings {
            match_settings: MatchSettings {
                games: self.games,
                max_plies: self.max_plies,
                parallel_games: self.parallel_games,
                seed,
                ..MatchSettings::default()
            },
            required_score: self.required_score,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Path(#[from] CheckpointPathError),
    #[error("loading {path}: {message}")]
    Load { path: String, message: String },
    #[error(transparent)]
    Match(#[from] MatchError),
}

fn display_name(checkpoint: &Path) -> String {
    let named = if checkpoint.is_file() {
        checkpoint.parent()
    } else {
        Some(checkpoint)
    };
    named
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| checkpoint.display().to_string())
}

fn load(
    checkpoint: &Path,
    kind: &LadderPlayerKind,
    runtime: &RuntimeConfig,
    name: &str,
) -> Result<Box<dyn Player<Game>>, GateError> {
    let card = resolve_card(checkpoint)?;
    let error = |message: String| GateError::Load {
        path: card.display().to_string(),
        message,
    };
    Ok(match kind {
        LadderPlayerKind::Policy => {
            Box::new(PolicyPlayer::load(&card, runtime, name).map_err(|e| error(e.to_string()))?)
        }
        LadderPlayerKind::Mcts(config) => Box::new(
            MctsPlayer::load(&card, runtime, config.clone(), name)
                .map_err(|e| error(e.to_string()))?,
        ),
    })
}

/// Plays `candidate` against `incumbent` (checkpoint directories or model cards) under the
/// candidate's rule options and decides whether it passes.
pub fn gate_checkpoints(
    candidate: &Path,
    incumbent: &Path,
    kind: &LadderPlayerKind,
    runtime: &RuntimeConfig,
    settings: &GateSettings,
    observer: &mut dyn MatchObserver,
) -> Result<GateResult, GateError> {
    let card = resolve_card(candidate)?;
    let rules = card_rules_options(&read_card(&card).map_err(|e| GateError::Load {
        path: card.display().to_string(),
        message: e.to_string(),
    })?);
    let mut candidate_player = load(
        candidate,
        kind,
        runtime,
        &format!("candidate {}", display_name(candidate)),
    )?;
    let mut incumbent_player = load(
        incumbent,
        kind,
        runtime,
        &format!("incumbent {}", display_name(incumbent)),
    )?;
    Ok(gate(
        &|| new_game(&rules, &settings.match_settings),
        candidate_player.as_mut(),
        incumbent_player.as_mut(),
        settings,
        observer,
    )?)
}
