//! The network benchmark (`koshogi bench nn`): how fast the network evaluates positions and
//! trains, per model size and precision, with peak memory — the figures that decide the default
//! model size and batch size for self-play.
//!
//! Inputs are real positions (a seeded random playout from the start position) with their
//! real legal moves, and each timed inference call is the whole path the search pays for:
//! host→device copy, forward pass, legal-move gather, softmax and the copy back. Feature and
//! move encoding are timed separately.
//!
//! Not part of koshogi-nn: it only uses the library's public API (model, inference, features,
//! training step) and adds the timing loops and the table.

use std::io::Write;
use std::time::{Duration, Instant};

use koshogi_nn::hardware::cpu_has_amx_bf16;
use koshogi_nn::threads::OMP_WAIT_POLICY;
use koshogi_nn::{
    compute_losses, encode_moves, encode_position, DeviceSpec, Evaluation, FeatureInput,
    InferenceModel, LossWeights, Model, ModelConfig, MoveLegs, NnError, Precision, RuntimeConfig,
    SampleTargets, TrainingBatchBuilder, FEATURE_LEN,
};
use koshogi_rules::{Game, Position, RulesOptions};
use tch::nn::OptimizerConfig;

use crate::memory::peak_resident_mib;
use crate::positions::start_and_greedy_game;
use crate::BenchError;

/// What to measure (the flags of `koshogi bench nn`).
#[derive(Clone, Debug)]
pub struct NnBenchOptions {
    /// Device: auto | cpu | cuda | cuda:N.
    pub device: String,
    /// libtorch intra-op threads (CPU).
    pub threads: i32,
    /// Inference batch sizes to time.
    pub batches: Vec<usize>,
    /// Models to time: cpu (the default self-play model) and/or gpu (the larger one).
    pub models: Vec<String>,
    /// Inference precisions to time (default: float32 plus the device's fast precision).
    pub precisions: Vec<String>,
    /// Memory layouts to time per precision (default: the runtime's own choice only).
    pub layouts: Vec<Layout>,
    /// Time budget per inference measurement, seconds (at least --min-iterations calls run).
    pub seconds: f64,
    /// Minimum timed calls per measurement.
    pub min_iterations: usize,
    /// Scale the time budget of the larger model by this when it runs on a CPU.
    pub large_model_cpu_scale: f64,
    /// Batch size of the training-step measurement (0 = skip).
    pub train_batch: usize,
    /// Timed training steps (after one warm-up step).
    pub train_steps: usize,
    /// Plies of the seeded random playout the benchmark positions come from.
    pub playout_plies: usize,
}

impl NnBenchOptions {
    fn precisions_for(&self, device: tch::Device) -> Result<Vec<Precision>, NnError> {
        if !self.precisions.is_empty() {
            return self.precisions.iter().map(|p| p.parse()).collect();
        }
        let mut list = vec![Precision::Float32];
        if device.is_cuda() {
            list.push(Precision::Float16);
        } else if cpu_has_amx_bf16() {
            list.push(Precision::BFloat16);
        }
        Ok(list)
    }
}

/// A memory layout of the inference copy, as `[inference] channels_last` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The runtime's choice for the precision (`channels_last` unset).
    Auto,
    /// `[N, C, H, W]` (`channels_last = false`).
    Nchw,
    /// Channels-last `[N, H, W, C]` (`channels_last = true`).
    Nhwc,
}

impl Layout {
    /// The `channels_last` setting this layout stands for.
    pub fn channels_last(self) -> Option<bool> {
        match self {
            Layout::Auto => None,
            Layout::Nchw => Some(false),
            Layout::Nhwc => Some(true),
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Layout::Auto),
            "nchw" => Ok(Layout::Nchw),
            "nhwc" | "channels-last" | "channels_last" => Ok(Layout::Nhwc),
            _ => Err(NnError::InvalidConfig(format!(
                "unknown layout {s:?} (auto | nchw | nhwc)"
            ))),
        }
    }
}

/// Positions with their encoded features and legal-move legs.
struct Samples {
    features: Vec<f32>,
    legs: Vec<Vec<MoveLegs>>,
}

