//! The training loop.
//!
//! Batches come from the [`Prefetcher`] (drawn and encoded on another thread), losses from
//! koshogi-nn's `compute_losses`, the update from our own [`Optimizer`] (whose state is saved,
//! see [`crate::optimizer`]), the learning rate from the [`LrSchedule`]. Scalars go to
//! TensorBoard under `<run>/tb`, checkpoints to `<run>/checkpoints` every
//! `train.checkpoint.every_steps` steps and when training ends. A shared stop flag (set by the
//! binary on Ctrl-C) is checked between steps, so a step in progress and a checkpoint being
//! written always finish. How far it got is reported to a [`TrainProgress`] (the binary draws
//! it as a progress bar; the library draws nothing).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use koshogi_metrics::EventWriter;
use koshogi_nn::training_step::compute_losses;
use koshogi_nn::{Model, ModelConfig, ResolvedRuntime, TrainingBatch, WorkingCopy};
use koshogi_replay::{LocalShardDir, ShardSource};
use koshogi_run_store::layout::RunLayout;
use tch::Device;

use crate::checkpoint_manager::{CheckpointEntry, CheckpointError, CheckpointManager};
use crate::config::{TrainConfig, TrainConfigError};
use crate::lr_schedule::LrSchedule;
use crate::optimizer::{Optimizer, OptimizerError};
use crate::prefetch::{PrefetchOptions, Prefetched, Prefetcher};
use crate::replay_window::KnownShard;
use crate::sampler::{Sampler, SamplerConfig, SamplerCursor, SamplerError, Starved};
use crate::trainer_state::{
    unix_seconds, TrainerState, TrainerStateError, MODEL_CARD_FILE, OPTIMIZER_FILE,
    RAW_MODEL_CARD_FILE, TRAINER_STATE_FILE, TRAINER_STATE_VERSION,
};
use crate::utility_fade::material_utility_at;
use crate::weight_average::WeightAverage;

/// Everything the trainer is told by its caller (`koshogi train`, `koshogi run`, tests).
#[derive(Debug, Clone)]
pub struct TrainerSetup {
    /// The run directory: checkpoints in `checkpoints/`, events in `tb/`, and the shards in
    /// `shards/` unless [`TrainerSetup::shards`] says otherwise.
    pub run_dir: PathBuf,
    /// Where the replay shards are read from; `None` (what a purely local run passes) is a
    /// [`LocalShardDir`] over `<run_dir>/shards`. Runs whose self-play writes to object storage
    /// pass that store's source here; the checkpoints stay in `run_dir` either way.
    pub shards: Option<Arc<dyn ShardSource>>,
    pub model: ModelConfig,
    pub train: TrainConfig,
    /// The serialised `RulesOptions` of the run (recorded in every model card).
    pub rules: serde_json::Value,
    /// The self-play ply limit (an input feature depends on it).
    pub max_plies: Option<u32>,
    /// Hash of the whole run configuration, stored in checkpoints; a resume under a different
    /// configuration is reported.
    pub config_hash: String,
    /// Continue from the newest checkpoint if there is one. Without it, a run directory that
    /// already has checkpoints is refused rather than overwritten.
    pub resume: bool,
    /// Wait for self-play to produce more data when starved (instead of stopping).
    pub follow: bool,
    /// Write TensorBoard events.
    pub tensorboard: bool,
}

impl TrainerSetup {
    /// The source the trainer reads shards from ([`TrainerSetup::shards`] or its default).
    pub fn shard_source(&self) -> Arc<dyn ShardSource> {
        match &self.shards {
            Some(source) => Arc::clone(source),
            None => Arc::new(LocalShardDir::for_run(&self.run_dir)),
        }
    }

    pub fn checkpoints_dir(&self) -> PathBuf {
        RunLayout::new(&self.run_dir).checkpoints_dir()
    }

