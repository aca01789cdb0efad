//! What a finished search reports: the move to play and the data a replay record needs.

use crate::config::Algorithm;
use crate::wdl::Wdl;

/// The outcome of one search from one root position.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The move chosen (Gumbel: best of the most-visited considered moves; PUCT: sampled from
    /// visit counts with the configured temperature).
    pub chosen_move: M,
    /// The root's legal moves in generation order; the vectors below follow this order.
    pub moves: Vec<M>,
    /// Policy training target over `moves`, a proper distribution (Gumbel: the completed-Q
    /// improved policy; PUCT: visit-count shares).
    pub policy: Vec<f32>,
    /// Visits of each root child (including visits kept from a reused tree).
    pub visit_counts: Vec<u32>,
    /// The network's prior over `moves` (normalised; without noise), for diagnostics and
    /// surprise weighting.
    pub prior: Vec<f32>,
    /// Mean backed-up value at the root, side to move's view.
    pub root_wdl: Wdl,
    /// The evaluator's own value of the root position.
    pub raw_wdl: Wdl,
    /// Simulations run by this search (not counting the root's own evaluation).
    pub simulations: u32,
    pub algorithm: Algorithm,
}

impl<M> SearchResult<M> {
    /// Expected score of the root for the side to move, in [-1, 1].
    pub fn root_value(&self) -> f32 {
        self.root_wdl.scalar()
    }
}