/// Plays a seeded random game from the start and keeps every position on the way.
fn sample_positions(plies: usize) -> Result<Samples, NnError> {
    let options = RulesOptions::default();
    let mut game = Game::new(options);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut positions: Vec<(Position, Vec<MoveLegs>)> = Vec::new();
    let mut legs = Vec::new();
    for _ in 0..=plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        encode_moves(game.position(), &moves, &mut legs)?;
        positions.push((game.position().clone(), legs.clone()));
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        game.play(moves[(state >> 33) as usize % moves.len()]);
    }
    let mut features = vec![0f32; positions.len() * FEATURE_LEN];
    for ((position, _), chunk) in positions.iter().zip(features.chunks_exact_mut(FEATURE_LEN)) {
        encode_position(&FeatureInput::from_position(position, &options), chunk)?;
    }
    Ok(Samples {
        features,
        legs: positions.into_iter().map(|(_, l)| l).collect(),
    })
}

/// Times `f` until `budget` has passed and at least `min` calls ran; returns calls per second.
fn calls_per_second<E: Into<NnError>>(
    budget: Duration,
    min: usize,
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, NnError> {
    let mut f = || f().map_err(Into::into);
    f()?; // warm-up (oneDNN picks kernels on the first call of a shape)
    let start = Instant::now();
    let mut calls = 0usize;
    while calls < min || start.elapsed() < budget {
        f()?;
        calls += 1;
    }
    Ok(calls as f64 / start.elapsed().as_secs_f64())
}

/// Runs the benchmark, writing its table to `out` line by line as the measurements end.
pub fn run(args: &NnBenchOptions, out: &mut impl Write) -> Result<(), BenchError> {
    koshogi_nn::set_intra_op_threads(args.threads);
    tch::manual_seed(1);
    let device_spec: DeviceSpec = args.device.parse()?;
    let device = device_spec.resolve()?;
    writeln!(
        out,
        "koshogi bench nn: device {device:?}, {} libtorch thread(s), AMX bf16: {}, OMP_WAIT_POLICY={}",
        tch::get_num_threads(),
        cpu_has_amx_bf16(),
        std::env::var(OMP_WAIT_POLICY).unwrap_or_else(|_| "(unset)".into())
    )?;

    let start = Instant::now();
    let samples = sample_positions(args.playout_plies)?;
    let count = samples.legs.len();
    let mean_moves = samples.legs.iter().map(Vec::len).sum::<usize>() as f64 / count as f64;
    writeln!(
        out,
        "positions: {count} from a seeded random playout, {mean_moves:.0} legal moves on average (prepared in {:.1}s)",
        start.elapsed().as_secs_f64()
    )?;
    bench_encoding(args, out)?;

    for model_name in &args.models {
        let config = ModelConfig::named(model_name)?;
        // The large network gets a smaller time budget on a CPU (it is meant for a GPU).
        let budget_scale = if model_name == "gpu" && !device.is_cuda() {
            args.large_model_cpu_scale
        } else {
            1.0
        };
        let master = Model::new(&config, device)?;
        writeln!(
            out,
            "\nmodel {model_name}: {} blocks x {} channels, {} parameters",
            config.blocks,
            config.channels,
            master.parameter_count()
        )?;
        let budget = Duration::from_secs_f64(args.seconds * budget_scale);
        // The larger model on a CPU: one timed call per batch size is enough to see its scale.
        let min_iterations = if budget_scale < 1.0 {
            1
        } else {
            args.min_iterations
        };
        let layouts = if args.layouts.is_empty() {
            vec![Layout::Auto]
        } else {
            args.layouts.clone()
        };
        let runtimes = args
            .precisions_for(device)?
            .into_iter()
            .flat_map(|precision| {
                layouts.iter().map(move |layout| RuntimeConfig {
                    device: device_spec,
                    precision,
                    channels_last: layout.channels_last(),
                })
            });
        for runtime in runtimes {
            let mut inference = InferenceModel::from_model(&master, &runtime)?;
            let mut line = format!("  inference {:<24}", inference.runtime().to_string());
            let mut answers: Vec<Evaluation> = Vec::new();
            for &batch in &args.batches {
                let rows: Vec<usize> = (0..batch).map(|i| i % count).collect();
                let mut features = Vec::with_capacity(batch * FEATURE_LEN);
                for &r in &rows {
                    features.extend_from_slice(
                        &samples.features[r * FEATURE_LEN..(r + 1) * FEATURE_LEN],
                    );
                }
                let legs: Vec<&[MoveLegs]> =
                    rows.iter().map(|&r| samples.legs[r].as_slice()).collect();
                let rate = calls_per_second(budget, min_iterations, || {
                    answers.clear();
                    inference.evaluate_encoded(&features, &legs, &mut answers)
                })?;
                line.push_str(&format!("  b{batch}: {:>6.0} pos/s", rate * batch as f64));
            }
            writeln!(out, "{line}  | peak RSS {}", peak_resident_mib())?;
        }
        if args.train_batch > 0 {
            bench_training(args, &master, &samples, budget_scale, out)?;
        }
    }
    writeln!(
        out,
        "\ntotal bench time {:.1}s",
        start.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Host-side cost the search pays per position besides the network, on the positions `bench
/// arena` searches: the start and two of the greedy game's (a crowded middle game, where the
/// attack planes' two captures-only move generations cost the most).
fn bench_encoding(args: &NnBenchOptions, out: &mut impl Write) -> Result<(), BenchError> {
    let options = RulesOptions::default();
    let (positions, _) = start_and_greedy_game(&[60, 120]);
    let budget = Duration::from_secs_f64(args.seconds.min(1.0));
    let mut buffer = vec![0f32; FEATURE_LEN];
    let mut legs = Vec::new();
    for (label, game) in &positions {
        let position = game.position().clone();
        let moves = game.legal_moves();
        let features = calls_per_second(budget, 10, || {
            encode_position(
                &FeatureInput::from_position(&position, &options),
                &mut buffer,
            )
        })?;
        let with_attacks = calls_per_second(budget, 10, || {
            encode_position(
                &FeatureInput::from_position(&position, &options).with_attack_planes(true),
                &mut buffer,
            )
        })?;
        let encode = calls_per_second(budget, 10, || encode_moves(&position, &moves, &mut legs))?;
        writeln!(
            out,
            "host encoding (one thread), {label}: features {features:.0} positions/s ({with_attacks:.0} with attack planes), move legs {encode:.0} positions/s ({} moves each)",
            moves.len()
        )?;
    }
    Ok(())
}

fn bench_training(
    args: &NnBenchOptions,
    master: &Model,
    samples: &Samples,
    budget_scale: f64,
    out: &mut impl Write,
) -> Result<(), BenchError> {
    let count = samples.legs.len();
    let mut builder = TrainingBatchBuilder::new();
    for i in 0..args.train_batch {
        let r = (i * 7) % count;
        let legs = &samples.legs[r];
        let targets: Vec<(u32, f32)> = (0..legs.len().min(4)).map(|m| (m as u32, 0.25)).collect();
        builder.push(
            &samples.features[r * FEATURE_LEN..(r + 1) * FEATURE_LEN],
            legs,
            &SampleTargets {
                policy: &targets,
                policy_weight: 1.0,
                wdl: [0.4, 0.2, 0.4],
                moves_left: 700.0,
                material: 0.0,
            },
        )?;
    }
    // A private float32 copy, so the benchmark's optimiser steps leave the master untouched.
    let mut model = Model::new(master.config(), master.device())?;
    model.vs.copy(&master.vs).map_err(NnError::from)?;
    let mut optimizer = tch::nn::Sgd {
        momentum: 0.9,
        ..Default::default()
    }
    .build(&model.vs, 1e-3)
    .map_err(NnError::from)?;
    let batch = builder.build(model.device());
    let weights = LossWeights::default();
    let steps = if budget_scale < 1.0 {
        1
    } else {
        args.train_steps.max(1)
    };
    let step = |optimizer: &mut tch::nn::Optimizer| -> Result<f64, NnError> {
        let losses = compute_losses(&model.network, &batch, &weights)?;
        optimizer.zero_grad();
        losses.total.backward();
        optimizer.step();
        Ok(losses.total.double_value(&[]))
    };
    step(&mut optimizer)?;
    let start = Instant::now();
    for _ in 0..steps {
        step(&mut optimizer)?;
    }
    let rate = (steps * args.train_batch) as f64 / start.elapsed().as_secs_f64();
    writeln!(
        out,
        "  train step f32, batch {}: {rate:.0} samples/s ({steps} timed step(s))  | peak RSS {}",
        args.train_batch,
        peak_resident_mib()
    )?;
    Ok(())
}
