//! The `[train]` section of a run configuration.
//!
//! Every field has a default so a config file names only what it changes, and unknown keys are
//! errors so a typo cannot silently fall back to a default. The run-level struct that holds
//! `[model]`, `[search]`, `[selfplay]`, `[train]` and `[replay]` lives in the binary crate.

use serde::{Deserialize, Serialize};

use koshogi_nn::hardware::cpu_has_amx_bf16;
use koshogi_nn::{DeviceSpec, LossWeights, ResolvedRuntime};
use tch::{Device, Kind};

use crate::checkpoint_manager::CheckpointConfig;
use crate::lr_schedule::{LrSchedule, LrScheduleConfig};
use crate::optimizer::OptimizerConfig;
use crate::window_size::WindowConfig;

/// The largest batch a configuration may ask for: a batch's input planes alone take ~140 KB
/// per position in float32, so this is ~9 GiB, beyond any machine's need; a larger number in a
/// file is refused at start-up rather than allocated.
pub const MAX_BATCH_SIZE: usize = 1 << 16;

/// The farthest the material outlook may look ahead (`material_outlook_plies`), in plies.
pub const MAX_OUTLOOK_PLIES: u32 = 1000;

/// The most finished batches the prefetch thread may hold (each is a whole batch in memory).
pub const MAX_PREFETCH_BATCHES: usize = 64;

/// `[train]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Positions per optimiser step.
    pub batch_size: usize,
    /// Optimiser steps to run in total (0 = until stopped). `--steps` overrides it.
    pub steps: u64,
    /// Seeds the sampler and the network's initialisation.
    pub seed: u64,
    /// Where the trainer runs: `auto` (CUDA when available), `cpu`, `cuda`, `cuda:N`.
    pub device: DeviceSpec,
    /// libtorch intra-op threads for training. 0 = automatic: 1 when the step runs in bfloat16
    /// on the CPU (see [`TrainConfig::intra_op_threads`]), libtorch's default otherwise.
    pub threads: usize,
    /// Arithmetic of the training step: `auto` (bfloat16 on a CPU with AMX; float32 elsewhere,
    /// AVX512-BF16 alone included, and on CUDA), `float32` or `bfloat16`. Master weights,
    /// optimiser state and checkpoints are float32 either way.
    pub precision: TrainPrecision,
    /// Global gradient-norm clipping threshold (0 = no clipping).
    pub max_grad_norm: f64,
    /// At most this many training samples per position produced (KataGo's
    /// `max-train-bucket-per-new-data`); the trainer waits for self-play beyond it. 0 = no cap.
    pub samples_per_new_row: f64,
    /// Positions that must exist before the first step.
    pub start_rows: u64,
    /// Weight of the root search value in the value target (0 = the game result alone).
    pub search_value_weight: f64,
    /// Weight of the material outlook in the value target: what the material balance became
    /// `material_outlook_plies` plies later (0 = none; see `koshogi_replay::targets::material_outlook`).
    pub material_outlook_weight: f64,
    /// How many plies ahead the material outlook looks.
    pub material_outlook_plies: u32,
    /// How the material outlook of the rows near the end of a game won on material at the ply
    /// cap counts: `result` (±1, as any decided game) or `balance` (the material balance of its
    /// last stored position, as a drawn game). Needs shards of format version 2, which say why
    /// a game ended; older shards count as `result`.
    pub capped_value: CappedValue,
    /// What the material head learns: `ahead` = the mover's balance in pawns
    /// `material_outlook_plies` plies later (what the search can use,
    /// `[model] material_utility`), `final` = the piece-count balance at the game's end.
    pub material_head_target: MaterialHeadTarget,
    /// Probability of training on the left–right mirror image of a sampled position.
    pub mirror_probability: f64,
    /// Batches prepared ahead on the sampler thread.
    pub prefetch_batches: usize,
    /// How often to look for new shards while waiting for data, in seconds.
    pub poll_seconds: f64,
    /// Log scalars to TensorBoard every this many steps.
    pub log_every_steps: u64,
    /// The `[model] material_utility` that checkpoints written at `material_utility_fade_steps`
    /// and later carry; in between it moves linearly from the configured one (see
    /// `utility_fade.rs`).
    pub material_utility_final: f32,
    /// Steps over which the checkpoints' material utility fades to `material_utility_final`
    /// (0 = no fade: every checkpoint carries `[model] material_utility`).
    pub material_utility_fade_steps: u64,
    /// Decay of the moving average of the weights that checkpoints publish for play
    /// (0 = off: checkpoints hold the trained weights; see `weight_average.rs`).
    pub ema_decay: f64,
    /// Relative weights of the loss terms (`[train.loss]`, koshogi-nn's).
    pub loss: LossWeights,
    pub optimizer: OptimizerConfig,
    pub schedule: LrScheduleConfig,
    pub window: WindowConfig,
    pub checkpoint: CheckpointConfig,
}

