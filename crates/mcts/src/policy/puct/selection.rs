//! AlphaZero PUCT selection with first-play urgency, and the root's Dirichlet noise.

use crate::child_stats::ChildStats;
use crate::config::PuctConfig;
use rand::Rng;
use rand_distr::{Distribution, Gamma};

/// The child maximising Q + U, U = c(N) * P * sqrt(N) / (1 + N(a)), with
/// c(N) = c_init + ln((N + c_base + 1) / c_base). Unvisited children are valued at
/// `parent_q - fpu_reduction * sqrt(visited prior mass)`. `priors` overrides the stored priors
/// (the root's noisy priors). First index on ties.
pub fn select(
    config: &PuctConfig,
    parent_visits: u32,
    parent_q: f32,
    fpu_reduction: f32,
    children: &[ChildStats],
    priors: Option<&[f32]>,
) -> usize {
    let n = parent_visits.max(1) as f32;
    let c = config.c_init + ((n + config.c_base + 1.0) / config.c_base).ln();
    let exploration = c * n.sqrt();
    let prior = |i: usize| priors.map_or(children[i].prior, |p| p[i]);
    let visited_mass: f32 = (0..children.len())
        .filter(|&i| children[i].visits > 0)
        .map(prior)
        .sum();
    let fpu = parent_q - fpu_reduction * visited_mass.sqrt();
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, child) in children.iter().enumerate() {
        let q = if child.visits > 0 { child.q } else { fpu };
        let score = q + exploration * prior(i) / (1.0 + child.visits as f32);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

/// (1 - fraction) * prior + fraction * Dirichlet(total_alpha / k) noise, for k >= 2 moves.
pub fn noisy_priors<R: Rng>(config: &PuctConfig, priors: &[f32], rng: &mut R) -> Vec<f32> {
    let k = priors.len();
    if k < 2 || config.dirichlet_fraction <= 0.0 {
        return priors.to_vec();
    }
    let alpha = (config.dirichlet_total_alpha / k as f32).max(1e-3) as f64;
    let gamma = Gamma::new(alpha, 1.0).expect("alpha is positive");
    let noise: Vec<f64> = (0..k).map(|_| gamma.sample(rng)).collect();
    let total: f64 = noise.iter().sum();
    let f = config.dirichlet_fraction;
    priors
        .iter()
        .zip(&noise)
        .map(|(&p, &x)| {
            let eta = if total > 0.0 {
                (x / total) as f32
            } else {
                1.0 / k as f32
            };
            (1.0 - f) * p + f * eta
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn child(prior: f32, visits: u32, q: f32) -> ChildStats {
        ChildStats { prior, visits, q }
    }

    #[test]
    fn unvisited_high_prior_child_is_tried_first() {
        let config = PuctConfig::default();
        let children = [child(0.1, 0, 0.0), child(0.7, 0, 0.0), child(0.2, 0, 0.0)];
        assert_eq!(select(&config, 1, 0.0, 0.0, &children, None), 1);
    }

    #[test]
    fn first_play_urgency_decides_whether_unvisited_children_are_tried() {
        let config = PuctConfig::default();
        // q + U: visited 1 + 2.5*0.5/4 = 1.31; unvisited fpu + 2.5*0.5 = fpu + 1.25.
        let children = [child(0.5, 3, 1.0), child(0.5, 0, 0.0)];
        assert_eq!(
            select(&config, 4, 0.5, 0.0, &children, None),
            1,
            "fpu 0.5 -> 1.75 beats 1.31"
        );
        assert_eq!(
            select(&config, 4, 0.5, 1.0, &children, None),
            0,
            "fpu 0.5-0.71 -> 1.04 loses"
        );
        // With a losing visited child, the unvisited one gets its turn even with a reduction.
        let children = [child(0.5, 3, -1.0), child(0.5, 0, 0.0)];
        assert_eq!(select(&config, 4, -0.5, 0.2, &children, None), 1);
    }

    #[test]
    fn noise_keeps_a_distribution_and_is_seeded() {
        let config = PuctConfig::default();
        let priors = [0.7f32, 0.1, 0.1, 0.1];
        let a = noisy_priors(&config, &priors, &mut ChaCha8Rng::seed_from_u64(3));
        let b = noisy_priors(&config, &priors, &mut ChaCha8Rng::seed_from_u64(3));
        assert_eq!(a, b);
        assert!((a.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(a.iter().all(|&p| p >= 0.0));
        assert_ne!(a, priors.to_vec());
    }
}
