//! Sparse policy targets: the few moves that carry the search's policy mass.
//!
//! A Gumbel improved policy gives every legal move (often 300+) a non-zero weight; storing them
//! all would cost ~2 kB a position. The heaviest `max_entries` with weight at least `min_weight`
//! are kept **at their own probabilities, not renormalised**: the mass they leave is the share of
//! the other moves as a group, which the trainer scores as a group
//! (`koshogi_nn::training_step::policy_cross_entropy`). Renormalising would tell the network that
//! its own highest-prior moves deserve even more, and the policy collapses onto them.

use koshogi_replay::PolicyEntry;

/// The sparse target for `policy` (one weight per legal move, summing to ~1), sorted by move
/// index as the shards expect. Never empty when `policy` has a positive entry: the heaviest move
/// is always kept.
pub fn sparse_policy_target(
    policy: &[f32],
    max_entries: usize,
    min_weight: f32,
) -> Vec<PolicyEntry> {
    let total: f32 = policy.iter().filter(|&&p| p > 0.0).sum();
    if total <= 0.0 {
        return Vec::new();
    }
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
    fn keeps_the_heaviest_moves_at_their_own_probabilities_in_index_order() {
        let policy = [0.05, 0.5, 0.0005, 0.25, 0.1995];
        let target = sparse_policy_target(&policy, 3, 1e-3);
        let indices: Vec<u32> = target.iter().map(|e| e.move_index).collect();
        assert_eq!(indices, vec![1, 3, 4]);
        // Not renormalised: the 0.0505 of the dropped moves is left to them as a group.
        let total: f32 = target.iter().map(|e| e.weight).sum();
        assert!((total - 0.9495).abs() < 1e-6);
        assert!((target[0].weight - 0.5).abs() < 1e-6);
    }

    #[test]
    fn drops_tiny_weights_but_never_the_best_move() {
        let policy = [0.0004, 0.0002];
        let target = sparse_policy_target(&policy, 8, 1e-3);
        // Weights are shares of the policy's total (here 0.0006), so a policy that does not sum
        // to 1 still gives probabilities.
        assert_eq!(target.len(), 1);
        assert_eq!(target[0].move_index, 0);
        assert!((target[0].weight - 2.0 / 3.0).abs() < 1e-6);
        assert!(sparse_policy_target(&[0.0, 0.0], 8, 1e-3).is_empty());
    }
}
