//! What selection rules see of a node's children: prior, effective visits and Q.
//!
//! Q is from the point of view of the side choosing among the children (the parent's side to
//! move). Descents still waiting for their leaf's evaluation count as visits that lost
//! (virtual loss), which steers further descents of the same tree elsewhere; with one leaf per
//! tree in flight they are always zero at selection time.

use crate::tree::NodeId;
use crate::tree::{Tree, NO_NODE};

/// One child as seen by a selection rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildStats {
    pub prior: f32,
    /// Completed plus in-flight visits.
    pub visits: u32,
    /// Mean value for the chooser; meaningless when `visits == 0`.
    pub q: f32,
}

/// Fills `out` with the stats of `node`'s children, in edge order.
pub fn gather<M: Copy>(tree: &Tree<M>, node: NodeId, out: &mut Vec<ChildStats>) {
    out.clear();
    out.extend(tree.edges_of(node).iter().map(|edge| {
        if edge.child == NO_NODE {
            return ChildStats {
                prior: edge.prior,
                visits: 0,
                q: 0.0,
            };
        }
        let child = tree.node(edge.child);
        let visits = child.visits + child.in_flight;
        let q = if visits == 0 {
            0.0
        } else {
            // The child's values are from its side to move: negate; in-flight visits count as
            // wins for the child's side (a loss for the chooser).
            (-child.value_sum.scalar() - child.in_flight as f32) / visits as f32
        };
        ChildStats {
            prior: edge.prior,
            visits,
            q,
        }
    }));
}
