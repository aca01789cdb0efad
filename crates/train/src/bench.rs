//! `koshogi bench train`: does the input pipeline keep the training step fed?
//!
//! Writes shards of random games into a temporary run directory, then, in the same process and
//! on the same network, alternates two measurements:
//! * pipeline: batches drawn from the shards by the real [`crate::sampler::Sampler`] on the
//!   prefetch thread, each followed by one training step (what [`crate::Trainer::run`] does
//!   per step);
//! * raw: the same training steps again on the very batches the pipeline just delivered,
//!   already built (no input work at all).
//!
//! The two alternate in blocks of a few steps so that both see the same machine load. The
//! ratio pipeline / raw samples/s is the goal figure (≥ 0.95). Peak memory (VmHWM) is
//! reported with it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use koshogi_nn::{DeviceSpec, ModelConfig};

use crate::prefetch::{PrefetchOptions, Prefetched, Prefetcher};
use crate::synthetic::{write_random_games, SyntheticOptions};
use crate::trainer::{TrainError, Trainer, TrainerSetup};
use crate::TrainConfig;

/// Steps per alternating block of the measurement.
const BLOCK_STEPS: u64 = 4;

/// Arguments of `koshogi bench train`.
#[derive(Debug, Clone, clap::Args)]
pub struct TrainBenchArgs {
    /// Training steps per mode (measured in alternating blocks of 4).
    #[arg(long, default_value_t = 16)]
    pub steps: u64,
    /// Positions per batch.
    #[arg(long, default_value_t = 256)]
    pub batch_size: usize,
    /// Network: `cpu` (the default CPU model), `gpu` (the larger GPU model) or `tiny`.
    #[arg(long, default_value = "cpu")]
    pub model: String,
    /// Device: auto, cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSpec,
    /// libtorch intra-op threads (0 = libtorch's default).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Random games written as replay shards for the measurement.
    #[arg(long, default_value_t = 24)]
    pub games: usize,
    /// Keep the generated run directory here instead of a temporary one.
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
}

/// The measured figures.
#[derive(Debug, Clone, Copy)]
pub struct TrainBenchReport {
    pub positions_in_shards: u64,
    pub batch_size: usize,
    pub pipeline_samples_per_second: f64,
    pub raw_samples_per_second: f64,
    /// Mean time the prefetch thread spent drawing and encoding one batch.
    pub prepare_seconds_per_batch: f64,
    /// Mean time the training step waited for its batch in the pipeline measurement.
    pub wait_seconds_per_batch: f64,
    pub peak_resident_bytes: Option<u64>,
}

impl TrainBenchReport {
    pub fn ratio(&self) -> f64 {
        self.pipeline_samples_per_second / self.raw_samples_per_second
    }
}

