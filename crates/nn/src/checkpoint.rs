//! Checkpoints: float32 weights as safetensors plus a JSON model card.
//!
//! The card (`<name>.json`) says what the weights mean: architecture, feature and move-encoding
//! versions, training step, rule options, and the SHA-256 of the weights file
//! (`<name>.safetensors`, next to it). Loading checks all of it before touching libtorch, so an
//! incompatible or mismatched checkpoint is a clear error, never a crash or silently wrong
//! play. Both files are written atomically (temporary file in the same directory, fsync,
//! rename, through `koshogi_files::atomic`, the workspace's one implementation of it); the
//! weights go first, so a card never names weights that are not complete. The weights' hash is
//! `koshogi_files::digest`'s hex, the spelling every other hash of the workspace uses.

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use koshogi_files::atomic::{write_atomic, TempFile};
use koshogi_files::digest::sha256_hex_of;
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

use crate::config::ModelConfig;
use crate::error::NnError;
use crate::features::{FEATURE_VERSION, FEATURE_VERSION_1, FEATURE_VERSION_1_PLANES, INPUT_PLANES};
use crate::model::Model;
use crate::move_encoding::{MOVE_ENCODING_VERSION, POLICY_PLANES};

/// The `format` field of every card.
pub const CARD_FORMAT: &str = "koshogi-nn-checkpoint";
/// Version of the card and weight-naming scheme.
pub const CARD_FORMAT_VERSION: u32 = 1;

/// The JSON model card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelCard {
    pub format: String,
    pub format_version: u32,
    pub feature_version: u32,
    pub move_encoding_version: u32,
    pub input_planes: usize,
    pub policy_planes: usize,
    pub architecture: ModelConfig,
    pub parameter_count: usize,
    /// Optimiser steps taken when these weights were saved.
    pub training_step: u64,
    /// The rule options the network was trained under (serialised `RulesOptions`).
    pub rules_options: serde_json::Value,
    /// File name of the weights, relative to the card's directory.
    pub weights_file: String,
    pub weights_sha256: String,
    pub created_unix_seconds: u64,
    /// Wall-clock seconds the run had trained when these weights were saved, summed over its
    /// resumes (time between a stop and the next start is not counted). Absent in cards of
    /// runs older than the counter and in models that were not trained by the trainer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_seconds: Option<f64>,
}

impl ModelCard {
    /// Whether the weights were trained on version 1 of the input planes (no attack planes):
    /// [`load`] gives their stem zero weights for the planes added since, which such a network
    /// never has filled, so it answers exactly as it did.
    pub fn is_feature_version_1(&self) -> bool {
        self.feature_version == FEATURE_VERSION_1
    }

    /// Checks that this build can use the card's weights (versions and plane counts).
    pub fn check_compatible(&self, path: &Path) -> Result<(), NnError> {
        let incompatible = |reason: String| {
            Err(NnError::IncompatibleCheckpoint {
                path: path.to_path_buf(),
                reason,
            })
        };
        if self.format != CARD_FORMAT {
            return incompatible(format!(
                "format {:?}, expected {CARD_FORMAT:?}",
                self.format
            ));
        }
        let checks = [
            (
                "card format version",
                self.format_version as usize,
                CARD_FORMAT_VERSION as usize,
            ),
            (
                "move encoding version",
                self.move_encoding_version as usize,
                MOVE_ENCODING_VERSION as usize,
            ),
            ("policy plane count", self.policy_planes, POLICY_PLANES),
        ];
        for (what, found, expected) in checks {
            if found != expected {
                return incompatible(format!("{what} is {found}, this build uses {expected}"));
            }
        }
        let features = (self.feature_version, self.input_planes);
        if features != (FEATURE_VERSION, INPUT_PLANES)
            && features != (FEATURE_VERSION_1, FEATURE_VERSION_1_PLANES)
        {
            return incompatible(format!(
                "input feature version {} with {} planes; this build reads version \
                 {FEATURE_VERSION} ({INPUT_PLANES} planes) or {FEATURE_VERSION_1} \
                 ({FEATURE_VERSION_1_PLANES})",
                self.feature_version, self.input_planes
            ));
        }
        if self.is_feature_version_1() && self.architecture.attack_planes {
            return incompatible(format!(
                "attack planes need input feature version {FEATURE_VERSION}, the card says \
                 {FEATURE_VERSION_1}"
            ));
        }
        // The weights sit beside the card: a bare file name, never a path out of the
        // checkpoint directory (a card from anyone could otherwise name /etc/passwd).
        let mut components = Path::new(&self.weights_file).components();
        if !matches!(
            (components.next(), components.next()),
            (Some(std::path::Component::Normal(_)), None)
        ) {
            return incompatible(format!(
                "weights_file {:?} is not a file name in the checkpoint directory",
                self.weights_file
            ));
        }
        Ok(())
    }
}

