//! Gumbel root search arithmetic (Danihelka et al. 2022, "Policy improvement by planning with
//! Gumbel"), as pure functions over a node's children.
//!
//! * completed Q: visited children keep their Q; unvisited ones get the node's *mixed value*
//!   (paper, appendix D): (v_raw + sum_b N(b) * sum_{visited} pi(b) q(b) / sum_{visited} pi(b))
//!   / (1 + sum_b N(b)).
//! * sigma(q) = (c_visit + max_b N(b)) * c_scale * q, on Q optionally min-max rescaled to [0, 1].
//! * improved policy pi' = softmax(logits + sigma(completed Q)): the training target at the root
//!   and the target that non-root selection tracks.
//! * non-root selection: argmax_a pi'(a) - N(a) / (1 + sum_b N(b)) (paper, section 5).
//!
//! Logits are ln(prior); the priors are normalised, so these are log-probabilities.

use crate::child_stats::ChildStats;
use crate::config::GumbelConfig;

/// Stand-in logit for a zero prior (finite, so sums and softmax stay well defined).
pub const LOW_LOGIT: f32 = -1e9;

pub fn logit(prior: f32) -> f32 {
    if prior > 0.0 {
        prior.ln()
    } else {
        LOW_LOGIT
    }
}

/// The mixed value of a node whose raw (network) value is `raw_value`, chooser's view.
pub fn mixed_value(raw_value: f32, children: &[ChildStats]) -> f32 {
    let total_visits: u32 = children.iter().map(|c| c.visits).sum();
    if total_visits == 0 {
        return raw_value;
    }
    let (mut prob_mass, mut weighted_q) = (0.0f64, 0.0f64);
    for c in children.iter().filter(|c| c.visits > 0) {
        let p = (c.prior as f64).max(f64::from(f32::MIN_POSITIVE));
        prob_mass += p;
        weighted_q += p * c.q as f64;
    }
    let weighted_q = weighted_q / prob_mass;
    ((raw_value as f64 + total_visits as f64 * weighted_q) / (1.0 + total_visits as f64)) as f32
}

/// sigma(completed Q) for every child, written to `out`.
pub fn sigma_completed_q(
    config: &GumbelConfig,
    raw_value: f32,
    children: &[ChildStats],
    out: &mut Vec<f32>,
) {
    let mix = mixed_value(raw_value, children);
    out.clear();
    out.extend(
        children
            .iter()
            .map(|c| if c.visits > 0 { c.q } else { mix }),
    );
    if config.rescale_q {
        let min = out.iter().copied().fold(f32::INFINITY, f32::min);
        let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let range = (max - min).max(config.min_q_range).max(1e-8);
        for q in out.iter_mut() {
            *q = (*q - min) / range;
        }
    }
    let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let scale = (config.c_visit + max_visits as f32) * config.c_scale;
    for q in out.iter_mut() {
        *q *= scale;
    }
}

/// pi' = softmax(logits + sigma), written to `out` (a proper distribution).
pub fn improved_policy(children: &[ChildStats], sigma: &[f32], out: &mut Vec<f32>) {
    out.clear();
    out.extend(children.iter().zip(sigma).map(|(c, s)| logit(c.prior) + s));
    softmax_in_place(out);
}

pub fn softmax_in_place(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if values.is_empty() || !max.is_finite() {
        let n = values.len().max(1) as f32;
        values.iter_mut().for_each(|v| *v = 1.0 / n);
        return;
    }
    let mut total = 0.0f64;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        total += *v as f64;
    }
    for v in values.iter_mut() {
        *v = (*v as f64 / total) as f32;
    }
}

