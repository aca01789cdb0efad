//! `koshogi engine`: the line protocol of docs/engine-protocol.md on stdin/stdout (the state
//! machine lives in koshogi_engine; this only wires it to the process). Logs go to stderr.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use koshogi_baselines::ClassicSpec;
use koshogi_engine::{Engine, EngineSettings, Output, ProtocolOptions};

use crate::engine_settings::engine_settings;

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// Checkpoint to play with (model card or step directory); default: the material evaluator.
    /// Same as `setoption name model value <CKPT>`.
    #[arg(long, alias = "checkpoint", value_name = "CKPT")]
    pub model: Option<PathBuf>,
    /// Simulations per `go` that names no limit.
    #[arg(long, default_value_t = EngineSettings::default().simulations)]
    pub simulations: u32,
    /// libtorch threads of the network evaluation.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// Rule options as JSON (§12 keys); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
    /// Analysis lines per report: 1 = the line played, K = the K most visited moves. Same as
    /// `setoption name MultiPV value K`.
    #[arg(long, default_value_t = 1)]
    pub multipv: u32,
    /// What a move costs outside its search under a clock, in milliseconds (reading the
    /// position, the pipe, the GUI): reserved for every move still to come and kept off the
    /// time left. Same as `setoption name overhead value MS`.
    #[arg(long, value_name = "MS", default_value_t = ProtocolOptions::default().overhead.as_millis() as u64)]
    pub overhead: u64,
    /// Play with the classical engine instead of the tree search (no network): iterative
    /// deepening alpha-beta. An optional value sets it up as the arena's `classic@…` does,
    /// e.g. `--classic hash=64,eval=material`; `go` limits (nodes, movetime, clock) apply.
    #[arg(long, value_name = "SETTINGS", num_args = 0..=1, default_missing_value = "")]
    pub classic: Option<String>,
}

pub fn run(args: EngineArgs) -> Result<()> {
    let mut settings = engine_settings(
        args.model.as_deref(),
        args.simulations,
        args.threads,
        args.rules.as_deref(),
    )?;
    settings.classic = match args.classic.as_deref().map(str::trim) {
        None => None,
        Some("") => Some(ClassicSpec::default()),
        Some(text) => {
            Some(ClassicSpec::parse_settings(text).map_err(|e| anyhow::anyhow!("--classic: {e}"))?)
        }
    };
    let protocol = ProtocolOptions {
        multipv: args.multipv,
        overhead: Duration::from_millis(args.overhead),
    };
    let mut engine = Engine::new(Output::stdout(), settings).with_protocol_options(protocol);
    engine.run(std::io::stdin().lock());
    Ok(())
}