/// The largest weights file a checkpoint may have (the GPU preset is ~20 MB): a bound on what
/// hashing and loading read, whatever a card or a link points at.
pub const MAX_WEIGHTS_BYTES: u64 = 2 << 30;

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> NnError + '_ {
    move |source| NnError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Refuses anything but a regular file of at most `max_bytes` (a device behind a link, a
/// directory, a huge file) before it is read.
fn check_regular_file(path: &Path, max_bytes: u64, what: &str) -> Result<(), NnError> {
    let metadata = fs::metadata(path).map_err(io_error(path))?;
    if !metadata.is_file() || metadata.len() > max_bytes {
        return Err(NnError::Checkpoint {
            path: path.to_path_buf(),
            reason: format!("not a {what}: not a regular file of at most {max_bytes} bytes"),
        });
    }
    Ok(())
}

/// SHA-256 of a regular file of at most [`MAX_WEIGHTS_BYTES`], read in blocks (a device such
/// as /dev/zero behind a link would otherwise be read forever).
fn sha256_of(path: &Path) -> Result<String, NnError> {
    check_regular_file(path, MAX_WEIGHTS_BYTES, "weights file")?;
    let file = File::open(path).map_err(io_error(path))?;
    sha256_hex_of(std::io::Read::take(file, MAX_WEIGHTS_BYTES + 1)).map_err(io_error(path))
}

/// Why a checkpoint argument names no model card.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointPathError {
    #[error("{0}: no such checkpoint file or directory")]
    Missing(PathBuf),
    #[error("{0}: no model card (*.json) in this checkpoint directory")]
    NoCard(PathBuf),
    #[error("{reason}")]
    Unreadable { reason: String },
    #[error("{dir}: several model cards, name one: {cards:?}")]
    Ambiguous { dir: PathBuf, cards: Vec<PathBuf> },
}

/// The model card of a checkpoint given as a card file or as the directory holding it (what
/// users type: `…/step-000001000/model.json` or `…/step-000001000`).
/// In a directory, a card named `model.json` wins; otherwise there must be exactly one `*.json`
/// that reads as a model card.
pub fn resolve_card(path: &Path) -> Result<PathBuf, CheckpointPathError> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    if !path.is_dir() {
        return Err(CheckpointPathError::Missing(path.to_path_buf()));
    }
    let preferred = path.join("model.json");
    let mut preferred_error = None;
    if preferred.is_file() {
        match read_card(&preferred) {
            Ok(_) => return Ok(preferred),
            Err(error) => preferred_error = Some(error),
        }
    }
    let mut cards: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|_| CheckpointPathError::Missing(path.to_path_buf()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json") && read_card(p).is_ok())
        .collect();
    cards.sort();
    match cards.len() {
        // A damaged `model.json` says what is wrong with it rather than "no model card".
        0 => Err(match preferred_error {
            Some(error) => CheckpointPathError::Unreadable {
                reason: error.to_string(),
            },
            None => CheckpointPathError::NoCard(path.to_path_buf()),
        }),
        1 => Ok(cards.remove(0)),
        _ => Err(CheckpointPathError::Ambiguous {
            dir: path.to_path_buf(),
            cards,
        }),
    }
}

