//! The visit schedule of sequential halving at the Gumbel root.
//!
//! Sequential halving (Karnin et al. 2013) splits the simulation budget n into ceil(log2 m)
//! phases; each phase gives floor(n / (ceil(log2 m) * m_phase)) visits (at least one) to every
//! action still considered, then keeps the better half (never fewer than two). Like the paper's
//! reference code (`mctx`, `seq_halving.py`), the schedule is expressed as a sequence: entry k is
//! the visit count that the action chosen by simulation k must currently have. Simulation k
//! visits the best-scoring considered action whose count equals entry k, which realises both
//! the per-phase visits and the halving (only the top actions of the phase reach the next count).
//! Budget left over after the last planned phase keeps halving down to two actions, which then
//! alternate until the budget is spent; a budget smaller than the plan is simply cut off.

/// Visit-count thresholds for each of the `simulations` simulations with `considered` actions.
pub fn considered_visit_sequence(considered: u32, simulations: u32) -> Vec<u32> {
    let n = simulations as usize;
    if considered <= 1 {
        // A single action just takes every simulation.
        return (0..simulations).collect();
    }
    let log2_considered = ceil_log2(considered);
    let mut sequence = Vec::with_capacity(n);
    let mut remaining = considered;
    let mut visits_so_far = 0u32;
    while sequence.len() < n {
        let per_action = (simulations / (log2_considered * remaining)).max(1);
        for _ in 0..per_action {
            sequence.extend(std::iter::repeat_n(visits_so_far, remaining as usize));
            visits_so_far += 1;
        }
        remaining = (remaining / 2).max(2);
    }
    sequence.truncate(n);
    sequence
}

fn ceil_log2(x: u32) -> u32 {
    debug_assert!(x >= 2);
    32 - (x - 1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected schedules worked out by hand from the definition (phase visits per remaining
    // action = floor(n / (ceil(log2 m) * m_phase)), at least 1; halve, never below 2; cut at n).

    #[test]
    fn n24_m8_is_exactly_the_planned_budget() {
        // log2 8 = 3. Phase 1: 24/(3*8)=1 visit x 8. Phase 2: 24/(3*4)=2 visits x 4.
        // Phase 3: 24/(3*2)=4 visits x 2 = 8 sims -> 8+8+8 = 24.
        let expected = [
            0, 0, 0, 0, 0, 0, 0, 0, //
            1, 1, 1, 1, 2, 2, 2, 2, //
            3, 3, 4, 4, 5, 5, 6, 6,
        ];
        assert_eq!(considered_visit_sequence(8, 24), expected);
    }

    #[test]
    fn n47_m8_keeps_alternating_two_actions_after_the_plan() {
        // Phase 1: 47/24=1 -> 8 sims (visits 0). Phase 2: 47/12=3 -> 3 rounds of 4 (visits 1,2,3).
        // Phase 3: 47/6=7 -> 7 rounds of 2 (visits 4..10): total 8+12+14 = 34. Then m stays 2:
        // 7 more rounds (visits 11..17) cut at 47 entries.
        let mut expected = vec![0; 8];
        for v in 1..=3 {
            expected.extend([v; 4]);
        }
        for v in 4..=17 {
            expected.extend([v; 2]);
        }
        expected.truncate(47);
        assert_eq!(expected.len(), 47);
        assert_eq!(*expected.last().unwrap(), 17);
        assert_eq!(considered_visit_sequence(8, 47), expected);
    }

    #[test]
    fn budget_below_the_plan_is_cut_off() {
        // n=2, m=8: the first phase alone would need 8 sims.
        assert_eq!(considered_visit_sequence(8, 2), [0, 0]);
        // n=13, m=8: phase 1 -> 13/24 -> 1 round of 8; phase 2 -> 13/12=1 round of 4; then 1 more.
        assert_eq!(
            considered_visit_sequence(8, 13),
            [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2]
        );
    }

    #[test]
    fn m_not_a_power_of_two() {
        // m=7: log2 -> 3. Phase 1: 24/21=1 x 7. Then 3 actions: 24/9=2 rounds (visits 1,2).
        // Then 2 actions: 24/6=4 rounds (3..6) -> 7+6+8 = 21; then 2 more rounds cut at 24.
        let expected = [
            0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8,
        ];
        assert_eq!(considered_visit_sequence(7, 24), expected);
    }

    #[test]
    fn cpu_budgets_n16_m16_and_n32_m8() {
        // n=16, m=16: log2 = 4. Phase 1: 16/64 -> 1 round of 16 = whole budget.
        assert_eq!(considered_visit_sequence(16, 16), vec![0; 16]);
        // n=32, m=8: Phase 1: 32/24=1 round of 8. Phase 2: 32/12=2 rounds of 4 (1,2).
        // Phase 3: 32/6=5 rounds of 2 (3..7) -> 8+8+10 = 26; then 3 more rounds (8..10).
        let mut expected = vec![0; 8];
        expected.extend([1, 1, 1, 1, 2, 2, 2, 2]);
        for v in 3..=10 {
            expected.extend([v, v]);
        }
        assert_eq!(considered_visit_sequence(8, 32), expected);
    }

    #[test]
    fn zero_or_one_considered_action_counts_up() {
        assert_eq!(considered_visit_sequence(1, 5), [0, 1, 2, 3, 4]);
        assert_eq!(considered_visit_sequence(0, 3), [0, 1, 2]);
    }

    #[test]
    fn each_entry_never_exceeds_the_entries_before_it_plus_one() {
        // A schedule is realisable only if every threshold was reached by earlier visits.
        for m in 2..=32 {
            for n in 1..=200 {
                let seq = considered_visit_sequence(m, n);
                assert_eq!(seq.len(), n as usize);
                assert_eq!(seq[0], 0);
                let mut max = 0;
                for &v in &seq {
                    assert!(v <= max + 1, "m={m} n={n}: {seq:?}");
                    max = max.max(v);
                }
            }
        }
    }
}