/// How the material outlook counts a game won on material at the ply cap (`[train] capped_value`);
/// its owner is the targets module the sampler, export and diagnose share.
pub use koshogi_replay::targets::CappedValue;

/// The material head's target (`[train] material_head_target`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaterialHeadTarget {
    /// The mover's material balance in pawns a few plies on
    /// ([`koshogi_replay::targets::material_ahead`]).
    Ahead,
    /// The piece-count balance at the end of the game (as stored in the shards).
    Final,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            batch_size: 256,
            steps: 0,
            seed: 1,
            device: DeviceSpec::Auto,
            threads: 0,
            precision: TrainPrecision::Auto,
            max_grad_norm: 10.0,
            samples_per_new_row: 4.0,
            start_rows: 2_000,
            search_value_weight: 0.0,
            material_outlook_weight: 0.0,
            material_outlook_plies: 8,
            capped_value: CappedValue::Result,
            material_head_target: MaterialHeadTarget::Ahead,
            mirror_probability: 0.5,
            prefetch_batches: 2,
            poll_seconds: 2.0,
            log_every_steps: 10,
            material_utility_final: 0.0,
            material_utility_fade_steps: 0,
            ema_decay: 0.0,
            loss: LossWeights::default(),
            optimizer: OptimizerConfig::default(),
            schedule: LrScheduleConfig::default(),
            window: WindowConfig::default(),
            checkpoint: CheckpointConfig::default(),
        }
    }
}

/// `train.precision`: the arithmetic of forward and backward passes (see [`TrainConfig`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainPrecision {
    #[default]
    Auto,
    #[serde(alias = "f32", alias = "fp32")]
    Float32,
    #[serde(alias = "bf16")]
    BFloat16,
}

impl TrainPrecision {
    /// Where a step with this setting runs on `device`: `None` = on the float32 master itself,
    /// else the device, kind and layout of the working copy (bfloat16, channels-last on a CPU:
    /// oneDNN's fast path). `auto` picks bfloat16 only on a CPU with AMX: without it
    /// (AVX512-BF16 alone, or emulated) bfloat16 is slower than float32; on CUDA float32 stays
    /// (a GPU's own autocast would be the better tool there and is not wired in).
    pub fn resolve(self, device: Device) -> Option<ResolvedRuntime> {
        let bfloat16 = match self {
            TrainPrecision::Float32 => false,
            TrainPrecision::BFloat16 => true,
            TrainPrecision::Auto => device == Device::Cpu && cpu_has_amx_bf16(),
        };
        bfloat16.then_some(ResolvedRuntime {
            device,
            kind: Kind::BFloat16,
            channels_last: device == Device::Cpu,
        })
    }
}

impl std::fmt::Display for TrainPrecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TrainPrecision::Auto => "auto",
            TrainPrecision::Float32 => "float32",
            TrainPrecision::BFloat16 => "bfloat16",
        })
    }
}

