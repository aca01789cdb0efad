//! `koshogi export`: a checkpoint as a TorchScript module + safetensors weights + JSON model card
//! for clients outside Rust (koshogi_export; output layout in `model-card.json`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A checkpoint: its model card (`…/model.json`) or the step directory holding it.
    #[arg(long, value_name = "CKPT")]
    pub checkpoint: PathBuf,
    /// Directory to write `model.pt`, `model.safetensors` and `model-card.json` into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let card = koshogi_engine::resolve_card(&args.checkpoint)?;
    let summary = koshogi_export::export_checkpoint(&card, &args.out)
        .with_context(|| format!("exporting {}", card.display()))?;
    println!(
        "exported {} (training step {})",
        card.display(),
        summary.card.training_step
    );
    println!("torchscript: {}", summary.torchscript.display());
    println!("weights:     {}", summary.weights.display());
    println!("model card:  {}", summary.card_path.display());
    Ok(())
}
