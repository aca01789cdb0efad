//! The search tree: nodes and edges in two flat arenas.
//!
//! A node is allocated only when the search first steps into it; an expanded node owns a
//! contiguous run of edges (one per legal move: the move, its normalised prior and the child
//! index). Storing the moves lets a descent replay them without generating moves again; the
//! arenas make the tree cheap to drop, easy to bound (node and edge budgets from the config)
//! and easy to measure: an expanded node with k legal moves costs
//! `size_of::<Node>() + k * size_of::<Edge<M>>()` bytes (see [`Tree::bytes_per_expanded_node`]).
//!
//! Value statistics are kept from the point of view of the side to move at the node.

use crate::wdl::Wdl;

/// Index of a node in its tree's arena.
pub type NodeId = u32;
/// Marks an edge whose child has not been created yet.
pub const NO_NODE: NodeId = u32::MAX;

/// Where a node is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Created, never evaluated.
    Unexpanded,
    /// Waiting for the evaluator (a second descent reaching it is a collision).
    Pending,
    /// Evaluated; its edges exist.
    Expanded,
    /// The game is over here; its value is exact.
    Terminal,
}

/// One position in the tree.
#[derive(Clone, Debug)]
pub struct Node {
    /// Completed visits (backed-up values).
    pub visits: u32,
    /// Descents through this node whose leaf is still being evaluated (virtual visits).
    pub in_flight: u32,
    /// Sum of backed-up values, side to move's view.
    pub value_sum: Wdl,
    /// The evaluator's value (or the exact value of a terminal node), side to move's view.
    pub raw_value: Wdl,
    pub first_edge: u32,
    pub num_edges: u32,
    pub state: NodeState,
}

impl Node {
    fn new() -> Node {
        Node {
            visits: 0,
            in_flight: 0,
            value_sum: Wdl::ZERO,
            raw_value: Wdl::ZERO,
            first_edge: 0,
            num_edges: 0,
            state: NodeState::Unexpanded,
        }
    }

    /// Mean backed-up value (side to move's view); `None` before the first visit.
    pub fn mean_wdl(&self) -> Option<Wdl> {
        (self.visits > 0).then(|| self.value_sum.scale(1.0 / self.visits as f32))
    }
}

/// One legal move of an expanded node.
#[derive(Clone, Copy, Debug)]
pub struct Edge<M> {
    pub mv: M,
    /// Normalised prior probability from the evaluator.
    pub prior: f32,
    pub child: NodeId,
}

/// The arenas of one tree. Node 0 is always the root.
#[derive(Debug)]
pub struct Tree<M> {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge<M>>,
    max_nodes: usize,
    max_edges: usize,
}

/// Why the tree could not grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetExhausted;

pub const ROOT: NodeId = 0;

