//! The training benchmark (`koshogi bench train`): how fast is a training step in float32 and in
//! bfloat16, do both learn the same, and does the input pipeline keep the step fed?
//!
//! Writes shards of random games into a temporary run directory and opens three trainers on it
//! from the same initial checkpoint:
//! * pipeline: `--precision` (default `auto`), batches drawn from the shards by the real
//!   [`koshogi_train::Sampler`] on the prefetch thread, one training step each (what
//!   [`Trainer::run`] does per step);
//! * raw float32 and raw bfloat16: the same training steps on the very batches the pipeline
//!   just delivered, already built (no input work; features converted untimed).
//!
//! The three alternate in blocks of a few steps so that all see the same machine load. Every
//! trainer sees the same batches in the same order, so their loss curves compare the two
//! precisions on equal terms, and the pipeline / raw ratio (same precision) is the input
//! pipeline's goal figure (≥ 0.95). Peak memory (VmHWM, the whole process) is reported with
//! them.
//!
//! Not part of koshogi-train: it drives the trainer, the prefetch thread and the synthetic shards
//! through their public API and adds the timing and the report.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use koshogi_nn::{DeviceSpec, ModelConfig, ResolvedRuntime, TrainingBatch};
use koshogi_train::config::TrainPrecision;
use koshogi_train::prefetch::{PrefetchOptions, Prefetched, Prefetcher, PreparedBatch};
use koshogi_train::synthetic::{write_random_games, SyntheticOptions};
use koshogi_train::{TrainConfig, TrainError, Trainer, TrainerSetup};

use crate::memory::mib;
use crate::BenchError;

/// Steps per alternating block of the measurement.
const BLOCK_STEPS: u64 = 4;

/// What to measure (the flags of `koshogi bench train`).
#[derive(Debug, Clone)]
pub struct TrainBenchOptions {
    /// Training steps per trainer (measured in alternating blocks of 4).
    pub steps: u64,
    /// Positions per batch.
    pub batch_size: usize,
    /// Network: `cpu` (the default CPU model), `gpu` (the larger GPU model) or `tiny`.
    pub model: String,
    /// Device: auto, cpu, cuda, cuda:N.
    pub device: DeviceSpec,
    /// Precision of the pipeline measurement (`train.precision`): auto, float32, bfloat16.
    pub precision: TrainPrecision,
    /// libtorch intra-op threads of every trainer (0 = `train.threads`' automatic choice: 1
    /// for bfloat16 on the CPU, libtorch's default otherwise).
    pub threads: usize,
    /// Batches the prefetch thread prepares ahead (`train.prefetch_batches`).
    pub prefetch_batches: usize,
    /// Random games written as replay shards for the measurement.
    pub games: usize,
    /// Keep the generated run directory here instead of a temporary one.
    pub run_dir: Option<PathBuf>,
}

/// Speed and losses of one trainer over the measured steps.
#[derive(Debug, Clone, Default)]
pub struct PrecisionReport {
    /// libtorch intra-op threads of its steps.
    pub threads: i32,
    pub samples_per_second: f64,
    /// Total loss of every step (warm-up included), before its update.
    pub losses: Vec<f64>,
    /// (total, policy, value, moves left, material) of the last step.
    pub last: [f64; 5],
}

impl PrecisionReport {
    /// Mean total loss over the steps `range` (clamped to the recorded ones).
    fn mean(&self, from: usize, to: usize) -> f64 {
        let slice = &self.losses[from.min(self.losses.len())..to.min(self.losses.len())];
        slice.iter().sum::<f64>() / slice.len().max(1) as f64
    }
}

/// The measured figures.
#[derive(Debug, Clone)]
pub struct TrainBenchReport {
    pub positions_in_shards: u64,
    pub batch_size: usize,
    pub amx_bf16: bool,
    /// How the pipeline trainer's steps ran (`--precision` resolved) and on how many threads.
    pub pipeline_runtime: ResolvedRuntime,
    pub pipeline_threads: i32,
    pub pipeline_samples_per_second: f64,
    pub float32: PrecisionReport,
    pub bfloat16: PrecisionReport,
    /// Mean time the prefetch thread spent drawing and encoding one batch, and the CPU time
    /// it used for it.
    pub prepare_seconds_per_batch: f64,
    pub prepare_cpu_seconds_per_batch: f64,
    /// Mean and longest time a pipeline step waited for its batch.
    pub wait_seconds_per_batch: f64,
    pub max_wait_seconds: f64,
    pub peak_resident_bytes: Option<u64>,
}

