//! Training hours of a run's checkpoints, for the picture of progress ([`super::picture`]).
//!
//! What a run records: no counter of training time is kept, but every checkpoint's model card
//! (and its `trainer_state.json`) holds `created_unix_seconds`, the wall-clock time the trainer
//! saved it. The hours of a checkpoint are therefore the wall-clock hours from the first
//! checkpoint to it — from `step-000000000`, which a new run saves before its first step, so
//! from the start of training; if the run has no step-0 checkpoint any more, from the earliest
//! one it has, and the axis says so. Time the run was stopped between a stop and a `--resume` is
//! counted too (nothing records it); self-play and the trainer run together in `koshogi run`,
//! so these are hours of the whole loop, not of the trainer alone.

use std::collections::HashMap;

/// Hours per checkpoint name and the axis label that says from what they count.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingHours {
    pub hours: HashMap<String, f64>,
    pub label: String,
}

/// `checkpoints`: (name, step, the card's `created_unix_seconds`) of the run's own
/// checkpoints (not a synthesised anchor, whose card was made by the ladder). A creation time of
/// 0 (unknown) is left out.
pub fn training_hours(checkpoints: &[(String, u64, u64)]) -> TrainingHours {
    let known: Vec<&(String, u64, u64)> = checkpoints.iter().filter(|c| c.2 > 0).collect();
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

    fn entry(step: u64, created: u64) -> (String, u64, u64) {
        (format!("step-{step:09}"), step, created)
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
