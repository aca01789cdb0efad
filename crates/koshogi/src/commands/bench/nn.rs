//! `koshogi bench nn`: the flags of the network benchmark (what it measures: `koshogi_bench::nn`).

use clap::Args;
use koshogi_bench::nn::Layout;
use koshogi_bench::NnBenchOptions;

/// Options of `koshogi bench nn`.
#[derive(Args, Clone, Debug)]
pub struct NnBenchArgs {
    /// Device: auto | cpu | cuda | cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// libtorch intra-op threads (CPU).
    #[arg(long, default_value_t = 2)]
    pub threads: i32,
    /// Inference batch sizes to time.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1, 8, 32, 128, 256])]
    pub batches: Vec<usize>,
    /// Networks to time: cpu (the default self-play network), gpu (the larger one), tiny, or a
    /// trunk shape `<blocks>x<channels>` with the cpu network's heads (e.g. 4x48).
    #[arg(long, value_delimiter = ',', default_values_t = vec!["cpu".to_string(), "gpu".to_string()])]
    pub models: Vec<String>,
    /// Inference precisions to time (default: float32 plus the device's fast precision).
    #[arg(long, value_delimiter = ',')]
    pub precisions: Vec<String>,
    /// Memory layouts to time for each precision: auto (the runtime's choice: channels-last for
    /// CPU bfloat16 only), nchw, nhwc (channels-last).
    #[arg(long, value_delimiter = ',')]
    pub layouts: Vec<Layout>,
    /// Time budget per inference measurement, seconds (at least --min-iterations calls run).
    #[arg(long, default_value_t = 1.5)]
    pub seconds: f64,
    /// Minimum timed calls per measurement.
    #[arg(long, default_value_t = 2)]
    pub min_iterations: usize,
    /// Scale the time budget of the larger model by this when it runs on a CPU.
    #[arg(long, default_value_t = 0.25)]
    pub large_model_cpu_scale: f64,
    /// Batch size of the training-step measurement (0 = skip).
    #[arg(long, default_value_t = 256)]
    pub train_batch: usize,
    /// Timed training steps (after one warm-up step).
    #[arg(long, default_value_t = 3)]
    pub train_steps: usize,
    /// Plies of the seeded random playout the benchmark positions come from.
    #[arg(long, default_value_t = 200)]
    pub playout_plies: usize,
}

impl NnBenchArgs {
    /// The library's options: the flags as they are.
    fn options(self) -> NnBenchOptions {
        NnBenchOptions {
            device: self.device,
            threads: self.threads,
            batches: self.batches,
            models: self.models,
            precisions: self.precisions,
            layouts: self.layouts,
            seconds: self.seconds,
            min_iterations: self.min_iterations,
            large_model_cpu_scale: self.large_model_cpu_scale,
            train_batch: self.train_batch,
            train_steps: self.train_steps,
            playout_plies: self.playout_plies,
        }
    }
}

/// Runs the benchmark, its report on standard output line by line.
pub fn run(args: NnBenchArgs) -> Result<(), koshogi_bench::BenchError> {
    koshogi_bench::nn::run(&args.options(), &mut std::io::stdout())
}