impl TrainBenchReport {
    /// Raw samples/s of the trainer with the pipeline's precision.
    fn raw_samples_per_second(&self) -> f64 {
        if self.pipeline_runtime.kind == tch::Kind::BFloat16 {
            self.bfloat16.samples_per_second
        } else {
            self.float32.samples_per_second
        }
    }

    /// Pipeline / raw samples/s, same precision (goal ≥ 0.95).
    pub fn ratio(&self) -> f64 {
        self.pipeline_samples_per_second / self.raw_samples_per_second()
    }

    /// bfloat16 / float32 raw samples/s.
    pub fn speedup(&self) -> f64 {
        self.bfloat16.samples_per_second / self.float32.samples_per_second
    }
}

impl std::fmt::Display for TrainBenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (a, b) = (&self.float32, &self.bfloat16);
        let steps = a.losses.len();
        let quarter = (steps / 4).max(1);
        writeln!(f, "positions in shards      {}", self.positions_in_shards)?;
        writeln!(f, "batch size               {}", self.batch_size)?;
        writeln!(
            f,
            "AMX bf16                 {}",
            if self.amx_bf16 { "yes" } else { "no" }
        )?;
        writeln!(f, "                         float32      bfloat16")?;
        writeln!(
            f,
            "threads                  {:<12} {:<12}",
            a.threads, b.threads
        )?;
        writeln!(
            f,
            "raw step samples/s       {:<12.1} {:<12.1} bf16/f32 {:.2}x",
            a.samples_per_second,
            b.samples_per_second,
            self.speedup()
        )?;
        writeln!(
            f,
            "loss first step          {:<12.4} {:<12.4}",
            a.mean(0, 1),
            b.mean(0, 1)
        )?;
        writeln!(
            f,
            "loss mean, all {steps:<4}      {:<12.4} {:<12.4}",
            a.mean(0, steps),
            b.mean(0, steps)
        )?;
        writeln!(
            f,
            "loss mean, last {quarter:<4}     {:<12.4} {:<12.4}",
            a.mean(steps - quarter, steps),
            b.mean(steps - quarter, steps)
        )?;
        for (i, name) in ["total", "policy", "value", "moves left", "material"]
            .iter()
            .enumerate()
        {
            writeln!(
                f,
                "last step {name:<14} {:<12.4} {:<12.4}",
                a.last[i], b.last[i]
            )?;
        }
        writeln!(
            f,
            "pipeline ({}, {} threads)  {:.1} samples/s, ratio to raw {:.3} (goal >= 0.95)",
            self.pipeline_runtime,
            self.pipeline_threads,
            self.pipeline_samples_per_second,
            self.ratio()
        )?;
        writeln!(
            f,
            "batch preparation        {:.3} s/batch on the prefetch thread ({:.3} s CPU)",
            self.prepare_seconds_per_batch, self.prepare_cpu_seconds_per_batch
        )?;
        writeln!(
            f,
            "step waited for input    {:.1} ms/batch on average, {:.1} ms at most",
            self.wait_seconds_per_batch * 1e3,
            self.max_wait_seconds * 1e3
        )?;
        write!(
            f,
            "peak memory (VmHWM)      {}",
            mib(self.peak_resident_bytes)
        )
    }
}

/// One of the raw trainers and what it measured.
struct RawSide {
    trainer: Trainer,
    time: Duration,
    samples: u64,
    report: PrecisionReport,
}

impl RawSide {
    /// One step on `batch` (converted for this trainer, untimed), timed and recorded.
    fn step(&mut self, batch: &TrainingBatch) -> Result<(), TrainError> {
        let batch = batch.converted_for(&self.trainer.input_runtime());
        let started = Instant::now();
        let stats = self.trainer.train_step(&batch)?;
        self.time += started.elapsed();
        self.samples += batch.len() as u64;
        self.report.losses.push(stats.losses[0]);
        self.report.last = stats.losses;
        Ok(())
    }

