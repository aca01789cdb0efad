//! `koshogi run`: the main job. Self-play and training together in one process on one machine.
//!
//! Self-play runs on its own threads and writes shards; the trainer (this thread) consumes them
//! as they appear, waiting when it has used its share of the data (`train.samples_per_new_row`),
//! and writes checkpoints that self-play picks up between games. The run ends when the trainer
//! reaches `train.steps` (or `--steps`), or on Ctrl-C: the trainer finishes its step and writes a
//! checkpoint, self-play finishes the current moves and writes its shards. Running the command
//! again on the same run directory resumes from the newest checkpoint and keeps all data.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use koshogi_arena::gate::spawn_gatekeeper;
use koshogi_run_store::layout::RunLayout;
use koshogi_selfplay::SelfplayStats;
use koshogi_train::Trainer;

use crate::interrupt::{stop_after, stop_flag_on_interrupt};
use crate::run_config::{prepare_run_dir, RunConfig};
use crate::selfplay_role::{play, worker_context, Reporter};
use crate::train_display::{print_summary, progress_bar};

#[derive(Args)]
pub struct RunArgs {
    /// Run configuration (TOML), e.g. configs/quick.toml; default: the run directory's copy.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Run directory; default: run.dir of the configuration.
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Stop when the trainer reaches this many steps in total (overrides train.steps).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Stop after this many minutes of wall-clock time, as Ctrl-C would (the trainer writes a
    /// checkpoint at its last step; self-play keeps only finished games).
    #[arg(long, value_name = "MINUTES", value_parser = positive_minutes)]
    pub minutes: Option<f64>,
}

fn positive_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(m) if m > 0.0 && m.is_finite() => Ok(m),
        _ => Err(format!("`{text}` is not a positive number of minutes")),
    }
}

pub fn run(args: RunArgs) -> Result<()> {
    if let Some(run) = &args.run {
        if let koshogi_run_store::RunTarget::Remote(remote) =
            koshogi_run_store::RunTarget::parse(run)?
        {
            return Err(anyhow!(
                "`koshogi run` is the one-machine job on a local directory; for {} start the \
                 roles (`koshogi train --run URL --follow --resume`, `koshogi selfplay --run URL \
                 --worker-id ID`), or run locally and `koshogi store push DIR URL` \
                 (docs/distributed.md)",
                remote.url()
            ));
        }
    }
    let (mut config, text) = match (&args.config, &args.run) {
        (Some(path), _) => RunConfig::load(path)?,
        (None, Some(dir)) => {
            let (config, text) = RunConfig::resolve(None, dir)?;
            if text.is_empty() {
                return Err(anyhow!(
                    "{} has no config.toml: name a configuration with --config (e.g. configs/quick.toml)",
                    dir.display()
                ));
            }
            (config, text)
        }
        (None, None) => {
            return Err(anyhow!(
                "name a configuration with --config (e.g. configs/quick.toml)"
            ))
        }
    };
    let run_dir = args.run.clone().unwrap_or_else(|| config.run.dir.clone());
    if let Some(steps) = args.steps {
        config.train.steps = steps;
    }
    match (config.train.steps, args.minutes) {
        (0, None) => tracing::info!("train.steps = 0: running until Ctrl-C"),
        (0, Some(m)) => tracing::info!("train.steps = 0: running for {m} minutes (or Ctrl-C)"),
        _ => {}
    }
    prepare_run_dir(&run_dir, &text)?;
    println!("run directory: {}", run_dir.display());

    let stop = stop_flag_on_interrupt("the current training step and self-play moves");
    if let Some(minutes) = args.minutes {
        stop_after(minutes, stop.clone())?;
    }
    let stats = Arc::new(SelfplayStats::default());
    let ctx = worker_context(&config, &run_dir, None, stop.clone(), stats.clone())?;
    let reporter = Reporter::start(&run_dir, stats.clone(), None);

    let selfplay = {
        let config = config.clone();
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("selfplay-pool".into())
            .spawn(move || {
                let result = play(&config, &ctx, config.gate.enabled);
                // A failed self-play must not leave the trainer waiting for data forever.
                stop.store(true, Ordering::SeqCst);
                result
            })
            .context("starting self-play")?
    };

    let mut gate = None;
    let training = train(&config, &run_dir, &stop, &mut gate);
    stop.store(true, Ordering::SeqCst);
    if let Some(gate) = gate {
        gate.join()
            .map_err(|_| anyhow!("the gate thread panicked"))?;
    }
    let played = selfplay.join().map_err(|_| anyhow!("self-play panicked"))?;
    reporter.finish();
    println!("{}", stats.summary());
    training?;
    played.context("self-play")?;
    Ok(())
}

fn train(
    config: &RunConfig,
    run_dir: &std::path::Path,
    stop: &Arc<std::sync::atomic::AtomicBool>,
    gate: &mut Option<std::thread::JoinHandle<()>>,
) -> Result<()> {
    let mut trainer = Trainer::open(config.trainer_setup(run_dir, true, true)?)?;
    // After `open`, so that a new run's step-0 checkpoint (the first accepted one) exists.
    if config.gate.enabled {
        let checkpoints = RunLayout::new(run_dir).checkpoints_dir();
        let thread = spawn_gatekeeper(
            config.gate.clone(),
            config.inference,
            checkpoints,
            stop.clone(),
        )
        .context("starting the gate thread")?;
        *gate = Some(thread);
    }
    let bar = progress_bar(trainer.step(), trainer.target_steps());
    let summary = trainer.run(stop, Some(&bar))?;
    bar.finish_and_clear();
    print_summary(&summary);
    Ok(())
}
