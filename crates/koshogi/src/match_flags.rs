//! The match flags `koshogi arena` and `koshogi eval` share: how openings are drawn, how many
//! games run at once and the seed. (The ply cap and adjudication differ in their defaults, so
//! each command keeps its own.)

use std::path::PathBuf;

use clap::Args;
use koshogi_arena::{MatchSettings, SprtSettings};

#[derive(Args, Debug, Clone)]
pub struct MatchFlags {
    /// Random plies at the start of each opening (the pair of games shares them).
    #[arg(long, default_value_t = 4)]
    pub opening_plies: u32,
    /// Games played at once (network players evaluate them in one batch).
    #[arg(long, default_value_t = 32)]
    pub parallel: usize,
    /// Seed of the openings and of every random choice (the same for every row of a table).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl MatchFlags {
    /// The match settings of `games` games capped at `max_plies`, adjudicated on a margin of
    /// `cap_material` pieces if given.
    pub fn settings(
        &self,
        games: usize,
        max_plies: u32,
        cap_material: Option<u32>,
        sprt: Option<SprtSettings>,
        output_dir: Option<PathBuf>,
    ) -> MatchSettings {
        MatchSettings {
            games,
            max_plies,
            cap_material_margin: cap_material,
            opening_plies: self.opening_plies,
            parallel_games: self.parallel.max(1),
            seed: self.seed,
            sprt,
            output_dir,
        }
    }
}