    fn finish(mut self) -> PrecisionReport {
        self.report.threads = self.trainer.threads();
        // The warm-up step is in the losses but not in the timing.
        self.report.samples_per_second = self.samples as f64 / self.time.as_secs_f64().max(1e-9);
        self.report
    }
}

/// Runs the benchmark: writes the shards, trains and times the three trainers.
pub fn measure(args: &TrainBenchOptions) -> Result<TrainBenchReport, BenchError> {
    let model = ModelConfig::named(&args.model)
        .map_err(|e| BenchError::Options(format!("--model {}: {e}", args.model)))?;
    let temp = tempfile::Builder::new()
        .prefix("koshogi-bench-train-")
        .tempdir()
        .map_err(|source| BenchError::Files {
            context: "creating a temporary directory",
            source,
        })?;
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
    let written = write_random_games(&koshogi_replay::shards_dir(&run_dir), &synthetic)
        .map_err(BenchError::Shards)?;
    // The first trainer writes the step-0 checkpoint, the others resume from it: all three
    // start from the same weights.
    let open = |precision: TrainPrecision| {
        Trainer::open(TrainerSetup {
            run_dir: run_dir.clone(),
            shards: None,
            model: model.clone(),
            train: TrainConfig {
                batch_size: args.batch_size,
                device: args.device,
                threads: args.threads,
                precision,
                samples_per_new_row: 0.0,
                start_rows: 1,
                prefetch_batches: args.prefetch_batches,
                ..TrainConfig::default()
            },
            rules: serde_json::json!({}),
            max_plies: Some(max_plies),
            config_hash: "bench".into(),
            resume: true,
            follow: false,
            tensorboard: false,
        })
    };
    let mut pipeline = open(args.precision)?;
    let raw_side = |precision| -> Result<RawSide, TrainError> {
        Ok(RawSide {
            trainer: open(precision)?,
            time: Duration::ZERO,
            samples: 0,
            report: PrecisionReport::default(),
        })
    };
    let mut float32 = raw_side(TrainPrecision::Float32)?;
    let mut bfloat16 = raw_side(TrainPrecision::BFloat16)?;
    let mut sampler = pipeline.sampler();
    sampler.refresh().map_err(TrainError::from)?;
    let prefetcher = Prefetcher::spawn(
        sampler,
        PrefetchOptions {
            capacity: args.prefetch_batches,
            input: pipeline.input_runtime(),
            follow: false,
            poll: Duration::from_secs(1),
        },
    )
    .map_err(TrainError::Thread)?;
    let next = |waits: &mut Vec<Duration>, prepare: &mut [Duration; 2]| {
        let started = Instant::now();
        let item = prefetcher.recv();
        waits.push(started.elapsed());
        match item {
            Some(Prefetched::Batch(batch)) => {
                prepare[0] += batch.prepare_time;
                prepare[1] += batch.prepare_cpu_time;
                Ok(batch)
            }
            Some(other) => Err(BenchError::NoBatch(format!("{other:?}"))),
            None => Err(BenchError::NoBatch("the prefetch thread ended".into())),
        }
    };
    // Warm-up: the first steps allocate and tune (losses recorded, time not).
    let (mut ignored_waits, mut ignored_prepare) = (Vec::new(), [Duration::ZERO; 2]);
    let first = next(&mut ignored_waits, &mut ignored_prepare)?;
    pipeline.train_step(&first.batch)?;
    prefetcher.set_paused(true);
    for side in [&mut float32, &mut bfloat16] {
        side.step(&first.batch)?;
        side.time = Duration::ZERO;
        side.samples = 0;
    }
    prefetcher.set_paused(false);
    drop(first);
    // Alternate short blocks so all trainers see the same machine load; the raw blocks train
    // on exactly the batches the pipeline block just delivered, while the prefetch thread is
    // paused (else it would fill its queue in their time and hide any starvation).
    let mut pipeline_time = Duration::ZERO;
    let (mut waits, mut prepare) = (Vec::new(), [Duration::ZERO; 2]);
    let mut pipeline_samples = 0u64;
    let mut remaining = args.steps;
    while remaining > 0 {
        let block = remaining.min(BLOCK_STEPS);
        remaining -= block;
        let mut delivered: Vec<PreparedBatch> = Vec::with_capacity(block as usize);
        let started = Instant::now();
        for _ in 0..block {
            let prepared = next(&mut waits, &mut prepare)?;
            pipeline.train_step(&prepared.batch)?;
            pipeline_samples += prepared.batch.len() as u64;
            delivered.push(prepared);
        }
        pipeline_time += started.elapsed();
        prefetcher.set_paused(true);
        for side in [&mut float32, &mut bfloat16] {
            for prepared in &delivered {
                side.step(&prepared.batch)?;
            }
        }
        prefetcher.set_paused(false);
    }
    drop(prefetcher);
    let steps = args.steps.max(1) as f64;
    Ok(TrainBenchReport {
        positions_in_shards: written.positions,
        batch_size: args.batch_size,
        amx_bf16: koshogi_nn::hardware::cpu_has_amx_bf16(),
        pipeline_runtime: pipeline.input_runtime(),
        pipeline_threads: pipeline.threads(),
        pipeline_samples_per_second: pipeline_samples as f64
            / pipeline_time.as_secs_f64().max(1e-9),
        float32: float32.finish(),
        bfloat16: bfloat16.finish(),
        prepare_seconds_per_batch: prepare[0].as_secs_f64() / steps,
        prepare_cpu_seconds_per_batch: prepare[1].as_secs_f64() / steps,
        wait_seconds_per_batch: waits.iter().sum::<Duration>().as_secs_f64() / steps,
        max_wait_seconds: waits
            .iter()
            .max()
            .copied()
            .unwrap_or_default()
            .as_secs_f64(),
        peak_resident_bytes: koshogi_nn::hardware::peak_resident_bytes(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(threads: i32, samples_per_second: f64, losses: &[f64]) -> PrecisionReport {
        PrecisionReport {
            threads,
            samples_per_second,
            losses: losses.to_vec(),
            last: [losses[losses.len() - 1], 1.0, 0.5, 0.25, 0.125],
        }
    }

    fn report(pipeline_kind: tch::Kind) -> TrainBenchReport {
        TrainBenchReport {
            positions_in_shards: 1000,
            batch_size: 8,
            amx_bf16: true,
            pipeline_runtime: ResolvedRuntime {
                kind: pipeline_kind,
                ..ResolvedRuntime::float32(tch::Device::Cpu)
            },
            pipeline_threads: 1,
            pipeline_samples_per_second: 90.0,
            float32: side(2, 100.0, &[4.0, 3.0, 2.0, 1.0]),
            bfloat16: side(1, 300.0, &[4.0, 3.0, 2.0, 2.0]),
            prepare_seconds_per_batch: 0.01,
            prepare_cpu_seconds_per_batch: 0.02,
            wait_seconds_per_batch: 0.003,
            max_wait_seconds: 0.004,
            peak_resident_bytes: Some(3 << 20),
        }
    }

    #[test]
    fn the_pipeline_is_compared_with_the_raw_steps_of_its_own_precision() {
        assert!((report(tch::Kind::Float).ratio() - 0.9).abs() < 1e-12);
        assert!((report(tch::Kind::BFloat16).ratio() - 0.3).abs() < 1e-12);
        assert!((report(tch::Kind::Float).speedup() - 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_table_has_both_precisions_the_loss_means_and_memory() {
        let text = report(tch::Kind::BFloat16).to_string();
        for expected in [
            "batch size               8\n",
            "AMX bf16                 yes\n",
            "threads                  2            1",
            "raw step samples/s       100.0        300.0        bf16/f32 3.00x",
            "loss first step          4.0000       4.0000",
            "loss mean, all 4         2.5000       2.7500",
            "loss mean, last 1        1.0000       2.0000",
            "last step material       0.1250       0.1250",
            "pipeline (cpu bf16",
            "90.0 samples/s, ratio to raw 0.300 (goal >= 0.95)",
            "step waited for input    3.0 ms/batch on average, 4.0 ms at most",
            "peak memory (VmHWM)      3.0 MiB",
        ] {
            assert!(text.contains(expected), "{expected:?} in\n{text}");
        }
    }
}