impl std::fmt::Display for TrainBenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "positions in shards      {}", self.positions_in_shards)?;
        writeln!(f, "batch size               {}", self.batch_size)?;
        writeln!(
            f,
            "pipeline (sampler+step)  {:.1} samples/s",
            self.pipeline_samples_per_second
        )?;
        writeln!(
            f,
            "raw step (same batch)    {:.1} samples/s",
            self.raw_samples_per_second
        )?;
        writeln!(
            f,
            "ratio                    {:.3} (goal >= 0.95)",
            self.ratio()
        )?;
        writeln!(
            f,
            "batch preparation        {:.3} s/batch on the prefetch thread",
            self.prepare_seconds_per_batch
        )?;
        writeln!(
            f,
            "step waited for input    {:.4} s/batch",
            self.wait_seconds_per_batch
        )?;
        match self.peak_resident_bytes {
            Some(bytes) => write!(
                f,
                "peak memory (VmHWM)      {:.1} MiB",
                bytes as f64 / 1048576.0
            ),
            None => write!(f, "peak memory (VmHWM)      unavailable"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TrainBenchError {
    #[error("unknown model size {0:?} (cpu | gpu | tiny)")]
    Model(String),
    #[error("writing the benchmark shards: {0}")]
    Shards(#[from] koshogi_replay::ShardError),
    #[error("creating a temporary directory: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error("the sampler produced no batch: {0}")]
    NoBatch(String),
}

/// Runs the benchmark and prints its report.
pub fn run(args: &TrainBenchArgs) -> Result<TrainBenchReport, TrainBenchError> {
    let report = measure(args)?;
    println!("{report}");
    Ok(report)
}

/// Runs the benchmark.
pub fn measure(args: &TrainBenchArgs) -> Result<TrainBenchReport, TrainBenchError> {
    let model = match args.model.as_str() {
        "cpu" => ModelConfig::cpu_default(),
        "gpu" => ModelConfig::gpu_default(),
        "tiny" => ModelConfig::tiny(),
        other => return Err(TrainBenchError::Model(other.to_string())),
    };
    let temp = tempfile::Builder::new()
        .prefix("koshogi-bench-train-")
        .tempdir()?;
    let run_dir = args
        .run_dir
        .clone()
        .unwrap_or_else(|| temp.path().to_path_buf());
    let max_plies = 200;
    let synthetic = SyntheticOptions {
        games: args.games,
        max_plies,
        positions_per_shard: 1024,
        seed: 1,
        ..SyntheticOptions::default()
    };
    let written = write_random_games(&koshogi_replay::shards_dir(&run_dir), &synthetic)?;
    let train = TrainConfig {
        batch_size: args.batch_size,
        device: args.device,
        threads: args.threads,
        samples_per_new_row: 0.0,
        start_rows: 1,
        prefetch_batches: 2,
        ..TrainConfig::default()
    };
    let setup = TrainerSetup {
        run_dir: run_dir.clone(),
        model,
        train,
        rules: serde_json::json!({}),
        max_plies: Some(max_plies),
        config_hash: "bench".into(),
        resume: true,
        follow: false,
        tensorboard: false,
    };
    let mut trainer = Trainer::open(setup)?;
    let mut sampler = trainer.sampler();
    sampler.refresh().map_err(TrainError::from)?;
    let prefetcher = Prefetcher::spawn(
        sampler,
        PrefetchOptions {
            capacity: 2,
            device: trainer.device(),
            follow: false,
            poll: Duration::from_secs(1),
        },
    )
    .map_err(TrainError::Thread)?;
    let next = |wait: &mut Duration, prepare: &mut Duration| {
        let started = Instant::now();
        let item = prefetcher.recv();
        *wait += started.elapsed();
        match item {
            Some(Prefetched::Batch(batch)) => {
                *prepare += batch.prepare_time;
                Ok(batch)
            }
            Some(other) => Err(TrainBenchError::NoBatch(format!("{other:?}"))),
            None => Err(TrainBenchError::NoBatch("the prefetch thread ended".into())),
        }
    };
    // Warm-up: the first steps allocate and tune.
    let (mut ignored_wait, mut ignored_prepare) = (Duration::ZERO, Duration::ZERO);
    let first = next(&mut ignored_wait, &mut ignored_prepare)?;
    trainer.train_step(&first.batch)?;
    drop(first);
    // Alternate short blocks so both modes see the same machine load; the raw block trains
    // again on exactly the batches the pipeline block just delivered.
    let (mut pipeline_time, mut raw_time) = (Duration::ZERO, Duration::ZERO);
    let (mut wait, mut prepare) = (Duration::ZERO, Duration::ZERO);
    let (mut pipeline_samples, mut raw_samples) = (0u64, 0u64);
    let mut remaining = args.steps;
    while remaining > 0 {
        let block = remaining.min(BLOCK_STEPS);
        remaining -= block;
        let mut delivered = Vec::with_capacity(block as usize);
        let started = Instant::now();
        for _ in 0..block {
            let prepared = next(&mut wait, &mut prepare)?;
            trainer.train_step(&prepared.batch)?;
            pipeline_samples += prepared.batch.len() as u64;
            delivered.push(prepared);
        }
        pipeline_time += started.elapsed();
        let started = Instant::now();
        for prepared in &delivered {
            trainer.train_step(&prepared.batch)?;
            raw_samples += prepared.batch.len() as u64;
        }
        raw_time += started.elapsed();
    }
    drop(prefetcher);
    let steps = args.steps.max(1) as f64;
    Ok(TrainBenchReport {
        positions_in_shards: written.positions,
        batch_size: args.batch_size,
        pipeline_samples_per_second: pipeline_samples as f64
            / pipeline_time.as_secs_f64().max(1e-9),
        raw_samples_per_second: raw_samples as f64 / raw_time.as_secs_f64().max(1e-9),
        prepare_seconds_per_batch: prepare.as_secs_f64() / steps,
        wait_seconds_per_batch: wait.as_secs_f64() / steps,
        peak_resident_bytes: koshogi_nn::hardware::peak_resident_bytes(),
    })
}