impl<M: Copy> Tree<M> {
    pub fn new(max_nodes: u32, max_edges: u32) -> Tree<M> {
        let mut tree = Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            max_nodes: (max_nodes as usize).max(1),
            max_edges: max_edges as usize,
        };
        tree.nodes.push(Node::new());
        tree
    }

    /// Bytes one expanded node with `num_moves` legal moves occupies in the arenas.
    pub fn bytes_per_expanded_node(num_moves: usize) -> usize {
        std::mem::size_of::<Node>() + num_moves * std::mem::size_of::<Edge<M>>()
    }

    /// Bytes reserved by the arenas right now.
    pub fn allocated_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.edges.capacity() * std::mem::size_of::<Edge<M>>()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    pub fn edges_of(&self, id: NodeId) -> &[Edge<M>] {
        let node = self.node(id);
        &self.edges[node.first_edge as usize..(node.first_edge + node.num_edges) as usize]
    }

    pub fn edge_index(&self, id: NodeId, i: usize) -> usize {
        self.node(id).first_edge as usize + i
    }

    /// The child of edge `i` of `id`, created on first use.
    pub fn child_or_create(&mut self, id: NodeId, i: usize) -> Result<NodeId, BudgetExhausted> {
        let e = self.edge_index(id, i);
        if self.edges[e].child != NO_NODE {
            return Ok(self.edges[e].child);
        }
        if self.nodes.len() >= self.max_nodes {
            return Err(BudgetExhausted);
        }
        let child = self.nodes.len() as NodeId;
        if self.nodes.len() == self.nodes.capacity() {
            let target = (2 * self.nodes.capacity()).max(16).min(self.max_nodes);
            self.nodes.reserve_exact(target - self.nodes.len());
        }
        self.nodes.push(Node::new());
        self.edges[e].child = child;
        Ok(child)
    }

    /// Whether `n` more edges fit in the budget.
    pub fn has_room_for_edges(&self, n: usize) -> bool {
        self.edges.len() + n <= self.max_edges
    }

    /// Grows the edge arena geometrically but never past the budget, so the memory a tree
    /// holds is bounded by `max_edges` edges, not by twice that.
    fn reserve_edges(&mut self, extra: usize) {
        let needed = self.edges.len() + extra;
        if needed > self.edges.capacity() {
            let target = needed
                .max(2 * self.edges.capacity())
                .min(self.max_edges.max(needed));
            self.edges.reserve_exact(target - self.edges.len());
        }
    }

    /// Gives node `id` one edge per move, priors normalised to sum to 1 (uniform when the
    /// evaluator gave no usable mass).
    pub fn expand(&mut self, id: NodeId, moves: &[M], priors: &[f32], value: Wdl) {
        debug_assert_eq!(moves.len(), priors.len());
        let clean = |p: f32| if p.is_finite() && p > 0.0 { p } else { 0.0 };
        let total: f32 = priors.iter().map(|&p| clean(p)).sum();
        let uniform = 1.0 / moves.len().max(1) as f32;
        let first = self.edges.len() as u32;
        self.reserve_edges(moves.len());
        self.edges
            .extend(moves.iter().zip(priors).map(|(&mv, &p)| Edge {
                mv,
                prior: if total > 0.0 {
                    clean(p) / total
                } else {
                    uniform
                },
                child: NO_NODE,
            }));
        let node = self.node_mut(id);
        node.first_edge = first;
        node.num_edges = moves.len() as u32;
        node.raw_value = value;
        node.state = NodeState::Expanded;
    }

    /// Replaces the priors of `id`'s edges (already normalised, one per edge).
    pub fn set_priors(&mut self, id: NodeId, priors: &[f32]) {
        let node = self.node(id);
        let range = node.first_edge as usize..(node.first_edge + node.num_edges) as usize;
        debug_assert_eq!(range.len(), priors.len());
        for (edge, &p) in self.edges[range].iter_mut().zip(priors) {
            edge.prior = p;
        }
    }

    /// Makes the child reached by edge `i` of the root the new root, keeping its subtree and
    /// dropping everything else (copied into fresh arenas so memory stays bounded). Returns
    /// false (and leaves an empty root) when the child was never created.
    pub fn promote_child(&mut self, i: usize) -> bool {
        let child = self.edges_of(ROOT).get(i).map_or(NO_NODE, |e| e.child);
        let mut fresh = Tree::new(self.max_nodes as u32, self.max_edges as u32);
        if child == NO_NODE {
            *self = fresh;
            return false;
        }
        // Depth-first copy; `pairs` maps old node -> new node for nodes whose edges are pending.
        fresh.nodes[0] = self.node(child).clone();
        let mut stack = vec![(child, ROOT)];
        while let Some((old, new)) = stack.pop() {
            let old_node = self.node(old).clone();
            let first = fresh.edges.len() as u32;
            for e in self.edges_of(old) {
                let mut copy = *e;
                if e.child != NO_NODE {
                    let id = fresh.nodes.len() as NodeId;
                    fresh.nodes.push(self.node(e.child).clone());
                    copy.child = id;
                    stack.push((e.child, id));
                }
                fresh.edges.push(copy);
            }
            let node = fresh.node_mut(new);
            node.first_edge = first;
            node.num_edges = old_node.num_edges;
        }
        *self = fresh;
        true
    }

    /// Nodes currently in the arena.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_normalises_priors_and_falls_back_to_uniform() {
        let mut tree: Tree<u8> = Tree::new(10, 100);
        tree.expand(ROOT, &[1, 2, 3], &[2.0, 6.0, 0.0], Wdl::DRAW);
        let priors: Vec<f32> = tree.edges_of(ROOT).iter().map(|e| e.prior).collect();
        assert_eq!(priors, [0.25, 0.75, 0.0]);
        let c = tree.child_or_create(ROOT, 0).unwrap();
        tree.expand(c, &[7, 8], &[f32::NAN, -1.0], Wdl::DRAW);
        let priors: Vec<f32> = tree.edges_of(c).iter().map(|e| e.prior).collect();
        assert_eq!(priors, [0.5, 0.5]);
    }

    #[test]
    fn node_budget_is_enforced() {
        let mut tree: Tree<u8> = Tree::new(2, 100);
        tree.expand(ROOT, &[1, 2], &[1.0, 1.0], Wdl::DRAW);
        assert!(tree.child_or_create(ROOT, 0).is_ok());
        assert_eq!(tree.child_or_create(ROOT, 1), Err(BudgetExhausted));
        assert!(!tree.has_room_for_edges(99));
    }

    #[test]
    fn promote_child_keeps_exactly_the_subtree() {
        let mut tree: Tree<u8> = Tree::new(100, 100);
        tree.expand(ROOT, &[1, 2], &[1.0, 1.0], Wdl::DRAW);
        let a = tree.child_or_create(ROOT, 0).unwrap();
        let b = tree.child_or_create(ROOT, 1).unwrap();
        tree.expand(a, &[10, 11, 12], &[1.0, 2.0, 1.0], Wdl::WIN);
        tree.node_mut(a).visits = 5;
        let a1 = tree.child_or_create(a, 1).unwrap();
        tree.expand(a1, &[20], &[1.0], Wdl::LOSS);
        tree.node_mut(a1).visits = 3;
        tree.expand(b, &[30], &[1.0], Wdl::DRAW);
        assert!(tree.promote_child(0));
        assert_eq!(tree.num_nodes(), 2);
        assert_eq!(tree.node(ROOT).visits, 5);
        let moves: Vec<u8> = tree.edges_of(ROOT).iter().map(|e| e.mv).collect();
        assert_eq!(moves, [10, 11, 12]);
        let child = tree.edges_of(ROOT)[1].child;
        assert_eq!(tree.node(child).visits, 3);
        assert_eq!(tree.edges_of(child)[0].mv, 20);
        assert_eq!(tree.edges.len(), 4);
        assert!(!tree.promote_child(0));
        assert_eq!(tree.num_nodes(), 1);
        assert_eq!(tree.node(ROOT).state, NodeState::Unexpanded);
    }
}
