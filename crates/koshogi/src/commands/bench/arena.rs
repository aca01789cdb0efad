//! `koshogi bench arena`: the flags of the match benchmark (what it measures:
//! `koshogi_bench::arena`).

use clap::Args;
use koshogi_bench::ArenaBenchOptions;

/// Options of `koshogi bench arena`.
#[derive(Args, Clone, Debug)]
pub struct ArenaBenchArgs {
    /// Games per measured match.
    #[arg(long, default_value_t = 16)]
    pub games: usize,
    /// Ply cap of every game.
    #[arg(long, default_value_t = 200)]
    pub max_plies: u32,
    /// Games in flight (the network players' batch size is about half of this).
    #[arg(long, default_value_t = 16)]
    pub parallel: usize,
    /// Network for the policy and search players: tiny | cpu | gpu | <blocks>x<channels> ("none"
    /// skips them).
    #[arg(long, default_value = "cpu")]
    pub model: String,
    /// Simulations per move of the search player (0 skips it).
    #[arg(long, default_value_t = 8)]
    pub sims: u32,
    /// Device for the network players: auto | cpu | cuda | cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// libtorch intra-op threads.
    #[arg(long, default_value_t = 2)]
    pub threads: i32,
    /// Alpha-beta depths to time move by move (one core) from the start position and two
    /// positions of a seeded greedy-vs-greedy game; `none` skips them.
    #[arg(long, default_value = "2,3")]
    pub ab_depths: String,
}

impl ArenaBenchArgs {
    /// The library's options: the flags as they are.
    fn options(self) -> ArenaBenchOptions {
        ArenaBenchOptions {
            games: self.games,
            max_plies: self.max_plies,
            parallel: self.parallel,
            model: self.model,
            sims: self.sims,
            device: self.device,
            threads: self.threads,
            ab_depths: self.ab_depths,
        }
    }
}

/// Runs the benchmark, its report on standard output line by line.
pub fn run(args: ArenaBenchArgs) -> Result<(), koshogi_bench::BenchError> {
    koshogi_bench::arena::run(&args.options(), &mut std::io::stdout())
}
