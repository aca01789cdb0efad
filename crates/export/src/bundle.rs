//! `koshogi export`: a checkpoint turned into files any PyTorch client can use.
//!
//! The export directory holds
//! * `model.safetensors` — the float32 weights under the Rust model's tensor names,
//! * `model.pt` — the TorchScript module ([`crate::torchscript`]; output order documented there
//!   and in the card), unless only ONNX was asked for,
//! * `model.onnx` — with [`ExportOptions::onnx`]: the ONNX graph with four named outputs
//!   ([`crate::onnx`], made by the Python twin of the network),
//! * `model-card.json` — an [`ExportCard`]: what the files are and how to feed and read them.
//!
//! Every file is written atomically (temporary file in the same directory, fsync, rename), the
//! card after the files it names, so a card never describes files that are not complete (with
//! ONNX the card is written twice: before the Python exporter reads the export, and with the
//! `onnx` section once `model.onnx` is there).

use std::path::{Path, PathBuf};

use koshogi_files::atomic::{write_atomic, TempFile};
use koshogi_files::digest::sha256_hex_of;
use koshogi_nn::checkpoint::{self, ModelCard};
use koshogi_nn::geometry::{BOARD_SIZE, POINTS};
use koshogi_nn::{
    Model, ModelConfig, FEATURE_VERSION, INPUT_PLANES, MOVE_ENCODING_VERSION, POLICY_PLANES,
};
use serde::{Deserialize, Serialize};

use crate::error::ExportError;
use crate::interface::output_meanings;
pub use crate::interface::TensorSpec;
use crate::onnx::{OnnxSpec, ONNX_FILE};
use crate::torchscript::{self, METHOD, OUTPUT_NAMES, OUTPUT_WIDTHS, PACKED_WIDTH, TRACE_DEVICE};

/// The `format` field of every export card.
pub const EXPORT_FORMAT: &str = "koshogi-export";
pub const EXPORT_FORMAT_VERSION: u32 = 1;
pub const TORCHSCRIPT_FILE: &str = "model.pt";
pub const WEIGHTS_FILE: &str = "model.safetensors";
pub const CARD_FILE: &str = "model-card.json";

/// A contiguous group of planes and what it encodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlaneGroup {
    pub first: usize,
    pub last: usize,
    pub meaning: String,
}

/// The JSON model card of an export (`model-card.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportCard {
    pub format: String,
    pub format_version: u32,
    /// The TorchScript module (absent when the export was made with ONNX only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torchscript_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torchscript_method: Option<String>,
    pub weights_file: String,
    pub weights_sha256: String,
    pub inputs: Vec<TensorSpec>,
    /// Columns of the module's single packed float32 output `[N, packed_output_width]`.
    pub packed_output_width: usize,
    /// The heads packed side by side into that output, in column order.
    pub outputs: Vec<TensorSpec>,
    pub architecture: ModelConfig,
    pub parameter_count: usize,
    pub training_step: u64,
    /// The rule options the network was trained under (serialised `RulesOptions`).
    pub rules_options: serde_json::Value,
    pub input_features: serde_json::Value,
    pub move_encoding: serde_json::Value,
    pub versions: serde_json::Value,
    /// SHA-256 of the checkpoint weights this export was made from (when made from one).
    pub source_weights_sha256: Option<String>,
    /// The ONNX graph, when exported with it: file, opset, named outputs, the export-time check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onnx: Option<OnnxSpec>,
}

/// Which model files an export writes besides the weights and the card.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// `model.pt`, the traced TorchScript module.
    pub torchscript: bool,
    /// `model.onnx`, made by the Python twin in this Python environment
    /// ([`crate::onnx::project_python`]).
    pub onnx: Option<PathBuf>,
}

impl Default for ExportOptions {
    /// TorchScript only (what `koshogi export` writes without `--format`).
    fn default() -> Self {
        ExportOptions {
            torchscript: true,
            onnx: None,
        }
    }
}

/// What [`export_checkpoint`] wrote.
#[derive(Clone, Debug)]
pub struct ExportSummary {
    pub torchscript: Option<PathBuf>,
    pub onnx: Option<PathBuf>,
    pub weights: PathBuf,
    pub card_path: PathBuf,
    pub card: ExportCard,
}

fn tensor(name: &str, shape: serde_json::Value, meaning: &str) -> TensorSpec {
    TensorSpec {
        name: name.into(),
        dtype: "float32".into(),
        shape: shape.as_array().cloned().unwrap_or_default(),
        meaning: meaning.into(),
    }
}

fn group(first: usize, last: usize, meaning: &str) -> PlaneGroup {
    PlaneGroup {
        first,
        last,
        meaning: meaning.into(),
    }
}

