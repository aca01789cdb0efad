//! Fading the material part of the search's value over training (`train.material_utility_final`,
//! `train.material_utility_fade_steps`).
//!
//! Why: `[model] material_utility` (0.75 in cpu.toml) makes the search read a hand-written
//! material count into every value. It buys the first hour, when the value head knows nothing,
//! but a search that keeps reading piece counts cannot play beyond them however good the
//! network becomes. The trainer writes the faded weight into each checkpoint's model card, so
//! every player that loads the checkpoint (self-play, the arena, the gate, the ladder) reads
//! the network as that checkpoint's step calls for, with no schedule of its own.

/// The material utility of a checkpoint at `step`: `start` at step 0, moving linearly to
/// `end` at `fade_steps` and staying there; `fade_steps = 0` keeps `start` (no fade).
pub fn material_utility_at(start: f32, end: f32, fade_steps: u64, step: u64) -> f32 {
    if fade_steps == 0 {
        return start;
    }
    let progress = (step as f64 / fade_steps as f64).min(1.0);
    (f64::from(start) + (f64::from(end) - f64::from(start)) * progress) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_linearly_then_holds() {
        assert_eq!(material_utility_at(0.75, 0.0, 0, 1_000_000), 0.75);
        assert_eq!(material_utility_at(0.75, 0.0, 1000, 0), 0.75);
        assert!((material_utility_at(0.75, 0.0, 1000, 400) - 0.45).abs() < 1e-6);
        assert!((material_utility_at(0.75, 0.25, 1000, 500) - 0.5).abs() < 1e-6);
        assert_eq!(material_utility_at(0.75, 0.0, 1000, 1000), 0.0);
        assert_eq!(material_utility_at(0.75, 0.0, 1000, 5000), 0.0);
        // Rising works too (a run that starts on the network alone).
        assert!((material_utility_at(0.0, 1.0, 10, 3) - 0.3).abs() < 1e-6);
    }
}
