//! `koshogi bench classic`: the flags of the classical-engine benchmark (what it measures:
//! `koshogi_bench::classic`).

use clap::Args;
use koshogi_bench::ClassicBenchOptions;

/// Options of `koshogi bench classic`.
#[derive(Args, Clone, Debug)]
pub struct ClassicBenchArgs {
    /// Move times to measure, in milliseconds, comma-separated.
    #[arg(long, default_value = "100,1000")]
    pub movetime: String,
    /// Engine settings as `classic@…` takes them (e.g. `eval=material,hash=64`); limits other
    /// than the move time are ignored.
    #[arg(long, default_value = "")]
    pub settings: String,
}

impl ClassicBenchArgs {
    /// The library's options: the flags as they are.
    fn options(self) -> ClassicBenchOptions {
        ClassicBenchOptions {
            movetime: self.movetime,
            settings: self.settings,
        }
    }
}

/// Runs the benchmark, its report on standard output line by line.
pub fn run(args: ClassicBenchArgs) -> Result<(), koshogi_bench::BenchError> {
    koshogi_bench::classic::run(&args.options(), &mut std::io::stdout())
}