/// The input planes as this network reads them (`attack_planes`: whether planes 140–141 are
/// filled for it).
fn input_feature_spec(attack_planes: bool) -> serde_json::Value {
    use koshogi_nn::features as f;
    let groups = vec![
        group(
            f::OWN_PIECES,
            f::OWN_PIECES + f::PIECE_STATES - 1,
            "mover's pieces, plane = piece state (docs/input-features.md table)",
        ),
        group(
            f::OPPONENT_PIECES,
            f::OPPONENT_PIECES + f::PIECE_STATES - 1,
            "opponent's pieces, plane = 64 + piece state",
        ),
        group(
            f::OWN_IMMOBILIZED,
            f::OWN_IMMOBILIZED,
            "mover's pieces frozen by an enemy net",
        ),
        group(
            f::OPPONENT_IMMOBILIZED,
            f::OPPONENT_IMMOBILIZED,
            "opponent's pieces frozen by the mover's nets",
        ),
        group(
            f::OWN_FOG_SUPPRESSED,
            f::OWN_FOG_SUPPRESSED,
            "points where the mover's artillery could not shoot (enemy fog)",
        ),
        group(
            f::OPPONENT_FOG_SUPPRESSED,
            f::OPPONENT_FOG_SUPPRESSED,
            "points where the opponent's artillery could not shoot",
        ),
        group(
            f::OWN_PRIEST_LOST,
            f::OPPONENT_PRIEST_LOST,
            "all 1 if the mover's / opponent's Taoist priest is lost",
        ),
        group(
            f::OWN_DRUM_LOST,
            f::OPPONENT_DRUM_LOST,
            "all 1 if the mover's / opponent's drum is lost",
        ),
        group(
            f::REPEATED_TWICE,
            f::REPEATED_THRICE,
            "all 1 if the position occurred at least 2 / 3 times",
        ),
        group(
            f::PLY_FRACTION,
            f::PLY_FRACTION,
            "all min(1, plies played / max plies), 0 without a limit",
        ),
        group(f::ON_BOARD, f::ON_BOARD, "all 1"),
        group(
            f::OWN_ATTACKED,
            f::OPPONENT_ATTACKED,
            if attack_planes {
                "1 at the mover's / opponent's pieces a legal move of the other side would remove"
            } else {
                "all 0: this network does not read the attack planes"
            },
        ),
    ];
    let producer = if attack_planes {
        "koshogi encode <KSFEN|startpos> --attack-planes --out DIR writes DIR/features.npy"
    } else {
        "koshogi encode <KSFEN|startpos> --out DIR writes DIR/features.npy"
    };
    serde_json::json!({
        "version": FEATURE_VERSION,
        "planes": INPUT_PLANES,
        "attack_planes": attack_planes,
        "layout": "NCHW float32; H index = rank - 1, W index = file - 1, in the mover's frame (board turned 180 degrees when White is to move)",
        "point": "(rank - 1) * 19 + (file - 1)",
        "document": "docs/input-features.md",
        "plane_groups": groups,
        "producer": producer,
    })
}

fn move_encoding_spec() -> serde_json::Value {
    use koshogi_nn::move_encoding as m;
    let groups = vec![
        group(
            m::DESTINATION_PLANES.start,
            m::DESTINATION_PLANES.end - 1,
            "destination leg at the origin: near square (0..80) and long rays",
        ),
        group(
            m::REMOVAL_PLANES.start,
            m::REMOVAL_PLANES.end - 1,
            "removal leg at the final point: near square without centre, then rays",
        ),
        group(
            m::PROMOTE_PLANE,
            m::PROMOTE_PLANE,
            "promote, at the final point",
        ),
        group(
            m::DECLINE_PLANE,
            m::DECLINE_PLANE,
            "decline promotion, at the final point",
        ),
    ];
    serde_json::json!({
        "version": MOVE_ENCODING_VERSION,
        "policy_planes": POLICY_PLANES,
        "points": POINTS,
        "leg": "(plane, point); flat index plane * 361 + point into the policy output of one position",
        "move_logit": "sum of the move's leg logits",
        "policy": "softmax of the move logits over the position's legal moves only",
        "document": "docs/move-encoding.md",
        "plane_groups": groups,
        "producer": "koshogi encode <KSFEN|startpos> --out DIR writes DIR/moves.json",
    })
}

fn interface() -> (Vec<TensorSpec>, Vec<TensorSpec>) {
    use serde_json::json;
    let inputs = vec![tensor(
        "features",
        json!(["N", INPUT_PLANES, BOARD_SIZE, BOARD_SIZE]),
        "input planes (input_features)",
    )];
    let mut first = 0;
    let mut outputs = Vec::new();
    for ((name, width), meaning) in OUTPUT_NAMES
        .iter()
        .zip(OUTPUT_WIDTHS)
        .zip(output_meanings())
    {
        outputs.push(tensor(
            name,
            json!(["N", width]),
            &format!("packed columns {first}..{}: {meaning}", first + width),
        ));
        first += width;
    }
    (inputs, outputs)
}

/// Exports the checkpoint whose card is `card_path` into `out_dir` (created if needed):
/// TorchScript, weights and card.
pub fn export_checkpoint(card_path: &Path, out_dir: &Path) -> Result<ExportSummary, ExportError> {
    export_checkpoint_with(card_path, out_dir, &ExportOptions::default())
}

