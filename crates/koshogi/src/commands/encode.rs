//! `koshogi encode`: a position as the network's input tensor (`features.npy`) and its legal
//! moves with their policy legs (`moves.json`), so other clients need not reimplement either
//! encoding (see `scripts/export_example.py`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use koshogi_rules::Game;

use super::moves::{parse_position, parse_rules};

#[derive(Args, Debug)]
pub struct EncodeArgs {
    /// A KSFEN position (`<board> <side> [<move number>]`, quoted or not) or `startpos`.
    #[arg(required = true, num_args = 1.., value_name = "KSFEN|startpos")]
    pub position: Vec<String>,
    /// Directory to write `features.npy` and `moves.json` into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Rule options as JSON (§12 keys); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
}

pub fn run(args: EncodeArgs) -> Result<()> {
    let position = parse_position(&args.position)?;
    let options = parse_rules(args.rules.as_deref())?;
    let game = Game::from_position(position, options);
    let encoded = koshogi_export::encode_game(&game)?;
    koshogi_export::write_encoding(&encoded, &args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "wrote {} and {} ({} legal moves)",
        args.out.join("features.npy").display(),
        args.out.join("moves.json").display(),
        encoded.moves.len()
    );
    Ok(())
}
