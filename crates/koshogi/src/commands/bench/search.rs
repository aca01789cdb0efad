//! `koshogi bench search`: the flags of the search driver's benchmark (what it measures:
//! `koshogi_bench::search`).

use clap::Args;
use koshogi_bench::SearchBenchOptions;

/// Options of `koshogi bench search`.
#[derive(Args, Clone, Debug)]
pub struct SearchBenchArgs {
    /// Positions per network call (B); the driver runs 2B searches, B per batch.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    /// libtorch intra-op threads on the evaluation thread (the search thread is one more; on a
    /// loaded 2-core machine 2 intra-op threads were measured ~20x slower than 1).
    #[arg(long, default_value_t = 1)]
    pub threads: i32,
    /// Root algorithm: gumbel | puct.
    #[arg(long, default_value = "gumbel")]
    pub algorithm: String,
    /// Leaves one search may have in flight (virtual loss); the driver then runs
    /// 2B / leaves-per-tree searches so batches stay at B.
    #[arg(long, default_value_t = 1)]
    pub leaves_per_tree: u32,
    /// Simulations per move.
    #[arg(long, default_value_t = 16)]
    pub simulations: u32,
    /// Seconds of driver measurement in all (after a warm-up of a quarter of this).
    #[arg(long, default_value_t = 20.0)]
    pub seconds: f64,
    /// Seconds of raw measurement in all.
    #[arg(long, default_value_t = 10.0)]
    pub raw_seconds: f64,
    /// Raw and driver measurements alternate this many times.
    #[arg(long, default_value_t = 4)]
    pub rounds: usize,
    /// Evaluation cache slots (0 = off).
    #[arg(long, default_value_t = 1 << 15)]
    pub cache: usize,
    /// Inference precision: auto | f32 | bf16.
    #[arg(long, default_value = "auto")]
    pub precision: String,
    /// Games are adjudicated drawn after this many plies (then a new game starts).
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// Seed of the random openings, the network's initial weights and the searches.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl SearchBenchArgs {
    /// The library's options: the flags as they are.
    fn options(self) -> SearchBenchOptions {
        SearchBenchOptions {
            batch: self.batch,
            threads: self.threads,
            algorithm: self.algorithm,
            leaves_per_tree: self.leaves_per_tree,
            simulations: self.simulations,
            seconds: self.seconds,
            raw_seconds: self.raw_seconds,
            rounds: self.rounds,
            cache: self.cache,
            precision: self.precision,
            max_plies: self.max_plies,
            seed: self.seed,
        }
    }
}

/// Runs the benchmark, its report on standard output line by line.
pub fn run(args: SearchBenchArgs) -> Result<(), koshogi_bench::BenchError> {
    koshogi_bench::search::run(&args.options(), &mut std::io::stdout())
}
