//! The engine's settings from the flags `koshogi engine` and `koshogi play` share
//! (`--model`, `--simulations`, `--threads`, `--rules`), read once for both commands.

use anyhow::Result;
use koshogi_engine::EngineSettings;

use crate::position_args::parse_rules;

/// Engine settings from the command line: the checkpoint (its card resolved and read, so a
/// bad path fails before the protocol starts), simulations and threads clamped to the
/// engine's bounds, and the `--rules` JSON.
pub fn engine_settings(
    model: Option<&std::path::Path>,
    simulations: u32,
    threads: u32,
    rules: Option<&str>,
) -> Result<EngineSettings> {
    let model = match model {
        Some(path) => {
            let card = koshogi_engine::resolve_card(path)?;
            koshogi_nn::checkpoint::read_card(&card)?;
            Some(card)
        }
        None => None,
    };
    Ok(EngineSettings {
        model,
        simulations: simulations.clamp(1, koshogi_engine::engine::MAX_SIMULATIONS),
        threads: threads.clamp(1, koshogi_engine::engine::MAX_THREADS),
        rules: parse_rules(rules)?,
        ..EngineSettings::default()
    })
}
