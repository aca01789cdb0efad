//! The algorithm half of a search: how the root and the nodes below it choose, and what the
//! root reports at the end.
//!
//! [`crate::search`] descends, expands and backs up without knowing the algorithm, the way
//! `mctx`'s `search` takes a root and an interior action-selection function. The two
//! algorithms of [`Algorithm`] are composed here, once, from their parts:
//! * Gumbel ([`gumbel`]): Gumbel-top-k picks m root moves, sequential halving spreads the
//!   simulations over them, nodes below the root select deterministically toward the improved
//!   policy; the policy target is the completed-Q improved policy.
//! * PUCT ([`puct`]): Dirichlet noise on the root priors, PUCT with first-play urgency
//!   everywhere; the policy target is the visit distribution and the move is sampled with a
//!   temperature.
//!
//! A [`RootPolicy`] is the root's state for one search (Gumbel samples and halving schedule,
//! or noisy priors): it is planned afresh for every search once the root has edges. An
//! [`InteriorPolicy`] lives as long as the search's configuration and keeps only scratch space.
//!
//! Each policy's folder holds its arithmetic as pure functions beside it (Gumbel's completed Q
//! and improved policy, sequential halving; PUCT's selection and noise); [`temperature`] is the
//! sampler PUCT and self-play share.

pub mod gumbel;
pub mod puct;
pub mod temperature;

use crate::config::{Algorithm, SearchConfig};
use crate::game::SearchGame;
use crate::tree::{NodeId, Tree};
use rand_chacha::ChaCha8Rng;

/// What the root policy makes of a finished search (`mctx`: `action`, `action_weights`).
#[derive(Clone, Debug, PartialEq)]
pub struct RootDecision {
    /// Index of the root edge to play.
    pub chosen: usize,
    /// Policy training target over the root's edges, a proper distribution.
    pub policy: Vec<f32>,
}

/// Chooses at the root of one search and turns the searched root into a move and a target.
pub trait RootPolicy<M>: Send {
    /// The root edge that simulation number `simulation` (of this search, from 0) takes.
    fn select(&mut self, tree: &Tree<M>, simulation: u32) -> usize;
    /// A simulation of this search went through root edge `edge` (its leaf may still be
    /// waiting for the evaluator).
    fn visited(&mut self, _edge: usize) {}
    /// The move to play and the policy target, from the root's children now.
    fn decide(&mut self, tree: &Tree<M>, rng: &mut ChaCha8Rng) -> RootDecision;
}

/// Chooses at an expanded node below the root.
pub trait InteriorPolicy<G: SearchGame>: Send {
    /// The edge a descent takes at `node`; `game` is in `node`'s position.
    fn select(&mut self, tree: &Tree<G::Move>, game: &G, node: NodeId) -> usize;
}

/// The interior policy of `config`'s algorithm.
pub fn interior_policy<G: SearchGame>(config: &SearchConfig) -> Box<dyn InteriorPolicy<G>> {
    match config.algorithm {
        Algorithm::Gumbel => Box::new(gumbel::GumbelInterior::new(config.gumbel.clone())),
        Algorithm::Puct => Box::new(puct::PuctInterior::new(config.puct.clone())),
    }
}

/// Plans the root of one search of `config`'s algorithm; the root of `tree` must have edges
/// and `game` be in its position. May change the root's priors (Gumbel without root passes).
pub fn plan_root<G: SearchGame>(
    config: &SearchConfig,
    tree: &mut Tree<G::Move>,
    game: &G,
    rng: &mut ChaCha8Rng,
) -> Box<dyn RootPolicy<G::Move>> {
    match config.algorithm {
        Algorithm::Gumbel => Box::new(gumbel::GumbelRoot::plan(
            &config.gumbel,
            config.simulations,
            tree,
            game,
            rng,
        )),
        Algorithm::Puct => Box::new(puct::PuctRoot::plan(&config.puct, tree, rng)),
    }
}
