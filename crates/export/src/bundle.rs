//! `koshogi export`: a checkpoint turned into files any PyTorch client can use.
//!
//! The export directory holds
//! * `model.pt` — the TorchScript module ([`crate::torchscript`]; output order documented there
//!   and in the card),
//! * `model.safetensors` — the float32 weights under the Rust model's tensor names,
//! * `model-card.json` — an [`ExportCard`]: what the files are and how to feed and read them.
//!
//! Every file is written atomically (temporary file in the same directory, fsync, rename), the
//! card last, so a card never describes files that are not complete.

use std::path::{Path, PathBuf};

use koshogi_nn::checkpoint::{self, ModelCard};
use koshogi_nn::{
    Model, ModelConfig, FEATURE_VERSION, INPUT_PLANES, MOVE_ENCODING_VERSION, POLICY_PLANES,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::ExportError;
use crate::npy::write_atomic;
use crate::torchscript::{self, METHOD, OUTPUT_NAMES, OUTPUT_WIDTHS, PACKED_WIDTH, TRACE_DEVICE};

/// The `format` field of every export card.
pub const EXPORT_FORMAT: &str = "koshogi-export";
pub const EXPORT_FORMAT_VERSION: u32 = 1;
pub const TORCHSCRIPT_FILE: &str = "model.pt";
pub const WEIGHTS_FILE: &str = "model.safetensors";
pub const CARD_FILE: &str = "model-card.json";

/// One tensor of the module's interface.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorSpec {
    pub name: String,
    pub dtype: String,
    /// Dimensions; "N" is the batch.
    pub shape: Vec<serde_json::Value>,
    pub meaning: String,
}

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
    pub torchscript_file: String,
    pub torchscript_method: String,
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
}

/// What [`export_checkpoint`] wrote.
#[derive(Clone, Debug)]
pub struct ExportSummary {
    pub torchscript: PathBuf,
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

fn input_feature_spec() -> serde_json::Value {
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
    ];
    serde_json::json!({
        "version": FEATURE_VERSION,
        "planes": INPUT_PLANES,
        "layout": "NCHW float32; H index = rank - 1, W index = file - 1, in the mover's frame (board turned 180 degrees when White is to move)",
        "point": "(rank - 1) * 19 + (file - 1)",
        "document": "docs/input-features.md",
        "plane_groups": groups,
        "producer": "koshogi encode <KSFEN|startpos> --out DIR writes DIR/features.npy",
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
        "points": 361,
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
        json!(["N", INPUT_PLANES, 19, 19]),
        "input planes (input_features)",
    )];
    let meanings = [
        "policy leg logits, column plane * 361 + point; reshape to [N, 299, 19, 19] (move_encoding)",
        "win/draw/loss logits for the side to move (softmax for probabilities)",
        "predicted remaining plies / 256",
        "predicted final material balance (mover minus opponent) / 16",
    ];
    let mut first = 0;
    let mut outputs = Vec::new();
    for ((name, width), meaning) in OUTPUT_NAMES.iter().zip(OUTPUT_WIDTHS).zip(meanings) {
        outputs.push(tensor(
            name,
            json!(["N", width]),
            &format!("packed columns {first}..{}: {meaning}", first + width),
        ));
        first += width;
    }
    (inputs, outputs)
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Exports the checkpoint whose card is `card_path` into `out_dir` (created if needed).
pub fn export_checkpoint(card_path: &Path, out_dir: &Path) -> Result<ExportSummary, ExportError> {
    let (model, card) = checkpoint::load(card_path, TRACE_DEVICE)?;
    export_model(&model, Some(&card), out_dir)
}

/// Exports a float32 model; `source` (its checkpoint card, if any) supplies the training step
/// and rule options.
pub fn export_model(
    model: &Model,
    source: Option<&ModelCard>,
    out_dir: &Path,
) -> Result<ExportSummary, ExportError> {
    std::fs::create_dir_all(out_dir).map_err(ExportError::io(out_dir))?;

    let weights = out_dir.join(WEIGHTS_FILE);
    let tmp_weights = out_dir.join(format!(".{WEIGHTS_FILE}.tmp-{}", std::process::id()));
    model.vs.save(&tmp_weights)?;
    let weight_bytes = std::fs::read(&tmp_weights).map_err(ExportError::io(&tmp_weights))?;
    write_atomic(&weights, &weight_bytes)?;
    let _ = std::fs::remove_file(&tmp_weights);

    let torchscript_path = out_dir.join(TORCHSCRIPT_FILE);
    let tmp_module = out_dir.join(format!(".{TORCHSCRIPT_FILE}.tmp-{}", std::process::id()));
    torchscript::trace(model)?.save(&tmp_module)?;
    let module_bytes = std::fs::read(&tmp_module).map_err(ExportError::io(&tmp_module))?;
    write_atomic(&torchscript_path, &module_bytes)?;
    let _ = std::fs::remove_file(&tmp_module);

    let (inputs, outputs) = interface();
    let card = ExportCard {
        format: EXPORT_FORMAT.into(),
        format_version: EXPORT_FORMAT_VERSION,
        torchscript_file: TORCHSCRIPT_FILE.into(),
        torchscript_method: METHOD.into(),
        weights_file: WEIGHTS_FILE.into(),
        weights_sha256: sha256_hex(&weight_bytes),
        inputs,
        packed_output_width: PACKED_WIDTH,
        outputs,
        architecture: model.config().clone(),
        parameter_count: model.parameter_count(),
        training_step: source.map_or(0, |c| c.training_step),
        rules_options: source.map_or(serde_json::json!({}), |c| c.rules_options.clone()),
        input_features: input_feature_spec(),
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
    };
    let card_path = out_dir.join(CARD_FILE);
    let mut text = serde_json::to_string_pretty(&card).map_err(|e| ExportError::BadFile {
        path: card_path.clone(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    write_atomic(&card_path, text.as_bytes())?;
    Ok(ExportSummary {
        torchscript: torchscript_path,
        weights,
        card_path,
        card,
    })
}
