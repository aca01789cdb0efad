//! `koshogi run`: the main job. Self-play and training together in one process on one machine
//! (koshogi-run's [`OneProcessRun`]). The run ends when the trainer reaches `train.steps` (or
//! `--steps`), after `--minutes` of this start, once the run has trained `--hours` in all, or on
//! Ctrl-C. Running the command again on the same run directory resumes from the newest
//! checkpoint and keeps all data.

use anyhow::{anyhow, Result};
use clap::Args;
use koshogi_run::selfplay_role::Reporter;
use koshogi_run::{prepare_run_dir, OneProcessRun};
use koshogi_train::checkpoint_manager::MAX_TRAINING_HOURS;

use crate::interrupt::{stop_after, stop_flag_on_interrupt};
use crate::run_location::RunLocation;
use crate::train_display::{print_summary, progress_bar};

#[derive(Args)]
#[command(mut_arg("config", |arg| arg.help(
    "Run configuration (TOML), e.g. configs/quick.toml; default: the run directory's copy \
     (a run never starts from the built-in defaults)"
)))]
pub struct RunArgs {
    #[command(flatten)]
    pub location: RunLocation,
    /// Stop when the trainer reaches this many steps in total (overrides train.steps).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Stop after this many minutes of wall-clock time, as Ctrl-C would (the trainer writes a
    /// checkpoint at its last step; self-play keeps only finished games).
    #[arg(long, value_name = "MINUTES", value_parser = positive_minutes)]
    pub minutes: Option<f64>,
    /// Stop once the run has trained this many hours in all, counting every earlier start of
    /// the run directory (each checkpoint records the time trained; gaps between starts do not
    /// count). `--hours 8` started again after a stop trains the rest.
    #[arg(long, value_name = "HOURS", value_parser = positive_hours)]
    pub hours: Option<f64>,
}

fn positive_time(text: &str, unit: &str, per_hour: f64) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(amount) if amount > 0.0 && amount <= MAX_TRAINING_HOURS * per_hour => Ok(amount),
        _ => Err(format!(
            "`{text}` is not a positive number of {unit} (at most {})",
            MAX_TRAINING_HOURS * per_hour
        )),
    }
}

fn positive_minutes(text: &str) -> Result<f64, String> {
    positive_time(text, "minutes", 60.0)
}

/// A number of hours for `--hours` (and `koshogi eval --at-hours`).
pub(crate) fn positive_hours(text: &str) -> Result<f64, String> {
    positive_time(text, "hours", 1.0)
}

pub fn run(args: RunArgs) -> Result<()> {
    if let Some(remote) = args.location.remote()? {
        return Err(anyhow!(
            "`koshogi run` is the one-machine job on a local directory; for {} start the roles \
             (`koshogi train --run URL --follow --resume`, `koshogi selfplay --run URL \
             --worker-id ID`), or run locally and `koshogi store push DIR URL` \
             (docs/distributed.md)",
            remote.url()
        ));
    }
    let (mut config, text, run_dir) = args.location.resolve_named()?;
    if let Some(steps) = args.steps {
        config.train.steps = steps;
    }
    match (config.train.steps, args.minutes, args.hours) {
        (0, None, None) => tracing::info!("train.steps = 0: running until Ctrl-C"),
        (0, Some(m), _) => tracing::info!("train.steps = 0: running for {m} minutes (or Ctrl-C)"),
        _ => {}
    }
    prepare_run_dir(&run_dir, &text)?;
    println!("run directory: {}", run_dir.display());

    let stop = stop_flag_on_interrupt("the current training step and self-play moves");
    let selfplay_bar = crate::progress::add(Reporter::bar(None));
    let run = OneProcessRun::start(&config, &run_dir, stop.clone(), selfplay_bar)?;
    let mut seconds_left = args.minutes.map(|minutes| minutes * 60.0);
    if let Some(hours) = args.hours {
        let trained = run.trainer().training_seconds();
        println!(
            "trained {:.2} of {hours} hours (--hours){}",
            trained / 3600.0,
            if trained >= hours * 3600.0 {
                ": nothing left to train"
            } else {
                ""
            }
        );
        let left = hours * 3600.0 - trained;
        seconds_left = Some(seconds_left.map_or(left, |limit| limit.min(left)));
    }
    if let Some(seconds) = seconds_left {
        stop_after(seconds, stop)?;
    }
    let bar = progress_bar(run.trainer().step(), run.trainer().target_steps());
    let outcome = run.train(Some(&bar));
    bar.finish_and_clear();
    let outcome = outcome?;
    print_summary(&outcome.training);
    println!("{}", outcome.selfplay_summary);
    Ok(())
}