/// [`export_checkpoint`] with a choice of model files.
pub fn export_checkpoint_with(
    card_path: &Path,
    out_dir: &Path,
    options: &ExportOptions,
) -> Result<ExportSummary, ExportError> {
    let (model, card) = checkpoint::load(card_path, TRACE_DEVICE)?;
    export_model_with(&model, Some(&card), out_dir, options)
}

/// Exports a float32 model; `source` (its checkpoint card, if any) supplies the training step
/// and rule options.
pub fn export_model(
    model: &Model,
    source: Option<&ModelCard>,
    out_dir: &Path,
) -> Result<ExportSummary, ExportError> {
    export_model_with(model, source, out_dir, &ExportOptions::default())
}

/// Has `write` (libtorch, which only writes to a path) make `target` atomically through a
/// [`TempFile`] beside it, and returns the SHA-256 of what was written, in hex.
fn write_via_temp(
    target: &Path,
    write: impl FnOnce(&Path) -> Result<(), ExportError>,
) -> Result<String, ExportError> {
    let temp = TempFile::beside(target);
    write(temp.path())?;
    let sha256 = std::fs::File::open(temp.path())
        .and_then(sha256_hex_of)
        .map_err(ExportError::io(temp.path()))?;
    temp.commit().map_err(ExportError::io(target))?;
    Ok(sha256)
}

/// Removes a model file an earlier export left that this one does not write (the card would
/// not name it, but it would sit beside newer weights).
fn remove_stale(path: &Path) -> Result<(), ExportError> {
    match std::fs::remove_file(path) {
        Ok(()) => {
            tracing::info!("removed {} of an earlier export", path.display());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(ExportError::io(path)(e)),
    }
}

fn write_card(card_path: &Path, card: &ExportCard) -> Result<(), ExportError> {
    let mut text = serde_json::to_string_pretty(card).map_err(|e| ExportError::BadFile {
        path: card_path.to_path_buf(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    write_atomic(card_path, text.as_bytes()).map_err(ExportError::io(card_path))
}

/// [`export_model`] with a choice of model files.
pub fn export_model_with(
    model: &Model,
    source: Option<&ModelCard>,
    out_dir: &Path,
    options: &ExportOptions,
) -> Result<ExportSummary, ExportError> {
    if !options.torchscript && options.onnx.is_none() {
        return Err(ExportError::Encoding(
            "nothing to export: ask for TorchScript, ONNX or both".into(),
        ));
    }
    std::fs::create_dir_all(out_dir).map_err(ExportError::io(out_dir))?;

    let weights = out_dir.join(WEIGHTS_FILE);
    let weights_sha256 = write_via_temp(&weights, |tmp| Ok(model.vs.save(tmp)?))?;

    let torchscript_path = out_dir.join(TORCHSCRIPT_FILE);
    if options.torchscript {
        let module = torchscript::trace(model)?;
        write_via_temp(&torchscript_path, |tmp| Ok(module.save(tmp)?))?;
    } else {
        remove_stale(&torchscript_path)?;
    }
    let onnx_path = out_dir.join(ONNX_FILE);
    if options.onnx.is_none() {
        remove_stale(&onnx_path)?;
    }

    let (inputs, outputs) = interface();
    let mut card = ExportCard {
        format: EXPORT_FORMAT.into(),
        format_version: EXPORT_FORMAT_VERSION,
        torchscript_file: options.torchscript.then(|| TORCHSCRIPT_FILE.into()),
        torchscript_method: options.torchscript.then(|| METHOD.into()),
        weights_file: WEIGHTS_FILE.into(),
        weights_sha256,
        inputs,
        packed_output_width: PACKED_WIDTH,
        outputs,
        architecture: model.config().clone(),
        parameter_count: model.parameter_count(),
        training_step: source.map_or(0, |c| c.training_step),
        rules_options: source.map_or(serde_json::json!({}), |c| c.rules_options.clone()),
        input_features: input_feature_spec(model.config().attack_planes),
        move_encoding: move_encoding_spec(),
        versions: serde_json::json!({
            "koshogi_export": env!("CARGO_PKG_VERSION"),
            "export_format": EXPORT_FORMAT_VERSION,
            "feature_version": FEATURE_VERSION,
            "move_encoding_version": MOVE_ENCODING_VERSION,
            "checkpoint_card_format": checkpoint::CARD_FORMAT_VERSION,
            "tch": "0.26",
        }),
        source_weights_sha256: source.map(|c| c.weights_sha256.clone()),
        onnx: None,
    };
    let card_path = out_dir.join(CARD_FILE);
    // Without the ONNX file first: the Python exporter reads this export (card and weights).
    write_card(&card_path, &card)?;
    if let Some(python) = &options.onnx {
        card.onnx = Some(crate::onnx::export_onnx(out_dir, python)?);
        write_card(&card_path, &card)?;
    }
    Ok(ExportSummary {
        torchscript: options.torchscript.then_some(torchscript_path),
        onnx: options.onnx.is_some().then_some(onnx_path),
        weights,
        card_path,
        card,
    })
}