/// The weights path that belongs to a card path (`x.json` → `x.safetensors`).
pub fn weights_path_for(card_path: &Path) -> PathBuf {
    card_path.with_extension("safetensors")
}

/// Saves `model` (which must be float32) as `<card_path minus .json>.safetensors` + the card at
/// `card_path`. `rules_options` is the serialised `RulesOptions` the model was trained under.
pub fn save(
    model: &Model,
    card_path: &Path,
    training_step: u64,
    rules_options: serde_json::Value,
) -> Result<ModelCard, NnError> {
    save_trained(model, card_path, training_step, rules_options, None)
}

/// [`save`] for the trainer, whose card also records how long the run had trained.
pub fn save_trained(
    model: &Model,
    card_path: &Path,
    training_step: u64,
    rules_options: serde_json::Value,
    training_seconds: Option<f64>,
) -> Result<ModelCard, NnError> {
    let fail = |reason: String| NnError::Checkpoint {
        path: card_path.to_path_buf(),
        reason,
    };
    if card_path.extension().and_then(|e| e.to_str()) != Some("json") {
        return Err(fail("the card path must end in .json".into()));
    }
    if let Some((name, var)) = model
        .vs
        .variables()
        .into_iter()
        .find(|(_, v)| v.kind() != Kind::Float)
    {
        return Err(fail(format!(
            "checkpoints hold float32 master weights; {name} is {:?}",
            var.kind()
        )));
    }
    let weights_path = weights_path_for(card_path);
    // libtorch writes the file itself, given a path (and picks safetensors by its extension).
    let tmp_weights = TempFile::beside(&weights_path);
    model.vs.save(tmp_weights.path())?;
    tmp_weights.commit().map_err(io_error(&weights_path))?;

    let card = ModelCard {
        format: CARD_FORMAT.to_string(),
        format_version: CARD_FORMAT_VERSION,
        feature_version: FEATURE_VERSION,
        move_encoding_version: MOVE_ENCODING_VERSION,
        input_planes: INPUT_PLANES,
        policy_planes: POLICY_PLANES,
        architecture: model.config().clone(),
        parameter_count: model.parameter_count(),
        training_step,
        rules_options,
        weights_file: weights_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        weights_sha256: sha256_of(&weights_path)?,
        created_unix_seconds: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        training_seconds,
    };
    let mut text = serde_json::to_string_pretty(&card).map_err(|e| fail(e.to_string()))?;
    text.push('\n');
    write_atomic(card_path, text.as_bytes()).map_err(io_error(card_path))?;
    Ok(card)
}

/// Reads and checks a card without loading the weights.
pub fn read_card(card_path: &Path) -> Result<ModelCard, NnError> {
    // Cards are a few hundred bytes; never read a device or a huge file whole.
    const MAX_CARD_BYTES: u64 = 1 << 20;
    check_regular_file(card_path, MAX_CARD_BYTES, "model card")?;
    let text = fs::read_to_string(card_path).map_err(io_error(card_path))?;
    let card: ModelCard = serde_json::from_str(&text).map_err(|e| NnError::Checkpoint {
        path: card_path.to_path_buf(),
        reason: format!("unreadable model card: {e}"),
    })?;
    card.check_compatible(card_path)?;
    card.architecture.validate()?;
    if let Some(seconds) = card.training_seconds {
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(NnError::Checkpoint {
                path: card_path.to_path_buf(),
                reason: format!("training_seconds = {seconds} is not a time"),
            });
        }
    }
    Ok(card)
}

