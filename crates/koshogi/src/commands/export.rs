//! `koshogi export`: a checkpoint as a TorchScript module and/or an ONNX graph + safetensors
//! weights + JSON model card for clients outside Rust (koshogi_export; output layout in
//! `model-card.json`, docs/export.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use koshogi_export::ExportOptions;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A checkpoint: its model card (`…/model.json`) or the step directory holding it.
    #[arg(long, value_name = "CKPT")]
    pub checkpoint: PathBuf,
    /// Directory to write the model files, `model.safetensors` and `model-card.json` into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Model files to write, comma-separated: `torchscript` (model.pt), `onnx` (model.onnx, made
    /// by python/koshogi_zero in the project's Python environment: scripts/setup-python.sh, or
    /// $KOSHOGI_PYTHON).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "torchscript",
        value_name = "FORMATS"
    )]
    pub format: Vec<Format>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Torchscript,
    Onnx,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let card = koshogi_engine::resolve_card(&args.checkpoint)?;
    let onnx = if args.format.contains(&Format::Onnx) {
        Some(koshogi_export::project_python()?)
    } else {
        None
    };
    let options = ExportOptions {
        torchscript: args.format.contains(&Format::Torchscript),
        onnx,
    };
    let summary = koshogi_export::export_checkpoint_with(&card, &args.out, &options)
        .with_context(|| format!("exporting {}", card.display()))?;
    println!(
        "exported {} (training step {})",
        card.display(),
        summary.card.training_step
    );
    if let Some(path) = &summary.torchscript {
        println!("torchscript: {}", path.display());
    }
    if let (Some(path), Some(spec)) = (&summary.onnx, &summary.card.onnx) {
        let diffs = spec
            .check
            .get("max_abs_diff")
            .and_then(|d| d.as_object())
            .map(|d| {
                d.iter()
                    .map(|(name, v)| format!("{name} {:.1e}", v.as_f64().unwrap_or(f64::NAN)))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        println!(
            "onnx:        {} (opset {}; onnxruntime vs PyTorch: {diffs})",
            path.display(),
            spec.opset
        );
    }
    println!("weights:     {}", summary.weights.display());
    println!("model card:  {}", summary.card_path.display());
    Ok(())
}
