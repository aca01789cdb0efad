//! Choosing a move from search statistics with a temperature: the one sampler behind the PUCT
//! search's answer (visit counts) and self-play's opening variety (the search policy).

use rand::Rng;

/// Samples an index with probability proportional to `base[i]^(1/temperature)`
/// (`temperature` > 0). `None` when no weight is positive (or the weights are NaN); no random
/// number is drawn then.
pub fn sample_with_temperature<R: Rng>(
    base: impl IntoIterator<Item = f64>,
    temperature: f32,
    rng: &mut R,
) -> Option<usize> {
    let inverse_t = 1.0 / f64::from(temperature);
    let weights: Vec<f64> = base.into_iter().map(|b| b.powf(inverse_t)).collect();
    let total: f64 = weights.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let mut x = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return Some(i);
        }
        x -= w;
    }
    // Rounding carried `x` past the last weight: the last index that had one.
    weights.iter().rposition(|&w| w > 0.0)
}

/// Samples a move with probability proportional to N^(1/T); T = 0 takes the most visited
/// (higher prior, then lower index, on ties). Without visits, falls back to the prior.
pub fn choose_with_temperature<R: Rng>(
    visits: &[u32],
    prior: &[f32],
    temperature: f32,
    rng: &mut R,
) -> usize {
    let total: u32 = visits.iter().sum();
    if temperature > 1e-3 && total > 0 {
        let max = *visits.iter().max().unwrap_or(&1) as f64;
        let base = visits.iter().map(|&n| n as f64 / max);
        if let Some(chosen) = sample_with_temperature(base, temperature, rng) {
            return chosen;
        }
    }
    let key = |i: usize| (visits[i], prior[i]);
    (0..visits.len())
        .max_by(|&a, &b| {
            let (va, pa) = key(a);
            let (vb, pb) = key(b);
            va.cmp(&vb).then(pa.total_cmp(&pb)).then(b.cmp(&a))
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn sampling_follows_the_tempered_weights() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0u32; 3];
        for _ in 0..4000 {
            counts[sample_with_temperature([1.0, 0.0, 3.0], 1.0, &mut rng).unwrap()] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((2800..3200).contains(&counts[2]), "{counts:?}");
        // T = 1/2 squares the weights: 1 : 9.
        let mut counts = [0u32; 3];
        for _ in 0..4000 {
            counts[sample_with_temperature([1.0, 0.0, 3.0], 0.5, &mut rng).unwrap()] += 1;
        }
        assert!((3500..3800).contains(&counts[2]), "{counts:?}");
        assert_eq!(sample_with_temperature([0.0, 0.0], 1.0, &mut rng), None);
        assert_eq!(sample_with_temperature([f64::NAN], 1.0, &mut rng), None);
    }

    #[test]
    fn zero_temperature_takes_the_most_visited_then_the_prior() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        assert_eq!(
            choose_with_temperature(&[3, 5, 5], &[0.1, 0.2, 0.7], 0.0, &mut rng),
            2
        );
        assert_eq!(
            choose_with_temperature(&[0, 0], &[0.6, 0.4], 1.0, &mut rng),
            0
        );
        assert_eq!(
            choose_with_temperature(&[0, 4, 0], &[0.6, 0.4, 0.0], 1.0, &mut rng),
            1
        );
    }
}
