//! Gating between two Ko shogi checkpoints, for `koshogi run`: the candidate becomes the
//! self-play model only if it passes a match against the incumbent (see [`crate::gate`](mod@crate::gate) for
//! the decision rule).

use std::path::Path;

use koshogi_nn::checkpoint::read_card;
use koshogi_nn::RuntimeConfig;
use koshogi_rules::Game;

use crate::gate::{gate, GateResult, GateSettings};
use crate::koshogi_game::new_game;
use crate::koshogi_ladder::LadderPlayerKind;
use crate::match_runner::{MatchError, MatchObserver};
use crate::network_players::{
    card_rules_options, resolve_card, CheckpointPathError, MctsPlayer, PolicyPlayer,
};
use crate::player::Player;

#[derive(Debug, thiserror::Error)]
pub enum GateError {
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
    let max_plies = settings.match_settings.max_plies;
    Ok(gate(
        &|| new_game(&rules, max_plies),
        candidate_player.as_mut(),
        incumbent_player.as_mut(),
        settings,
        observer,
    )?)
}