/// Deterministic non-root selection: the child whose visit share lags its improved-policy
/// probability the most (first index on ties).
pub fn select_interior(children: &[ChildStats], improved: &[f32]) -> usize {
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let denominator = 1.0 + total as f32;
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, (c, p)) in children.iter().zip(improved).enumerate() {
        let score = p - c.visits as f32 / denominator;
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(prior: f32, visits: u32, q: f32) -> ChildStats {
        ChildStats { prior, visits, q }
    }

    #[test]
    fn mixed_value_weights_visited_q_by_prior() {
        // raw 0.2; visited: b (prior .5, q .4, 2 visits), c (prior .25, q -.2, 1 visit).
        // weighted q = (.5*.4 + .25*-.2)/.75 = .15/.75 = .2; mix = (.2 + 3*.2)/4 = .2
        let children = [
            child(0.25, 0, 0.0),
            child(0.5, 2, 0.4),
            child(0.25, 1, -0.2),
        ];
        assert!((mixed_value(0.2, &children) - 0.2).abs() < 1e-6);
        // no visits: the raw value itself
        assert_eq!(mixed_value(-0.7, &[child(1.0, 0, 0.0)]), -0.7);
        // weighted q = (.5*1)/.5 = 1; mix = (0 + 1*1)/2 = .5
        let children = [child(0.5, 1, 1.0), child(0.5, 0, 0.0)];
        assert!((mixed_value(0.0, &children) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn sigma_scales_with_the_most_visited_child() {
        let config = GumbelConfig {
            rescale_q: false,
            ..GumbelConfig::default()
        };
        let children = [child(0.5, 3, 0.5), child(0.5, 1, -0.5)];
        let mut out = Vec::new();
        sigma_completed_q(&config, 0.0, &children, &mut out);
        // (50 + 3) * 0.1 = 5.3
        assert!((out[0] - 5.3 * 0.5).abs() < 1e-5);
        assert!((out[1] + 5.3 * 0.5).abs() < 1e-5);
        let rescaled = GumbelConfig::default();
        sigma_completed_q(&rescaled, 0.0, &children, &mut out);
        assert!((out[0] - 5.3).abs() < 1e-5 && out[1].abs() < 1e-6);
    }

    #[test]
    fn a_range_floor_keeps_small_q_differences_small() {
        // One visit each, Q 0.02 apart: mctx's rescale makes that the full scale.
        let children = [child(0.5, 1, 0.01), child(0.5, 1, -0.01)];
        let mut out = Vec::new();
        sigma_completed_q(&GumbelConfig::default(), 0.0, &children, &mut out);
        assert!((out[0] - out[1] - 5.1).abs() < 1e-4, "{out:?}");
        let floored = GumbelConfig {
            min_q_range: 0.5,
            ..GumbelConfig::default()
        };
        sigma_completed_q(&floored, 0.0, &children, &mut out);
        // (0.02 / 0.5) * 5.1 = 0.204
        assert!((out[0] - out[1] - 0.204).abs() < 1e-4, "{out:?}");
        // A large difference is untouched by the floor.
        let children = [child(0.5, 1, 0.6), child(0.5, 1, -0.6)];
        sigma_completed_q(&floored, 0.0, &children, &mut out);
        assert!((out[0] - out[1] - 5.1).abs() < 1e-4, "{out:?}");
    }

    #[test]
    fn improved_policy_moves_mass_to_the_better_child_and_sums_to_one() {
        let config = GumbelConfig::default();
        let children = [child(0.5, 4, 0.8), child(0.5, 4, -0.8)];
        let (mut sigma, mut pi) = (Vec::new(), Vec::new());
        sigma_completed_q(&config, 0.0, &children, &mut sigma);
        improved_policy(&children, &sigma, &mut pi);
        assert!(pi[0] > 0.99);
        assert!((pi.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn interior_selection_tracks_the_target_distribution() {
        // Repeatedly selecting with fixed target probabilities gives visit shares close to them.
        let target = [0.5f32, 0.3, 0.2];
        let mut children = [child(0.0, 0, 0.0), child(0.0, 0, 0.0), child(0.0, 0, 0.0)];
        for _ in 0..100 {
            let i = select_interior(&children, &target);
            children[i].visits += 1;
        }
        assert_eq!(children.map(|c| c.visits), [50, 30, 20]);
    }
}
