//! The PUCT policy (AlphaZero): PUCT with first-play urgency at every node, Dirichlet noise on
//! the root's priors, the visit distribution as the target and a move sampled from the visits
//! with a temperature. The selection formula and the noise live in [`selection`].

pub mod selection;

use self::selection::{noisy_priors, select};
use super::{InteriorPolicy, RootDecision, RootPolicy};
use crate::child_stats::{self, ChildStats};
use crate::config::PuctConfig;
use crate::game::SearchGame;
use crate::temperature::choose_with_temperature;
use crate::tree::{NodeId, Tree, ROOT};
use crate::wdl::Wdl;
use rand_chacha::ChaCha8Rng;

/// The root of one PUCT search: its noisy priors.
pub struct PuctRoot {
    config: PuctConfig,
    noisy_priors: Vec<f32>,
    stats: Vec<ChildStats>,
}

impl PuctRoot {
    /// Draws this search's Dirichlet noise over the root's priors.
    pub fn plan<M: Copy>(config: &PuctConfig, tree: &Tree<M>, rng: &mut ChaCha8Rng) -> PuctRoot {
        let priors: Vec<f32> = tree.edges_of(ROOT).iter().map(|e| e.prior).collect();
        PuctRoot {
            config: config.clone(),
            noisy_priors: noisy_priors(config, &priors, rng),
            stats: Vec::new(),
        }
    }
}

impl<M: Copy> RootPolicy<M> for PuctRoot {
    fn select(&mut self, tree: &Tree<M>, _simulation: u32) -> usize {
        let fpu = self.config.fpu_reduction_root;
        let priors = Some(self.noisy_priors.as_slice());
        select_at(&self.config, tree, ROOT, fpu, priors, &mut self.stats)
    }

    /// Visit shares as the target (the prior before any visit); the move sampled with the
    /// temperature.
    fn decide(&mut self, tree: &Tree<M>, rng: &mut ChaCha8Rng) -> RootDecision {
        child_stats::gather(tree, ROOT, &mut self.stats);
        let visits: Vec<u32> = self.stats.iter().map(|c| c.visits).collect();
        let prior: Vec<f32> = tree.edges_of(ROOT).iter().map(|e| e.prior).collect();
        let total: u32 = visits.iter().sum();
        let chosen = choose_with_temperature(&visits, &prior, self.config.temperature, rng);
        let policy = if total == 0 {
            prior
        } else {
            visits.iter().map(|&n| n as f32 / total as f32).collect()
        };
        RootDecision { chosen, policy }
    }
}

/// PUCT below the root, with the stored priors.
pub struct PuctInterior {
    config: PuctConfig,
    stats: Vec<ChildStats>,
}

impl PuctInterior {
    pub fn new(config: PuctConfig) -> PuctInterior {
        PuctInterior {
            config,
            stats: Vec::new(),
        }
    }
}

impl<G: SearchGame> InteriorPolicy<G> for PuctInterior {
    fn select(&mut self, tree: &Tree<G::Move>, _game: &G, node: NodeId) -> usize {
        let fpu = self.config.fpu_reduction;
        select_at(&self.config, tree, node, fpu, None, &mut self.stats)
    }
}

/// PUCT at `node` with its (effective) visits and mean value as the parent's.
fn select_at<M: Copy>(
    config: &PuctConfig,
    tree: &Tree<M>,
    node: NodeId,
    fpu_reduction: f32,
    priors: Option<&[f32]>,
    stats: &mut Vec<ChildStats>,
) -> usize {
    child_stats::gather(tree, node, stats);
    let n = tree.node(node);
    let q = n.mean_wdl().map_or(0.0, Wdl::scalar);
    select(
        config,
        n.visits + n.in_flight,
        q,
        fpu_reduction,
        stats,
        priors,
    )
}
