//! The Gumbel policy (Danihelka et al. 2022): Gumbel-top-k and sequential halving at the root,
//! deterministic selection toward the improved policy below it, the improved policy as the
//! target. The arithmetic lives in [`arithmetic`] and [`sequential_halving`]; this
//! module keeps the state one search needs and the Ko shogi move ordering of the root
//! (captures and threat answers always considered, no passes, captures tried first below).

pub mod arithmetic;
pub mod sequential_halving;

use self::arithmetic::{improved_policy, logit, select_interior, sigma_completed_q};
use self::sequential_halving::considered_visit_sequence;
use super::{InteriorPolicy, RootDecision, RootPolicy};
use crate::child_stats::{self, ChildStats};
use crate::config::GumbelConfig;
use crate::game::SearchGame;
use crate::tree::{NodeId, Tree, ROOT};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gumbel as GumbelDistribution};

/// The root of one Gumbel search.
pub struct GumbelRoot {
    config: GumbelConfig,
    /// g(a) + logit(a) for every root move.
    perturbed_logits: Vec<f32>,
    /// The m moves chosen by Gumbel-top-k (and the forced candidates).
    considered: Vec<usize>,
    /// Visit count the next simulation's move must have (sequential halving).
    schedule: Vec<u32>,
    /// Visits (including in-flight) given to each root move by this search.
    search_visits: Vec<u32>,
    stats: Vec<ChildStats>,
    sigma: Vec<f32>,
}

impl GumbelRoot {
    /// Samples the Gumbel noise, picks the considered moves and lays out the halving schedule
    /// for `simulations`. Without root passes, first takes the passes' prior mass away (here
    /// rather than at expansion: a reused subtree's root was expanded as an interior node).
    pub fn plan<G: SearchGame>(
        config: &GumbelConfig,
        simulations: u32,
        tree: &mut Tree<G::Move>,
        game: &G,
        rng: &mut ChaCha8Rng,
    ) -> GumbelRoot {
        let mut priors: Vec<f32> = tree.edges_of(ROOT).iter().map(|e| e.prior).collect();
        if !config.root_passes {
            if let Some(without) = priors_without_passes(tree, game, &priors) {
                tree.set_priors(ROOT, &without);
                priors = without;
            }
        }
        let gumbel = GumbelDistribution::new(0.0f32, 1.0).expect("valid Gumbel");
        let perturbed_logits: Vec<f32> = priors
            .iter()
            .map(|&p| {
                let g: f32 = gumbel.sample(rng);
                config.gumbel_scale * g + logit(p)
            })
            .collect();
        let m = (config.max_considered_actions as usize).clamp(1, priors.len());
        let mut order: Vec<usize> = (0..priors.len()).collect();
        order.sort_by(|&a, &b| {
            perturbed_logits[b]
                .total_cmp(&perturbed_logits[a])
                .then(a.cmp(&b))
        });
        let edges = tree.edges_of(ROOT);
        let capture_values: Vec<f32> = order
            .iter()
            .map(|&a| game.capture_value(&edges[a].mv))
            .collect();
        let evasions = config.evasion_candidates as usize;
        let mut evasion_values = Vec::new();
        if evasions > 0 {
            let moves: Vec<G::Move> = order.iter().map(|&a| edges[a].mv).collect();
            game.evasion_values(&moves, &mut evasion_values);
        }
        let considered = considered_with_forced(
            &order,
            &[
                (&capture_values, config.capture_candidates as usize),
                (&evasion_values, evasions),
            ],
            m,
        );
        GumbelRoot {
            config: config.clone(),
            perturbed_logits,
            considered,
            schedule: considered_visit_sequence(m as u32, simulations),
            search_visits: vec![0; priors.len()],
            stats: Vec::new(),
            sigma: Vec::new(),
        }
    }

    /// The best-scoring considered move (g + logit + sigma; lower index on ties) among those
    /// this search has visited `visits` times.
    fn best_with(&self, visits: u32) -> Option<usize> {
        let score = |a: usize| self.perturbed_logits[a] + self.sigma[a];
        self.considered
            .iter()
            .copied()
            .filter(|&a| self.search_visits[a] == visits)
            .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
    }

    /// The visits of the considered moves this search visited least (`most`: most).
    fn considered_visits(&self, most: bool) -> u32 {
        let visits = self.considered.iter().map(|&a| self.search_visits[a]);
        if most { visits.max() } else { visits.min() }.unwrap_or(0)
    }
}