/// Loads a checkpoint as a float32 [`Model`] on `device`, after checking the card, the weights'
/// hash and that every tensor's name and shape match the card's architecture.
pub fn load(card_path: &Path, device: Device) -> Result<(Model, ModelCard), NnError> {
    let card = read_card(card_path)?;
    let incompatible = |reason: String| NnError::IncompatibleCheckpoint {
        path: card_path.to_path_buf(),
        reason,
    };
    let weights_path = card_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(&card.weights_file);
    let hash = sha256_of(&weights_path)?;
    // float32 weights: a file smaller than the architecture's weights cannot hold them, and
    // building the network first would allocate whatever the card asks for.
    let file_size = fs::metadata(&weights_path)
        .map_err(io_error(&weights_path))?
        .len();
    let needed = 4 * card.architecture.parameter_lower_bound();
    if needed > file_size {
        return Err(incompatible(format!(
            "the architecture needs at least {needed} bytes of weights, {} holds {file_size}",
            weights_path.display()
        )));
    }
    if hash != card.weights_sha256 {
        return Err(incompatible(format!(
            "{} has SHA-256 {hash}, the card expects {}",
            weights_path.display(),
            card.weights_sha256
        )));
    }
    let mut stored: HashMap<String, Tensor> = Tensor::read_safetensors(&weights_path)?
        .into_iter()
        .collect();
    let model = Model::new(&card.architecture, device)?;
    let variables = model.vs.variables();
    if card.is_feature_version_1() {
        if let Some(stem) = stored.get_mut(STEM_WEIGHT) {
            *stem = with_planes_added(stem, INPUT_PLANES);
        }
    }
    for (name, var) in &variables {
        let Some(tensor) = stored.get(name) else {
            return Err(incompatible(format!("weights file lacks tensor {name}")));
        };
        if tensor.size() != var.size() {
            return Err(incompatible(format!(
                "tensor {name} has shape {:?}, the architecture needs {:?}",
                tensor.size(),
                var.size()
            )));
        }
    }
    if let Some(extra) = stored.keys().find(|name| !variables.contains_key(*name)) {
        return Err(incompatible(format!(
            "weights file has tensor {extra} that the architecture lacks"
        )));
    }
    tch::no_grad(|| -> Result<(), NnError> {
        for (name, mut var) in variables {
            var.f_copy_(&stored[&name].to_kind(Kind::Float).to_device(device))?;
        }
        Ok(())
    })?;
    Ok((model, card))
}

/// The stem convolution's weights, `[channels, input planes, k, k]`.
const STEM_WEIGHT: &str = "stem.weight";

/// `weight` (`[out, in, k, k]`) with zero weights for input planes `in..planes`; unchanged
/// when it is not of that form (the shape check that follows reports it).
fn with_planes_added(weight: &Tensor, planes: usize) -> Tensor {
    let size = weight.size();
    match size.as_slice() {
        &[out, inputs, h, w] if (inputs as usize) < planes => {
            let zeros = Tensor::zeros(
                [out, planes as i64 - inputs, h, w],
                (weight.kind(), weight.device()),
            );
            Tensor::cat(&[weight.shallow_clone(), zeros], 1)
        }
        _ => weight.shallow_clone(),
    }
}

/// Like [`load`], but also insists on a given architecture (e.g. the one a training run was
/// configured with).
pub fn load_expecting(
    card_path: &Path,
    device: Device,
    expected: &ModelConfig,
) -> Result<(Model, ModelCard), NnError> {
    let card = read_card(card_path)?;
    if !card.architecture.same_weights_as(expected) {
        return Err(NnError::IncompatibleCheckpoint {
            path: card_path.to_path_buf(),
            reason: format!(
                "its network differs from the configured one in {} (checkpoint's value, \
                 configured value)",
                card.architecture.weight_differences(expected).join(", ")
            ),
        });
    }
    let (mut model, card) = load(card_path, device)?;
    // The configured reading of the value wins over the one the checkpoint was saved with.
    model.set_material_utility(expected.material_utility);
    Ok((model, card))
}
