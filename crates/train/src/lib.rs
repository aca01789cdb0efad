//! koshogi-train: turns replay shards into a better network.
//!
//! * [`window_size`] / [`sampler`]: which positions to train on (KataGo-style growing window, uniform
//!   sampling, mirror augmentation, a cap on reuse per new position);
//! * the value target's mix and the material outlook it may mix in are the shards' own
//!   (`koshogi_replay::targets`), shared with the exporter and `koshogi diagnose`;
//! * [`optimizer`] / [`lr_schedule`]: SGD-momentum and AdamW whose state is saved, so resume is
//!   exact (tch's own optimisers cannot save theirs);
//! * [`checkpoint_manager`]: atomic checkpoints and the keep policy;
//! * [`utility_fade`]: the material utility each checkpoint carries when it fades;
//! * [`weight_average`]: the moving average of the weights that checkpoints publish for play;
//! * [`config`]: the `[train]` section of a run configuration;
//! * [`diagnosis`]: what a run's shards teach and what a checkpoint makes of them
//!   (`koshogi diagnose`).

pub mod checkpoint_manager;
pub mod config;
pub mod diagnosis;
pub mod lr_schedule;
pub mod optimizer;
pub mod prefetch;
pub mod replay_window;
pub mod sampler;
pub mod synthetic;
pub mod trainer;
pub mod trainer_state;
pub mod utility_fade;
pub mod weight_average;
pub mod window_size;

pub use checkpoint_manager::{CheckpointConfig, CheckpointEntry, CheckpointManager};
pub use config::{config_hash, MaterialHeadTarget, TrainConfig};
pub use lr_schedule::{LrDecay, LrSchedule, LrScheduleConfig};
pub use optimizer::{Optimizer, OptimizerConfig, OptimizerKind, StepReport};
pub use sampler::{Sampler, SamplerConfig, SamplerCursor};
pub use trainer::{
    StepStats, StopReason, TrainError, TrainProgress, TrainSummary, Trainer, TrainerSetup,
};
pub use window_size::WindowConfig;