impl std::str::FromStr for TrainPrecision {
    type Err = TrainConfigError;
    fn from_str(text: &str) -> Result<Self, TrainConfigError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(TrainPrecision::Auto),
            "float32" | "f32" | "fp32" => Ok(TrainPrecision::Float32),
            "bfloat16" | "bf16" => Ok(TrainPrecision::BFloat16),
            _ => Err(TrainConfigError::Invalid(format!(
                "unknown precision {text:?} (auto | float32 | bfloat16)"
            ))),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TrainConfigError {
    #[error("train: {0}")]
    Invalid(String),
    #[error("train.window: {0}")]
    Window(#[from] crate::window_size::WindowConfigError),
    #[error("train.schedule: {0}")]
    Schedule(#[from] crate::lr_schedule::LrScheduleError),
    #[error("train.optimizer: {0}")]
    Optimizer(#[from] crate::optimizer::OptimizerError),
}

impl TrainConfig {
    /// Checks every value, so that a bad file fails at start-up with a message naming the key.
    pub fn validate(&self) -> Result<(), TrainConfigError> {
        let bad = |what: &str| Err(TrainConfigError::Invalid(what.to_string()));
        if !(1..=MAX_BATCH_SIZE).contains(&self.batch_size) {
            return bad(&format!("batch_size must be in 1..={MAX_BATCH_SIZE}"));
        }
        if !(self.max_grad_norm >= 0.0 && self.max_grad_norm.is_finite()) {
            return bad("max_grad_norm must be non-negative and finite");
        }
        if !(self.samples_per_new_row >= 0.0 && self.samples_per_new_row.is_finite()) {
            return bad("samples_per_new_row must be non-negative and finite");
        }
        if !(0.0..=1.0).contains(&self.search_value_weight) {
            return bad("search_value_weight must be in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.material_outlook_weight) {
            return bad("material_outlook_weight must be in [0, 1]");
        }
        if !(1..=MAX_OUTLOOK_PLIES).contains(&self.material_outlook_plies) {
            return bad(&format!(
                "material_outlook_plies must be in 1..={MAX_OUTLOOK_PLIES}"
            ));
        }
        if !(0.0..=1.0).contains(&self.mirror_probability) {
            return bad("mirror_probability must be in [0, 1]");
        }
        if !(1..=MAX_PREFETCH_BATCHES).contains(&self.prefetch_batches) {
            return bad(&format!(
                "prefetch_batches must be in 1..={MAX_PREFETCH_BATCHES} (finished batches held in memory)"
            ));
        }
        if self.threads > koshogi_nn::MAX_INTRA_OP_THREADS as usize {
            return bad(&format!(
                "threads must be at most {} (0 = automatic)",
                koshogi_nn::MAX_INTRA_OP_THREADS
            ));
        }
        if !(self.poll_seconds > 0.0 && self.poll_seconds.is_finite()) {
            return bad("poll_seconds must be positive");
        }
        if self.log_every_steps == 0 {
            return bad("log_every_steps must be at least 1");
        }
        if !(0.0..=1.0).contains(&self.material_utility_final) {
            return bad("material_utility_final must lie in [0, 1]");
        }
        if !(0.0..=crate::weight_average::MAX_EMA_DECAY).contains(&self.ema_decay) {
            return bad(&format!(
                "ema_decay must be in [0, {}] (0 = off)",
                crate::weight_average::MAX_EMA_DECAY
            ));
        }
        let weights = [
            self.loss.policy,
            self.loss.value,
            self.loss.moves_left,
            self.loss.material,
        ];
        if weights.iter().any(|w| !(*w >= 0.0 && w.is_finite())) {
            return bad("loss weights must be non-negative and finite");
        }
        if let Err(reason) = self.checkpoint.validate() {
            return bad(&format!("checkpoint.{reason}"));
        }
        self.window.validate()?;
        self.optimizer.validate()?;
        self.lr_schedule()?;
        Ok(())
    }

    /// The intra-op thread count of a training step on `device` (`threads`, resolved).
    ///
    /// Why 1 for bfloat16 on the CPU: oneDNN's AMX weight-gradient kernel (`brgconv_bwd_w`)
    /// synchronises its threads with spin barriers, and with more runnable threads than cores
    /// (always so under `koshogi run`, self-play is running) one call took 3.5 s instead of
    /// 50 ms; measured on the 2-core AMX Xeon under load, a bfloat16 step of batch 256 ran at
    /// 22–25 samples/s on 2 threads and 245–295 on 1 (float32: 81–90 on either).
    pub fn intra_op_threads(&self, device: Device) -> i32 {
        // Read first: the default must be known before any trainer sets a count.
        let default = default_intra_op_threads();
        match self.threads {
            0 if self.precision.resolve(device).is_some() && device == Device::Cpu => 1,
            0 => default,
            n => koshogi_nn::threads::intra_op_thread_count(n),
        }
    }

    /// Whether the schedule's length is the step target (a cosine without
    /// `schedule.total_steps`): then a resume with another `--steps` moves the learning rate of
    /// the steps already taken, which the trainer warns about.
    pub fn schedule_follows_step_target(&self) -> bool {
        self.schedule.decay == crate::lr_schedule::LrDecay::Cosine && self.schedule.total_steps == 0
    }

    /// The learning-rate schedule this configuration describes.
    pub fn lr_schedule(&self) -> Result<LrSchedule, crate::lr_schedule::LrScheduleError> {
        let total = (self.steps > 0).then_some(self.steps);
        LrSchedule::new(self.optimizer.lr, &self.schedule, total)
    }
}

/// libtorch's intra-op thread count before any trainer changed it (read once per process).
fn default_intra_op_threads() -> i32 {
    static DEFAULT: std::sync::OnceLock<i32> = std::sync::OnceLock::new();
    *DEFAULT.get_or_init(tch::get_num_threads)
}

/// A short fingerprint of a run configuration (the first 16 hex digits of the SHA-256 of its
/// JSON form), stored in checkpoints so that resuming under a changed configuration is noticed.
pub fn config_hash<T: Serialize>(config: &T) -> String {
    let json = serde_json::to_vec(config).expect("configurations serialise to JSON");
    let mut hash = koshogi_files::digest::sha256_hex(&json);
    hash.truncate(16);
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_section_is_the_default() {
        let config: TrainConfig = toml::from_str("").unwrap();
        assert_eq!(config, TrainConfig::default());
        config.validate().unwrap();
    }

    #[test]
    fn nested_tables_override_single_keys() {
        let text = r#"
            batch_size = 64
            [optimizer]
            kind = "adamw"
            lr = 0.001
            [schedule]
            decay = "cosine"
            [window]
            min_rows = 5000
        "#;
        let config: TrainConfig = toml::from_str(text).unwrap();
        assert_eq!(config.batch_size, 64);
        assert_eq!(
            config.optimizer.kind,
            crate::optimizer::OptimizerKind::Adamw
        );
        assert_eq!(config.optimizer.beta2, 0.999);
        assert_eq!(config.window.min_rows, 5000);
        assert_eq!(config.window.alpha, WindowConfig::default().alpha);
        // A cosine schedule needs a length.
        assert!(config.validate().is_err());
        let with_steps = TrainConfig {
            steps: 1000,
            ..config
        };
        with_steps.validate().unwrap();
    }

    #[test]
    fn the_hash_changes_with_any_value() {
        let base = TrainConfig::default();
        let other = TrainConfig {
            batch_size: 255,
            ..TrainConfig::default()
        };
        assert_eq!(config_hash(&base), config_hash(&TrainConfig::default()));
        assert_ne!(config_hash(&base), config_hash(&other));
        assert_eq!(config_hash(&base).len(), 16);
    }

    #[test]
    fn unknown_keys_are_errors() {
        let err = toml::from_str::<TrainConfig>("batch_sise = 3").unwrap_err();
        assert!(err.to_string().contains("batch_sise"), "{err}");
        assert!(toml::from_str::<TrainConfig>("[optimizer]\nmomentun = 0.9").is_err());
    }

    #[test]
    fn precision_reads_its_names_and_rejects_others() {
        for (text, expected) in [
            ("auto", TrainPrecision::Auto),
            ("float32", TrainPrecision::Float32),
            ("f32", TrainPrecision::Float32),
            ("bfloat16", TrainPrecision::BFloat16),
            ("bf16", TrainPrecision::BFloat16),
        ] {
            let config: TrainConfig = toml::from_str(&format!("precision = {text:?}")).unwrap();
            assert_eq!(config.precision, expected);
            assert_eq!(text.parse::<TrainPrecision>().unwrap(), expected);
            assert_eq!(
                expected.to_string().parse::<TrainPrecision>().unwrap(),
                expected
            );
        }
        for bad in ["float16", "half", "bfloat"] {
            let err = toml::from_str::<TrainConfig>(&format!("precision = {bad:?}")).unwrap_err();
            assert!(err.to_string().contains("bfloat16"), "{err}");
            assert!(bad.parse::<TrainPrecision>().is_err());
        }
    }

    #[test]
    fn precision_resolves_to_a_bfloat16_copy_only_where_asked_or_native() {
        assert_eq!(TrainPrecision::Float32.resolve(Device::Cpu), None);
        let bf16 = TrainPrecision::BFloat16.resolve(Device::Cpu).unwrap();
        assert_eq!(bf16.kind, Kind::BFloat16);
        assert!(bf16.channels_last);
        assert_eq!(
            TrainPrecision::Auto.resolve(Device::Cpu).is_some(),
            cpu_has_amx_bf16()
        );
        assert_eq!(TrainPrecision::Auto.resolve(Device::Cuda(0)), None);
        assert!(
            !TrainPrecision::BFloat16
                .resolve(Device::Cuda(0))
                .unwrap()
                .channels_last
        );
    }

    #[test]
    fn a_bfloat16_cpu_step_gets_one_thread_unless_told_otherwise() {
        let bfloat16 = TrainConfig {
            precision: TrainPrecision::BFloat16,
            ..Default::default()
        };
        assert_eq!(bfloat16.intra_op_threads(Device::Cpu), 1);
        let told = TrainConfig {
            threads: 3,
            ..bfloat16.clone()
        };
        assert_eq!(told.intra_op_threads(Device::Cpu), 3);
        let float32 = TrainConfig {
            precision: TrainPrecision::Float32,
            ..Default::default()
        };
        assert!(float32.intra_op_threads(Device::Cpu) >= 1);
    }

    #[test]
    fn invalid_values_name_the_key() {
        let config = TrainConfig {
            mirror_probability: 1.5,
            ..Default::default()
        };
        assert!(config
            .validate()
            .unwrap_err()
            .to_string()
            .contains("mirror_probability"));
    }

    #[test]
    fn a_cosine_without_its_own_length_follows_the_step_target() {
        use crate::lr_schedule::LrDecay;
        let mut config = TrainConfig {
            steps: 1000,
            ..Default::default()
        };
        config.schedule.decay = LrDecay::Cosine;
        assert!(config.schedule_follows_step_target());
        let at_1000 = |c: &TrainConfig| c.lr_schedule().unwrap().lr_at(1000);
        let before = at_1000(&config);
        config.steps = 2000;
        assert_ne!(
            at_1000(&config),
            before,
            "the rate at a step taken moves with --steps"
        );
        config.schedule.total_steps = 1000;
        assert!(!config.schedule_follows_step_target());
        assert_eq!(at_1000(&config), before);
        config.schedule.decay = LrDecay::Constant;
        config.schedule.total_steps = 0;
        assert!(!config.schedule_follows_step_target());
    }

    #[test]
    fn sizes_that_would_be_allocated_or_passed_to_libtorch_are_bounded() {
        type Edit = fn(&mut TrainConfig);
        let cases: [(Edit, &str); 5] = [
            (|c| c.batch_size = MAX_BATCH_SIZE + 1, "batch_size"),
            (|c| c.prefetch_batches = 0, "prefetch_batches"),
            (|c| c.prefetch_batches = usize::MAX, "prefetch_batches"),
            (|c| c.threads = 4_294_967_296, "threads"),
            (|c| c.threads = 1025, "threads"),
        ];
        for (edit, key) in cases {
            let mut config = TrainConfig::default();
            edit(&mut config);
            let error = config.validate().unwrap_err().to_string();
            assert!(error.contains(key), "{error}");
        }
        let mut config = TrainConfig {
            batch_size: MAX_BATCH_SIZE,
            prefetch_batches: MAX_PREFETCH_BATCHES,
            threads: 1024,
            ..Default::default()
        };
        assert!(config.validate().is_ok());
        // Even unvalidated, a count out of libtorch's range never reaches it.
        config.threads = 4_294_967_296;
        assert_eq!(config.intra_op_threads(Device::Cpu), 1024);
    }
}
