//! `koshogi play`: a game against the engine in the terminal, the engine running in this
//! process ([`koshogi_engine::InProcessEngine`]). The game itself (the board after every move,
//! moves in Hodges or canonical notation, `moves`, `quit`, bounded input lines) is
//! [`koshogi_engine::terminal_game`]; this file reads the arguments and builds the engine.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use koshogi_engine::terminal_game::play_in_terminal;
use koshogi_engine::InProcessEngine;
use koshogi_rules::Color;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Checkpoint to play against (model card or step directory); default: the material
    /// evaluator.
    #[arg(long, value_name = "CKPT")]
    pub model: Option<PathBuf>,
    /// The side you play, black or white (Black moves first).
    #[arg(long, default_value_t = Color::Black)]
    pub color: Color,
    /// Engine simulations per move.
    #[arg(long, default_value_t = 200)]
    pub simulations: u32,
    /// libtorch threads of the network evaluation.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// Rule options as JSON (§12 keys); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
}

pub fn run(args: PlayArgs) -> Result<()> {
    let settings = crate::engine_settings::engine_settings(
        args.model.as_deref(),
        args.simulations,
        args.threads,
        args.rules.as_deref(),
    )?;
    let mut engine = InProcessEngine::new(settings);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    play_in_terminal(&mut engine, args.color, &mut input, &mut out)?;
    Ok(())
}
