//! `koshogi bench train`: the flags of the training benchmark (what it measures:
//! `koshogi_bench::train`).

use std::path::PathBuf;

use clap::Args;
use koshogi_bench::TrainBenchOptions;
use koshogi_nn::DeviceSpec;
use koshogi_train::config::TrainPrecision;
use koshogi_train::TrainConfig;

/// Arguments of `koshogi bench train`.
#[derive(Debug, Clone, Args)]
pub struct TrainBenchArgs {
    /// Training steps per trainer (measured in alternating blocks of 4).
    #[arg(long, default_value_t = 16)]
    pub steps: u64,
    /// Positions per batch.
    #[arg(long, default_value_t = 256)]
    pub batch_size: usize,
    /// Network: `cpu` (the default CPU model), `gpu` (the larger GPU model), `tiny`, or a trunk
    /// shape `<blocks>x<channels>` with the cpu network's heads (e.g. `4x48`).
    #[arg(long, default_value = "cpu")]
    pub model: String,
    /// Device: auto, cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSpec,
    /// Precision of the pipeline measurement (`train.precision`): auto, float32, bfloat16.
    #[arg(long, default_value = "auto")]
    pub precision: TrainPrecision,
    /// libtorch intra-op threads of every trainer (0 = `train.threads`' automatic choice: 1
    /// for bfloat16 on the CPU, libtorch's default otherwise).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Batches the prefetch thread prepares ahead (`train.prefetch_batches`).
    #[arg(long, default_value_t = TrainConfig::default().prefetch_batches)]
    pub prefetch_batches: usize,
    /// Random games written as replay shards for the measurement.
    #[arg(long, default_value_t = 24)]
    pub games: usize,
    /// Keep the generated run directory here instead of a temporary one.
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
}

impl TrainBenchArgs {
    /// The library's options: the flags as they are.
    fn options(self) -> TrainBenchOptions {
        TrainBenchOptions {
            steps: self.steps,
            batch_size: self.batch_size,
            model: self.model,
            device: self.device,
            precision: self.precision,
            threads: self.threads,
            prefetch_batches: self.prefetch_batches,
            games: self.games,
            run_dir: self.run_dir,
        }
    }
}

/// Runs the benchmark and prints its report.
pub fn run(args: TrainBenchArgs) -> Result<(), koshogi_bench::BenchError> {
    let report = koshogi_bench::train::measure(&args.options())?;
    println!("{report}");
    Ok(())
}