    pub fn tensorboard_dir(&self) -> PathBuf {
        RunLayout::new(&self.run_dir).tensorboard_dir()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Config(#[from] TrainConfigError),
    #[error("network: {0}")]
    Nn(#[from] koshogi_nn::NnError),
    #[error("optimiser: {0}")]
    Optimizer(#[from] OptimizerError),
    #[error("checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    #[error("trainer state: {0}")]
    State(#[from] TrainerStateError),
    #[error("sampler: {0}")]
    Sampler(#[from] SamplerError),
    #[error("tensorboard: {0}")]
    Metrics(#[from] koshogi_metrics::MetricsError),
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error("{0} already holds checkpoints: pass --resume to continue that run, or use a new run directory")]
    ExistingRun(PathBuf),
    #[error("starting the prefetch thread: {0}")]
    Thread(std::io::Error),
    #[error("the prefetch thread ended unexpectedly")]
    PrefetchEnded,
    #[error("received batch {got} while expecting batch {expected}")]
    BatchOutOfOrder { got: u64, expected: u64 },
}

/// Why [`Trainer::run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The configured number of steps was reached.
    ReachedSteps,
    /// The stop flag was set.
    Requested,
    /// Not following the shard source, and no further batch could be drawn.
    OutOfData(Starved),
}

/// The outcome of one optimiser step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepStats {
    /// (total, policy, value, moves left, material), as koshogi-nn's `Losses::values`.
    pub losses: [f64; 5],
    /// Mean entropy of the predicted policy over legal moves (nats).
    pub policy_entropy: f64,
    /// Fraction of samples whose predicted most likely outcome matches the target's.
    pub value_accuracy: f64,
    pub grad_norm: f64,
    pub lr: f64,
    pub clipped: bool,
    /// The gradient was not finite and the update was skipped.
    pub skipped: bool,
}

/// Follows [`Trainer::run`] step by step (the binary's progress bar). When one is given the
/// trainer leaves the per-interval "training" log line to it.
pub trait TrainProgress {
    /// A step was trained: `step` is the trainer's step count after it, `stats` its figures,
    /// `total_rows` the positions in the replay window it was drawn from.
    fn trained(&self, step: u64, stats: &StepStats, total_rows: u64);
    /// Training waits for self-play data (called when the reason changes).
    fn waiting(&self, starved: &Starved);
}

/// What a call to [`Trainer::run`] did.
#[derive(Debug, Clone)]
pub struct TrainSummary {
    pub start_step: u64,
    pub end_step: u64,
    pub samples: u64,
    pub elapsed: Duration,
    pub reason: StopReason,
    pub last_checkpoint: Option<CheckpointEntry>,
    pub last_step: Option<StepStats>,
}

impl TrainSummary {
    pub fn samples_per_second(&self) -> f64 {
        self.samples as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A network being trained, with its optimiser and checkpoint directory.
pub struct Trainer {
    setup: TrainerSetup,
    device: Device,
    /// The float32 master: what the optimiser updates and checkpoints store.
    model: Model,
    /// The bfloat16 copy forward and backward passes run on (`train.precision`), if any.
    working: Option<WorkingCopy>,
    /// libtorch intra-op threads of a step (set again before each step: another trainer or
    /// network in the process may have changed the count).
    threads: i32,
    optimizer: Optimizer,
    /// The moving average checkpoints publish (`train.ema_decay > 0`).
    average: Option<WeightAverage>,
    schedule: LrSchedule,
    checkpoints: CheckpointManager,
    step: u64,
    samples: u64,
    /// Batches trained on, and the shard numbering of the last one: the resume cursor.
    batches: u64,
    known_shards: Arc<Vec<KnownShard>>,
    last_lr: f64,
    last_checkpoint: Option<CheckpointEntry>,
    /// Seconds trained before this process opened the run (from the resumed checkpoint) and
    /// when it opened it: together the run's training clock ([`Trainer::training_seconds`]).
    trained_before: f64,
    opened: Instant,
    /// The training clock after the last step (at open: the resumed checkpoint's), so that a
    /// step passing one of `train.checkpoint.keep_hours` is noticed, even the first after a
    /// resume.
    clock_at_last_step: f64,
}

impl Trainer {
    /// Builds a fresh network (and writes its step-0 checkpoint, so self-play and the arena
    /// have the same initial network) or resumes from the newest checkpoint.
    pub fn open(setup: TrainerSetup) -> Result<Self, TrainError> {
        setup.train.validate()?;
        setup.model.validate()?;
        let device = setup.train.device.resolve()?;
        let threads = koshogi_nn::set_intra_op_threads(setup.train.intra_op_threads(device));
        let schedule = setup.train.lr_schedule().map_err(TrainConfigError::from)?;
        let checkpoints =
            CheckpointManager::open(setup.checkpoints_dir(), &setup.train.checkpoint)?;
        let latest = checkpoints.latest()?;
        if latest.is_some() && !setup.resume {
            return Err(TrainError::ExistingRun(setup.run_dir.clone()));
        }
        let mut trainer = match latest {
            Some(entry) => Self::resume_from(setup, device, threads, schedule, checkpoints, entry)?,
            None => {
                tch::manual_seed(setup.train.seed as i64);
                let model = Model::new(&setup.model, device)?;
                let optimizer = Optimizer::new(&model.vs, &setup.train.optimizer)?;
                let working = working_copy(&setup.train, device, &model)?;
                let decay = setup.train.ema_decay;
                let average = if decay > 0.0 {
                    Some(WeightAverage::start(decay, &model)?)
                } else {
                    None
                };
                let mut trainer = Self {
                    setup,
                    device,
                    model,
                    working,
                    threads,
                    optimizer,
                    average,
                    schedule,
                    checkpoints,
                    step: 0,
                    samples: 0,
                    batches: 0,
                    known_shards: Arc::new(Vec::new()),
                    last_lr: 0.0,
                    last_checkpoint: None,
                    trained_before: 0.0,
                    opened: Instant::now(),
                    clock_at_last_step: 0.0,
                };
                trainer.save_checkpoint()?;
                tracing::info!(
                    parameters = trainer.model.parameter_count(),
                    device = ?device,
                    step_runs_in = %trainer.input_runtime(),
                    threads = trainer.threads,
                    "started a new run in {}",
                    trainer.setup.run_dir.display()
                );
                trainer
            }
        };
        trainer.last_lr = trainer.schedule.lr_at(trainer.step);
        Ok(trainer)
    }

    fn resume_from(
        mut setup: TrainerSetup,
        device: Device,
        threads: i32,
        schedule: LrSchedule,
        checkpoints: CheckpointManager,
        entry: CheckpointEntry,
    ) -> Result<Self, TrainError> {
        let state = TrainerState::read(&entry.path.join(TRAINER_STATE_FILE))?;
        let (published, _card) = koshogi_nn::checkpoint::load_expecting(
            &entry.path.join(MODEL_CARD_FILE),
            device,
            &setup.model,
        )?;
        // With a weight average the published model is the average and the trained weights
        // are stored beside it.
        let raw_card = entry.path.join(RAW_MODEL_CARD_FILE);
        let (model, saved_average) = if raw_card.exists() {
            let (raw, _) = koshogi_nn::checkpoint::load_expecting(&raw_card, device, &setup.model)?;
            (raw, Some(published))
        } else {
            (published, None)
        };
        let decay = setup.train.ema_decay;
        let average = match (decay > 0.0, saved_average) {
            (false, None) => None,
            (false, Some(_)) => {
                tracing::warn!(
                    "train.ema_decay is 0: the weight average of {} is dropped, checkpoints \
                     publish the trained weights from now on",
                    entry.path.display()
                );
                None
            }
            (true, Some(average)) => Some(WeightAverage::resume(decay, average, state.ema_updates)),
            (true, None) => {
                tracing::warn!(
                    "{} holds no weight average: it starts at the trained weights",
                    entry.path.display()
                );
                Some(WeightAverage::start(decay, &model)?)
            }
        };
        let mut optimizer = Optimizer::new(&model.vs, &setup.train.optimizer)?;
        optimizer.load(&entry.path.join(OPTIMIZER_FILE))?;
        if state.config_hash != setup.config_hash {
            tracing::warn!(
                "resuming {} under a different run configuration than it was trained with",
                entry.path.display()
            );
        }
        if state.sampler.seed != setup.train.seed {
            tracing::warn!(
                "train.seed changed from {} to {}: the resumed run keeps the original seed",
                state.sampler.seed,
                setup.train.seed
            );
            setup.train.seed = state.sampler.seed;
        }
        if setup.train.schedule_follows_step_target() {
            tracing::warn!(
                "the cosine learning-rate schedule is as long as train.steps ({}): resuming with \
                 another step target moves the rate of the steps already taken; set \
                 train.schedule.total_steps to fix its length",
                setup.train.steps
            );
        }
        let working = working_copy(&setup.train, device, &model)?;
        tracing::info!(step = state.step, "resuming from {}", entry.path.display());
        Ok(Self {
            setup,
            device,
            model,
            working,
            threads,
            optimizer,
            average,
            schedule,
            checkpoints,
            step: state.step,
            samples: state.samples,
            batches: state.sampler.batches,
            known_shards: Arc::new(state.sampler.shards),
            last_lr: state.last_lr,
            last_checkpoint: Some(entry),
            trained_before: state.training_seconds,
            opened: Instant::now(),
            clock_at_last_step: state.training_seconds,
        })
    }

    pub fn step(&self) -> u64 {
        self.step
    }

    /// Wall-clock seconds this run has trained, summed over its resumes: the time since this
    /// process opened it plus what the resumed checkpoint had recorded. Self-play runs beside
    /// the trainer, so in `koshogi run` these are seconds of the whole loop.
    pub fn training_seconds(&self) -> f64 {
        self.trained_before + self.opened.elapsed().as_secs_f64()
    }

    /// The network being trained (the optimiser's weights).
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The network checkpoints publish for play: the weight average when `train.ema_decay > 0`,
    /// else the trained network itself.
    pub fn published_model(&self) -> &Model {
        match &self.average {
            Some(average) => average.model(),
            None => &self.model,
        }
    }

    pub fn device(&self) -> Device {
        self.device
    }

    /// libtorch intra-op threads of a training step.
    pub fn threads(&self) -> i32 {
        self.threads
    }

    /// Device, kind and layout the training step runs in, which batches should be built for:
    /// the working copy's, or float32 on the master.
    pub fn input_runtime(&self) -> ResolvedRuntime {
        match &self.working {
            Some(working) => working.runtime(),
            None => ResolvedRuntime::float32(self.device),
        }
    }

    pub fn setup(&self) -> &TrainerSetup {
        &self.setup
    }

    /// The step at which [`Trainer::run`] stops by itself (`None` = only on request).
    pub fn target_steps(&self) -> Option<u64> {
        (self.setup.train.steps > 0).then_some(self.setup.train.steps)
    }

    /// The sampler state matching the batches trained so far.
    pub fn cursor(&self) -> SamplerCursor {
        SamplerCursor {
            seed: self.setup.train.seed,
            batches: self.batches,
            shards: self.known_shards.as_ref().clone(),
        }
    }

    /// A sampler over the run's shards that continues where training stands.
    pub fn sampler(&self) -> Sampler {
        let config =
            SamplerConfig::from_train(&self.setup.train, &self.setup.model, self.setup.max_plies);
        Sampler::new(self.setup.shard_source(), config, self.cursor())
    }

    /// One optimiser step on `batch` (best built for [`Trainer::input_runtime`]; other
    /// batches are converted).
    pub fn train_step(&mut self, batch: &TrainingBatch) -> Result<StepStats, TrainError> {
        if tch::get_num_threads() != self.threads {
            koshogi_nn::set_intra_op_threads(self.threads);
        }
        let lr = self.schedule.lr_at(self.step);
        let max_grad_norm = self.setup.train.max_grad_norm;
        let (losses, report) = match &mut self.working {
            None => {
                let losses = compute_losses(&self.model.network, batch, &self.setup.train.loss)?;
                self.optimizer.zero_grad();
                losses.total.f_backward()?;
                (losses, self.optimizer.step(lr, max_grad_norm)?)
            }
            Some(working) => {
                working.sync_from(&self.model)?;
                working.zero_grad();
                let losses = compute_losses(working.network(), batch, &self.setup.train.loss)?;
                losses.total.f_backward()?;
                let report = self
                    .optimizer
                    .step_with_gradients(lr, max_grad_norm, |name, _| working.gradient(name))?;
                (losses, report)
            }
        };
        if let Some(average) = &mut self.average {
            average.update(&self.model)?;
        }
        self.step += 1;
        self.samples += batch.len() as u64;
        self.last_lr = lr;
        let (values, policy_entropy, value_accuracy) = tch::no_grad(|| {
            (
                losses.values(),
                losses.policy_entropy.double_value(&[]),
                losses.value_accuracy.double_value(&[]),
            )
        });
        Ok(StepStats {
            losses: values,
            policy_entropy,
            value_accuracy,
            grad_norm: report.grad_norm,
            lr,
            clipped: report.clipped,
            skipped: report.skipped,
        })
    }

    /// Writes a checkpoint of the current state (atomically) and prunes old ones.
    pub fn save_checkpoint(&mut self) -> Result<CheckpointEntry, TrainError> {
        let state = TrainerState {
            format_version: TRAINER_STATE_VERSION,
            step: self.step,
            samples: self.samples,
            sampler: self.cursor(),
            last_lr: self.last_lr,
            config_hash: self.setup.config_hash.clone(),
            ema_updates: self.average.as_ref().map_or(0, WeightAverage::updates),
            created_unix_seconds: unix_seconds(),
            training_seconds: self.training_seconds(),
        };
        let training_seconds = Some(state.training_seconds);
        // The checkpoint carries the material utility its step calls for (fading or not).
        let utility = material_utility_at(
            self.setup.model.material_utility,
            self.setup.train.material_utility_final,
            self.setup.train.material_utility_fade_steps,
            self.step,
        );
        // The trained model keeps the configured reading (its working copy is checked against
        // it); it carries the faded one only while it is written as the published model.
        match &mut self.average {
            Some(average) => average.set_material_utility(utility),
            None => self.model.set_material_utility(utility),
        }
        let published = self.published_model();
        let raw = self.average.is_some().then_some(&self.model);
        let optimizer = &self.optimizer;
        let rules = self.setup.rules.clone();
        let step = self.step;
        let entry = self
            .checkpoints
            .write(step, |dir: &Path| -> Result<(), String> {
                if let Some(raw) = raw {
                    koshogi_nn::checkpoint::save_trained(
                        raw,
                        &dir.join(RAW_MODEL_CARD_FILE),
                        step,
                        rules.clone(),
                        training_seconds,
                    )
                    .map_err(|e| e.to_string())?;
                }
                koshogi_nn::checkpoint::save_trained(
                    published,
                    &dir.join(MODEL_CARD_FILE),
                    step,
                    rules,
                    training_seconds,
                )
                .map_err(|e| e.to_string())?;
                optimizer
                    .save(&dir.join(OPTIMIZER_FILE))
                    .map_err(|e| e.to_string())?;
                std::fs::write(dir.join(TRAINER_STATE_FILE), state.to_json())
                    .map_err(|e| e.to_string())
            });
        self.model
            .set_material_utility(self.setup.model.material_utility);
        let entry = entry?;
        tracing::info!(step, "checkpoint {}", entry.path.display());
        self.last_checkpoint = Some(entry.clone());
        Ok(entry)
    }

    /// Trains until the target step, the stop flag, or (when not following) the end of the
    /// usable data; writes a final checkpoint if anything was trained since the last one.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        progress: Option<&dyn TrainProgress>,
    ) -> Result<TrainSummary, TrainError> {
        let started = Instant::now();
        let start_step = self.step;
        let start_samples = self.samples;
        let mut last_step = None;
        let mut sampler = self.sampler();
        let refresh = sampler.refresh()?;
        tracing::info!(
            shards = sampler.window().known().len(),
            new_shards = refresh.new_shards,
            rows = sampler.window().total_rows(),
            "replay data in {}",
            sampler.window().source().location()
        );
        let prefetcher = Prefetcher::spawn(
            sampler,
            PrefetchOptions {
                capacity: self.setup.train.prefetch_batches,
                input: self.input_runtime(),
                follow: self.setup.follow,
                poll: Duration::from_secs_f64(self.setup.train.poll_seconds),
            },
        )
        .map_err(TrainError::Thread)?;
        let mut events = if self.setup.tensorboard {
            Some(EventWriter::create(&self.setup.tensorboard_dir())?)
        } else {
            None
        };
        let mut interval = Interval::new();
        let mut waiting: Option<Starved> = None;
        // When this step started waiting for its batch while data was there to draw it from
        // (restarted on every "waiting for self-play" message, so that only input-pipeline
        // starvation counts as batch wait).
        let mut batch_wait_since = Instant::now();
        let reason = loop {
            if stop.load(Ordering::SeqCst) {
                break StopReason::Requested;
            }
            if self.target_steps().is_some_and(|t| self.step >= t) {
                break StopReason::ReachedSteps;
            }
            let wait_started = Instant::now();
            let item = match prefetcher.recv_timeout(Duration::from_millis(200)) {
                Ok(item) => item,
                Err(RecvTimeoutError::Timeout) => {
                    interval.input_wait += wait_started.elapsed();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Err(TrainError::PrefetchEnded),
            };
            interval.input_wait += wait_started.elapsed();
            match item {
                Prefetched::Batch(prepared) => {
                    if prepared.index != self.batches {
                        return Err(TrainError::BatchOutOfOrder {
                            got: prepared.index,
                            expected: self.batches,
                        });
                    }
                    if waiting.take().is_some() {
                        tracing::info!("new replay data: training resumes");
                    }
                    interval.record_batch_wait(batch_wait_since.elapsed());
                    let step_started = Instant::now();
                    let stats = self.train_step(&prepared.batch)?;
                    interval.compute += step_started.elapsed();
                    self.batches = prepared.index + 1;
                    self.known_shards = Arc::clone(&prepared.known_shards);
                    interval.record(&stats, &prepared);
                    last_step = Some(stats);
                    if let Some(progress) = progress {
                        progress.trained(self.step, &stats, prepared.total_rows);
                    }
                    if self.step.checked_rem(self.setup.train.log_every_steps) == Some(0) {
                        let batch_wait_ms = interval.mean_batch_wait_ms();
                        let rate = interval.write(self.step, &self.optimizer, events.as_mut())?;
                        if progress.is_none() {
                            tracing::info!(
                                step = self.step,
                                loss = stats.losses[0],
                                samples_per_second = rate,
                                batch_wait_ms,
                                "training"
                            );
                        }
                    }
                    let clock = self.training_seconds();
                    let keep = &self.setup.train.checkpoint;
                    let hour = keep.keep_hour_passed(self.clock_at_last_step, clock);
                    self.clock_at_last_step = clock;
                    if let Some(hour) = hour {
                        tracing::info!(
                            step = self.step,
                            "the training clock passed {hour} h: this checkpoint is kept"
                        );
                    }
                    if hour.is_some() || self.checkpoints.is_due(self.step) {
                        self.save_checkpoint()?;
                    }
                    batch_wait_since = Instant::now();
                }
                Prefetched::Waiting(starved) => {
                    batch_wait_since = Instant::now();
                    if waiting != Some(starved) {
                        if waiting.is_none() {
                            tracing::info!("waiting for self-play data: {starved}");
                        }
                        if let Some(progress) = progress {
                            progress.waiting(&starved);
                        }
                        waiting = Some(starved);
                    }
                }
                Prefetched::Exhausted(starved) => break StopReason::OutOfData(starved),
                Prefetched::Failed(error) => return Err(error.into()),
            }
        };
        drop(prefetcher);
        if self.last_checkpoint.as_ref().map(|c| c.step) != Some(self.step) {
            self.save_checkpoint()?;
        }
        if let Some(events) = events.as_mut() {
            events.sync()?;
        }
        Ok(TrainSummary {
            start_step,
            end_step: self.step,
            samples: self.samples - start_samples,
            elapsed: started.elapsed(),
            reason,
            last_checkpoint: self.last_checkpoint.clone(),
            last_step,
        })
    }
}

/// The bfloat16 working copy `train.precision` asks for on `device`, if any.
fn working_copy(
    train: &TrainConfig,
    device: Device,
    master: &Model,
) -> Result<Option<WorkingCopy>, TrainError> {
    Ok(match train.precision.resolve(device) {
        Some(runtime) => Some(WorkingCopy::new(master, runtime)?),
        None => None,
    })
}

/// Sums over the steps since the last TensorBoard write.
struct Interval {
    started: Instant,
    steps: u64,
    samples: u64,
    losses: [f64; 5],
    policy_entropy: f64,
    value_accuracy: f64,
    grad_norm: f64,
    clipped: u64,
    skipped: u64,
    mirrored: u64,
    rejected: u64,
    prepare: Duration,
    prepare_cpu: Duration,
    compute: Duration,
    input_wait: Duration,
    /// Time the steps waited for a batch the prefetch thread had not finished yet.
    batch_wait: Duration,
    batch_wait_max: Duration,
    total_rows: u64,
    window_rows: u64,
    lr: f64,
}

impl Interval {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            steps: 0,
            samples: 0,
            losses: [0.0; 5],
            policy_entropy: 0.0,
            value_accuracy: 0.0,
            grad_norm: 0.0,
            clipped: 0,
            skipped: 0,
            mirrored: 0,
            rejected: 0,
            prepare: Duration::ZERO,
            prepare_cpu: Duration::ZERO,
            compute: Duration::ZERO,
            input_wait: Duration::ZERO,
            batch_wait: Duration::ZERO,
            batch_wait_max: Duration::ZERO,
            total_rows: 0,
            window_rows: 0,
            lr: 0.0,
        }
    }

    fn record(&mut self, stats: &StepStats, prepared: &crate::prefetch::PreparedBatch) {
        self.steps += 1;
        self.samples += prepared.batch.len() as u64;
        for (sum, value) in self.losses.iter_mut().zip(stats.losses) {
            *sum += value;
        }
        self.policy_entropy += stats.policy_entropy;
        self.value_accuracy += stats.value_accuracy;
        self.grad_norm += stats.grad_norm;
        self.clipped += u64::from(stats.clipped);
        self.skipped += u64::from(stats.skipped);
        self.mirrored += prepared.mirrored as u64;
        self.rejected += prepared.rejected as u64;
        self.prepare += prepared.prepare_time;
        self.prepare_cpu += prepared.prepare_cpu_time;
        self.total_rows = prepared.total_rows;
        self.window_rows = prepared.window_rows;
        self.lr = stats.lr;
    }

    fn record_batch_wait(&mut self, wait: Duration) {
        self.batch_wait += wait;
        self.batch_wait_max = self.batch_wait_max.max(wait);
    }

    fn mean_batch_wait_ms(&self) -> f64 {
        self.batch_wait.as_secs_f64() * 1e3 / self.steps.max(1) as f64
    }

    /// Writes the averages at `step`, resets, and returns the samples/s of the interval.
    fn write(
        &mut self,
        step: u64,
        optimizer: &Optimizer,
        events: Option<&mut EventWriter>,
    ) -> Result<f64, TrainError> {
        let seconds = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = self.samples as f64 / seconds;
        if let Some(events) = events {
            let n = self.steps.max(1) as f64;
            let samples = self.samples.max(1) as f64;
            let weight_norm = optimizer.decayed_weight_sq_sum()?.sqrt();
            let scalars = [
                ("loss/total", self.losses[0] / n),
                ("loss/policy", self.losses[1] / n),
                ("loss/value", self.losses[2] / n),
                ("loss/moves_left", self.losses[3] / n),
                ("loss/material", self.losses[4] / n),
                ("policy/entropy", self.policy_entropy / n),
                ("value/accuracy", self.value_accuracy / n),
                ("train/learning_rate", self.lr),
                ("train/grad_norm", self.grad_norm / n),
                ("train/clipped_fraction", self.clipped as f64 / n),
                ("train/skipped_steps", self.skipped as f64),
                ("train/samples_per_second", rate),
                (
                    "train/input_wait_fraction",
                    self.input_wait.as_secs_f64() / seconds,
                ),
                (
                    "train/prepare_seconds_per_batch",
                    self.prepare.as_secs_f64() / n,
                ),
                (
                    "train/prepare_cpu_seconds_per_batch",
                    self.prepare_cpu.as_secs_f64() / n,
                ),
                ("train/step_seconds", self.compute.as_secs_f64() / n),
                ("train/batch_wait_ms", self.mean_batch_wait_ms()),
                (
                    "train/batch_wait_max_ms",
                    self.batch_wait_max.as_secs_f64() * 1e3,
                ),
                ("train/weight_norm", weight_norm),
                ("replay/total_positions", self.total_rows as f64),
                ("replay/window_positions", self.window_rows as f64),
                ("replay/mirrored_fraction", self.mirrored as f64 / samples),
                ("replay/rejected_per_batch", self.rejected as f64 / n),
            ];
            events.add_scalars(step as i64, &scalars)?;
        }
        *self = Self::new();
        Ok(rate)
    }
}
