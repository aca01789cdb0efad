//! Sparse policy targets: the few moves that carry the search's policy mass.
//!
//! A Gumbel improved policy gives every legal move (often 300+) a non-zero weight; storing them
//! all would cost ~2 kB a position. Keeping the heaviest `max_entries` with weight at least
//! `min_weight`, renormalised, keeps all the signal that matters in a few dozen bytes.

use koshogi_replay::PolicyEntry;

/// The sparse target for `policy` (one weight per legal move, summing to ~1), sorted by move
/// index as the shards expect. Never empty when `policy` has a positive entry: the heaviest move
/// is always kept.
pub fn sparse_policy_target(
    policy: &[f32],
    max_entries: usize,
    min_weight: f32,
) -> Vec<PolicyEntry> {
    let mut order: Vec<usize> = (0..policy.len()).filter(|&i| policy[i] > 0.0).collect();
    order.sort_by(|&a, &b| policy[b].total_cmp(&policy[a]).then(a.cmp(&b)));
    let keep = order
        .iter()
        .enumerate()
        .take_while(|&(rank, &i)| rank == 0 || policy[i] >= min_weight)
        .take(max_entries.max(1))
        .count();
    let mut kept: Vec<usize> = order[..keep].to_vec();
    kept.sort_unstable();
    let total: f32 = kept.iter().map(|&i| policy[i]).sum();
    kept.into_iter()
        .map(|i| PolicyEntry {
            move_index: i as u32,
            weight: policy[i] / total,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_heaviest_moves_renormalised_in_index_order() {
        let policy = [0.05, 0.5, 0.0005, 0.25, 0.2];
        let target = sparse_policy_target(&policy, 3, 1e-3);
        let indices: Vec<u32> = target.iter().map(|e| e.move_index).collect();
        assert_eq!(indices, vec![1, 3, 4]);
        let total: f32 = target.iter().map(|e| e.weight).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert!((target[0].weight - 0.5 / 0.95).abs() < 1e-6);
    }

    #[test]
    fn drops_tiny_weights_but_never_the_best_move() {
        let policy = [0.0004, 0.0002];
        let target = sparse_policy_target(&policy, 8, 1e-3);
        assert_eq!(
            target,
            vec![PolicyEntry {
                move_index: 0,
                weight: 1.0
            }]
        );
        assert!(sparse_policy_target(&[0.0, 0.0], 8, 1e-3).is_empty());
    }
}