impl<M: Copy> RootPolicy<M> for GumbelRoot {
    fn select(&mut self, tree: &Tree<M>, simulation: u32) -> usize {
        sigma_of_children(&self.config, tree, ROOT, &mut self.stats, &mut self.sigma);
        let wanted = self
            .schedule
            .get(simulation as usize)
            .or(self.schedule.last())
            .copied()
            .unwrap_or(0);
        self.best_with(wanted).unwrap_or_else(|| {
            // Only reachable when collisions left the schedule behind: take the least visited
            // considered move.
            self.best_with(self.considered_visits(false))
                .expect("at least one considered move")
        })
    }

    fn visited(&mut self, edge: usize) {
        self.search_visits[edge] += 1;
    }

    /// The improved policy as the target; the best of the most visited considered moves.
    fn decide(&mut self, tree: &Tree<M>, _rng: &mut ChaCha8Rng) -> RootDecision {
        sigma_of_children(&self.config, tree, ROOT, &mut self.stats, &mut self.sigma);
        let mut policy = Vec::new();
        improved_policy(&self.stats, &self.sigma, &mut policy);
        let chosen = self
            .best_with(self.considered_visits(true))
            .expect("at least one considered move");
        RootDecision { chosen, policy }
    }
}

/// Selection below the root: toward the improved policy, a reply's first visit optionally to
/// its most valuable capture.
pub struct GumbelInterior {
    config: GumbelConfig,
    stats: Vec<ChildStats>,
    sigma: Vec<f32>,
    policy: Vec<f32>,
}

impl GumbelInterior {
    pub fn new(config: GumbelConfig) -> GumbelInterior {
        GumbelInterior {
            config,
            stats: Vec::new(),
            sigma: Vec::new(),
            policy: Vec::new(),
        }
    }
}

impl<G: SearchGame> InteriorPolicy<G> for GumbelInterior {
    fn select(&mut self, tree: &Tree<G::Move>, game: &G, node: NodeId) -> usize {
        if self.config.capture_first_reply {
            if let Some(i) = unvisited_best_capture(tree, game, node) {
                return i;
            }
        }
        sigma_of_children(&self.config, tree, node, &mut self.stats, &mut self.sigma);
        improved_policy(&self.stats, &self.sigma, &mut self.policy);
        select_interior(&self.stats, &self.policy)
    }
}

/// The stats of `node`'s children into `stats`, sigma(completed Q) of them into `sigma`.
fn sigma_of_children<M: Copy>(
    config: &GumbelConfig,
    tree: &Tree<M>,
    node: NodeId,
    stats: &mut Vec<ChildStats>,
    sigma: &mut Vec<f32>,
) {
    child_stats::gather(tree, node, stats);
    let raw = tree.node(node).raw_value.scalar();
    sigma_completed_q(config, raw, stats, sigma);
}

/// At a node none of whose children has been visited yet, its most valuable capture (the
/// first such in move order on ties); `None` otherwise. `game` is in `node`'s position.
fn unvisited_best_capture<G: SearchGame>(
    tree: &Tree<G::Move>,
    game: &G,
    node: NodeId,
) -> Option<usize> {
    let n = tree.node(node);
    if n.visits + n.in_flight > 1 {
        return None;
    }
    let mut best: Option<(usize, f32)> = None;
    for (i, edge) in tree.edges_of(node).iter().enumerate() {
        let value = game.capture_value(&edge.mv);
        if value > 0.0 && best.is_none_or(|(_, v)| value > v) {
            best = Some((i, value));
        }
    }
    best.map(|(i, _)| i)
}

/// `priors` (one per root edge) with every pass's mass removed and the rest renormalised
/// (`GumbelConfig::root_passes = false`); `None` when there is no pass, or nothing but passes,
/// to remove. `game` is in the root's position.
fn priors_without_passes<G: SearchGame>(
    tree: &Tree<G::Move>,
    game: &G,
    priors: &[f32],
) -> Option<Vec<f32>> {
    let passes: Vec<bool> = tree
        .edges_of(ROOT)
        .iter()
        .map(|edge| game.is_pass(&edge.mv))
        .collect();
    if !passes.contains(&true) || !passes.contains(&false) {
        return None;
    }
    let kept: f32 = priors
        .iter()
        .zip(&passes)
        .filter(|&(_, &pass)| !pass)
        .map(|(&p, _)| p)
        .sum();
    let others = passes.iter().filter(|&&pass| !pass).count() as f32;
    Some(
        priors
            .iter()
            .zip(&passes)
            .map(|(&p, &pass)| match pass {
                true => 0.0,
                // A prior that put everything on passes leaves the others uniform.
                false if kept > 0.0 => p / kept,
                false => 1.0 / others,
            })
            .collect(),
    )
}

