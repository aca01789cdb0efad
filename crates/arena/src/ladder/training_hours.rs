//! Training hours of a run's checkpoints, for the picture of progress ([`super::picture`]).
//!
//! The trainer keeps a training clock: every checkpoint's model card records `training_seconds`,
//! the wall-clock time the run had trained when it was saved, summed over its resumes (the
//! clock of `koshogi run --hours`). When every checkpoint has it, those are the hours. Runs older
//! than the clock only have `created_unix_seconds`, when the trainer saved the card; their hours
//! are the wall-clock hours from the first checkpoint — from `step-000000000`, which a new run
//! saves before its first step; if the run has no step-0 checkpoint any more, from the earliest
//! one it has, and the axis says so — and count any time the run was stopped before a resume.
//! Self-play and the trainer run together in `koshogi run`, so either way these are hours of the
//! whole loop, not of the trainer alone.

use std::collections::HashMap;

/// Hours per checkpoint name and the axis label that says from what they count.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingHours {
    pub hours: HashMap<String, f64>,
    pub label: String,
}

/// When and how long a checkpoint was trained, from its model card.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedCheckpoint {
    pub name: String,
    pub step: u64,
    /// The card's `created_unix_seconds`; 0 when unknown.
    pub created_unix_seconds: u64,
    /// The card's `training_seconds`, if the trainer recorded it.
    pub training_seconds: Option<f64>,
}

/// `checkpoints`: the run's own checkpoints (not a synthesised anchor, whose card was made by
/// the ladder). A checkpoint with neither time is left out.
pub fn training_hours(checkpoints: &[SavedCheckpoint]) -> TrainingHours {
    if !checkpoints.is_empty() && checkpoints.iter().all(|c| c.training_seconds.is_some()) {
        return TrainingHours {
            hours: checkpoints
                .iter()
                .map(|c| (c.name.clone(), c.training_seconds.unwrap_or(0.0) / 3600.0))
                .collect(),
            label: "hours of training (summed over the run's starts)".into(),
        };
    }
    let known: Vec<(String, u64, u64)> = checkpoints
        .iter()
        .filter(|c| c.created_unix_seconds > 0)
        .map(|c| (c.name.clone(), c.step, c.created_unix_seconds))
        .collect();
    let Some(origin) = known.iter().min_by_key(|c| (c.1, c.2)) else {
        return TrainingHours {
            hours: HashMap::new(),
            label: "training hours (no checkpoint records when it was saved)".into(),
        };
    };
    let (origin_name, origin_step, origin_time) = (&origin.0, origin.1, origin.2);
    let hours = known
        .iter()
        .map(|(name, _, created)| {
            let seconds = *created as f64 - origin_time as f64;
            (name.clone(), seconds / 3600.0)
        })
        .collect();
    let since = if origin_step == 0 {
        format!("hours of training (wall clock since {origin_name} was saved)")
    } else {
        format!("wall-clock hours since {origin_name} was saved (the first checkpoint kept)")
    };
    TrainingHours {
        hours,
        label: since,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: u64, created: u64) -> SavedCheckpoint {
        SavedCheckpoint {
            name: format!("step-{step:09}"),
            step,
            created_unix_seconds: created,
            training_seconds: None,
        }
    }

    fn timed(step: u64, created: u64, trained: f64) -> SavedCheckpoint {
        SavedCheckpoint {
            training_seconds: Some(trained),
            ..entry(step, created)
        }
    }

    #[test]
    fn the_training_clock_leaves_out_the_gaps_between_starts() {
        // Trained an hour, stopped for a day, trained another half hour.
        let result = training_hours(&[
            timed(0, 1_000_000, 0.0),
            timed(500, 1_003_600, 3600.0),
            timed(900, 1_093_600, 5400.0),
        ]);
        assert_eq!(result.hours["step-000000900"], 1.5);
        assert_eq!(result.hours["step-000000500"], 1.0);
        assert!(result.label.contains("summed"), "{}", result.label);
        // One checkpoint without the clock (an older binary's): wall-clock hours for all.
        let mixed = training_hours(&[timed(0, 1_000_000, 0.0), entry(500, 1_003_600)]);
        assert_eq!(mixed.hours["step-000000500"], 1.0);
        assert!(mixed.label.contains("wall clock"), "{}", mixed.label);
    }

    #[test]
    fn hours_count_from_the_step_0_checkpoint() {
        let result = training_hours(&[
            entry(0, 1_000_000),
            entry(500, 1_000_900),
            entry(1000, 1_007_200),
        ]);
        assert_eq!(result.hours["step-000000000"], 0.0);
        assert_eq!(result.hours["step-000000500"], 0.25);
        assert_eq!(result.hours["step-000001000"], 2.0);
        assert!(
            result.label.contains("since step-000000000"),
            "{}",
            result.label
        );
    }

    #[test]
    fn without_step_0_they_count_from_the_first_kept_checkpoint_and_say_so() {
        let result = training_hours(&[entry(1000, 2_000_000), entry(500, 1_996_400), entry(7, 0)]);
        assert_eq!(result.hours.len(), 2, "an unknown time is left out");
        assert_eq!(result.hours["step-000000500"], 0.0);
        assert_eq!(result.hours["step-000001000"], 1.0);
        assert!(
            result.label.contains("first checkpoint kept"),
            "{}",
            result.label
        );
        assert!(training_hours(&[]).hours.is_empty());
    }
}
