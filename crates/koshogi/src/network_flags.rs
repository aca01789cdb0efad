//! The network players' flags, shared by `koshogi arena` and `koshogi eval` as one
//! `#[command(flatten)]` struct, so the two commands spell, document and read them once.

use anyhow::Result;
use clap::Args;

use koshogi_arena::players::PlayerOptions;
use koshogi_nn::{DeviceSpec, RuntimeConfig};

/// `--allow-repetition`, `--threads`, `--device`.
#[derive(Args)]
pub struct NetworkPlayerFlags {
    /// Let network players repeat positions. By default they take their best move that does
    /// not recreate an earlier position of the game, so that two deterministic players do not
    /// end every game in fourfold repetition.
    #[arg(long)]
    pub allow_repetition: bool,
    /// libtorch intra-op threads for network players (0 = libtorch's default). 1 is much
    /// faster than 2 when other processes keep the cores busy.
    #[arg(long, default_value_t = 0)]
    pub threads: i32,
    /// Device for network players: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: String,
}

impl NetworkPlayerFlags {
    /// The network players' runtime from `--threads` and `--device` (setting libtorch's
    /// intra-op thread count for this process when `--threads` is positive).
    pub fn runtime(&self) -> Result<RuntimeConfig> {
        if self.threads > 0 {
            koshogi_nn::set_intra_op_threads(self.threads);
        }
        let device: DeviceSpec = self
            .device
            .parse()
            .map_err(|e| anyhow::anyhow!("--device {}: {e}", self.device))?;
        Ok(RuntimeConfig {
            device,
            ..RuntimeConfig::default()
        })
    }

    /// The network players' options: `runtime` (from [`Self::runtime`]), `--allow-repetition`,
    /// and `default_simulations` for `mcts:<ckpt>` without a count.
    pub fn player_options(
        &self,
        runtime: RuntimeConfig,
        default_simulations: u32,
    ) -> PlayerOptions {
        PlayerOptions {
            runtime,
            default_simulations,
            avoid_repetition: !self.allow_repetition,
        }
    }
}
