//! How a training session shows itself on the terminal, shared by `koshogi train` and the
//! one-process `koshogi run`: the progress bar the trainer reports to, and the closing summary.

use indicatif::{ProgressBar, ProgressStyle};
use koshogi_train::sampler::Starved;
use koshogi_train::{StepStats, StopReason, TrainProgress, TrainSummary};

/// The closing lines of a training session.
pub fn print_summary(summary: &TrainSummary) {
    let reason = match &summary.reason {
        StopReason::ReachedSteps => "reached the step target".to_string(),
        StopReason::Requested => "stopped on request".to_string(),
        StopReason::OutOfData(why) => format!("out of data ({why})"),
    };
    println!(
        "trained steps {} -> {} ({} samples, {:.1} samples/s): {reason}",
        summary.start_step,
        summary.end_step,
        summary.samples,
        summary.samples_per_second()
    );
    if let Some(stats) = &summary.last_step {
        println!(
            "last step: loss {:.4} (policy {:.4}, value {:.4}, moves left {:.4}, material {:.4}), grad norm {:.3}, lr {:.3e}",
            stats.losses[0], stats.losses[1], stats.losses[2], stats.losses[3], stats.losses[4],
            stats.grad_norm, stats.lr
        );
    }
    if let Some(checkpoint) = &summary.last_checkpoint {
        println!("checkpoint: {}", checkpoint.path.display());
    }
}

/// The trainer's progress bar: draws what [`Trainer::run`] reports through [`TrainProgress`].
pub struct TrainBar(ProgressBar);

impl TrainBar {
    pub fn finish_and_clear(&self) {
        self.0.finish_and_clear();
    }
}

impl TrainProgress for TrainBar {
    fn trained(&self, step: u64, stats: &StepStats, total_rows: u64) {
        self.0.set_position(step);
        self.0.set_message(format!(
            "loss {:.3} (policy {:.3}, value {:.3}) | lr {:.2e} | {total_rows} positions",
            stats.losses[0], stats.losses[1], stats.losses[2], stats.lr,
        ));
    }

    fn waiting(&self, starved: &Starved) {
        self.0
            .set_message(format!("waiting for self-play data: {starved}"));
    }
}

/// The trainer's progress bar, starting at `start` of `target` steps.
pub fn progress_bar(start: u64, target: Option<u64>) -> TrainBar {
    let bar = crate::progress::add(match target {
        Some(target) => ProgressBar::new(target),
        None => ProgressBar::no_length(),
    });
    let template = if target.is_some() {
        "{elapsed_precise} [{bar:30}] step {pos}/{len} {per_sec} {msg}"
    } else {
        "{elapsed_precise} step {pos} {per_sec} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_position(start);
    TrainBar(bar)
}