/// The first `m` of `ranked` (moves best first), except that each group of `forced` — per
/// move a value (`values[i]` belongs to `ranked[i]`, 0 = not of the group; an empty slice =
/// none) and how many to keep — places its most valuable moves first (ties by rank, moves
/// already chosen skipped), each replacing the lowest-ranked of the rest. Groups are served in
/// order: captures, then threat answers (`GumbelConfig::capture_candidates`,
/// `evasion_candidates`).
fn considered_with_forced(ranked: &[usize], forced: &[(&[f32], usize)], m: usize) -> Vec<usize> {
    let m = m.min(ranked.len());
    let mut chosen = vec![false; ranked.len()];
    let mut count = 0;
    for &(values, keep) in forced {
        let mut by_value: Vec<usize> = (0..values.len().min(ranked.len()))
            .filter(|&i| values[i] > 0.0 && !chosen[i])
            .collect();
        // Stable: equal values keep their rank order.
        by_value.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
        by_value.truncate(keep.min(m - count));
        for &i in &by_value {
            chosen[i] = true;
        }
        count += by_value.len();
    }
    // Fill up to m with the best-ranked of the rest.
    for slot in chosen.iter_mut() {
        if count >= m {
            break;
        }
        if !*slot {
            *slot = true;
            count += 1;
        }
    }
    ranked
        .iter()
        .zip(&chosen)
        .filter(|(_, &keep)| keep)
        .map(|(&a, _)| a)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::considered_with_forced;

    fn considered_with_captures(
        ranked: &[usize],
        value: &[f32],
        m: usize,
        captures: usize,
    ) -> Vec<usize> {
        considered_with_forced(ranked, &[(value, captures)], m)
    }

    #[test]
    fn the_most_valuable_captures_are_always_considered() {
        // Moves 10..16 ranked best first; 13 (worth 5) and 15 (worth 1) capture.
        let ranked = [10, 11, 12, 13, 14, 15];
        let value = [0.0, 0.0, 0.0, 5.0, 0.0, 1.0];
        assert_eq!(
            considered_with_captures(&ranked, &value, 3, 0),
            [10, 11, 12]
        );
        assert_eq!(
            considered_with_captures(&ranked, &value, 3, 1),
            [10, 11, 13]
        );
        assert_eq!(
            considered_with_captures(&ranked, &value, 3, 2),
            [10, 13, 15]
        );
        // Never more captures than m, and never fewer moves than m.
        assert_eq!(considered_with_captures(&ranked, &value, 2, 5), [13, 15]);
    }

    #[test]
    fn value_not_rank_picks_the_captures() {
        // The best-ranked capture (1) is worth less than a lower-ranked one (4).
        let ranked = [1, 2, 3, 4];
        let value = [0.5, 0.0, 0.0, 9.0];
        assert_eq!(considered_with_captures(&ranked, &value, 2, 1), [1, 4]);
        assert_eq!(considered_with_captures(&ranked, &value, 2, 2), [1, 4]);
        assert_eq!(considered_with_captures(&ranked, &value, 3, 1), [1, 2, 4]);
        // Fewer moves than m: all of them.
        assert_eq!(
            considered_with_captures(&ranked, &value, 9, 2),
            [1, 2, 3, 4]
        );
    }

    #[test]
    fn threat_answers_come_after_the_captures_and_skip_moves_already_chosen() {
        let ranked = [10, 11, 12, 13, 14, 15];
        let capture = [0.0, 0.0, 0.0, 5.0, 0.0, 1.0];
        // 14 saves a general (20), 13 (already a capture candidate) a chariot.
        let evasion = [0.0, 0.0, 0.0, 5.0, 20.0, 0.0];
        assert_eq!(
            considered_with_forced(&ranked, &[(&capture, 1), (&evasion, 1)], 4),
            [10, 11, 13, 14]
        );
        // The answer replaces the lowest-ranked ordinary move, not a capture.
        assert_eq!(
            considered_with_forced(&ranked, &[(&capture, 2), (&evasion, 1)], 3),
            [13, 14, 15]
        );
        // The capture already chosen is not chosen twice: the next answer is taken.
        assert_eq!(
            considered_with_forced(&ranked, &[(&capture, 1), (&evasion, 2)], 3),
            [10, 13, 14]
        );
        // No threat (an empty slice): the prior fills the slot.
        assert_eq!(
            considered_with_forced(&ranked, &[(&capture, 1), (&[], 1)], 3),
            [10, 11, 13]
        );
    }
}
