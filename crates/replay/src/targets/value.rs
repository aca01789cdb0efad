//! The value target: what the value head learns for a stored position, as (win, draw, loss)
//! for its mover.
//!
//! Why here, beside the material outlook and not in the trainer: the trainer's sampler, the
//! exported training arrays (koshogi-export's encoded shards) and `koshogi diagnose` must build
//! the same target from the same shard row, so its one definition sits with the shards.

/// The value target as (win, draw, loss) for the mover: the game result, optionally mixed
/// with the search value, and that mix optionally mixed with the material outlook
/// ([`super::material_outlook`]); a scalar `v` is read as `((1 + v) / 2, 0, (1 − v) / 2)`.
pub fn value_target(
    game_result: i8,
    search_value: f32,
    search_weight: f64,
    material_outlook: f32,
    outlook_weight: f64,
) -> [f32; 3] {
    let result = match game_result.signum() {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    };
    let with_search = mix_scalar(result, search_value, search_weight as f32);
    mix_scalar(with_search, material_outlook, outlook_weight as f32)
}

/// `(1 − weight) · wdl + weight · ((1 + v) / 2, 0, (1 − v) / 2)`.
fn mix_scalar(wdl: [f32; 3], v: f32, weight: f32) -> [f32; 3] {
    if weight == 0.0 {
        return wdl;
    }
    let v = v.clamp(-1.0, 1.0);
    let scalar = [(1.0 + v) / 2.0, 0.0, (1.0 - v) / 2.0];
    [0, 1, 2].map(|i| (1.0 - weight) * wdl[i] + weight * scalar[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_targets_follow_the_result_and_mix_in_the_search_value() {
        assert_eq!(value_target(1, -1.0, 0.0, 0.9, 0.0), [1.0, 0.0, 0.0]);
        assert_eq!(value_target(0, 0.5, 0.0, 0.9, 0.0), [0.0, 1.0, 0.0]);
        assert_eq!(value_target(-1, 0.5, 0.0, 0.9, 0.0), [0.0, 0.0, 1.0]);
        // Half result (loss), half search value 0.5 → (0.75, 0, 0.25).
        assert_eq!(value_target(-1, 0.5, 0.5, 0.9, 0.0), [0.375, 0.0, 0.625]);
    }

    #[test]
    fn value_targets_mix_in_the_material_outlook_last() {
        // A draw, half the material outlook −0.5 → (0.25, 0, 0.75) half: (0.125, 0.5, 0.375).
        assert_eq!(value_target(0, 0.9, 0.0, -0.5, 0.5), [0.125, 0.5, 0.375]);
        // Search value and outlook together: result win, search 0 (weight 0.5) → (0.75, 0,
        // 0.25); then outlook 1 at weight 0.5 → (0.875, 0, 0.125).
        assert_eq!(value_target(1, 0.0, 0.5, 1.0, 0.5), [0.875, 0.0, 0.125]);
    }
}
