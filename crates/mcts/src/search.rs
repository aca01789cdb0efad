//! One resumable search over one tree.
//!
//! A [`Search`] owns a game (played forward and taken back during descents), its tree and its
//! random stream. It never calls an evaluator itself: [`Search::collect`] walks down to leaves
//! and hands their positions to the caller (normally the [`crate::driver::SearchDriver`], which
//! batches the leaves of many searches), and [`Search::apply`] takes the answers back. Leaves
//! that need no network (terminal positions, valued exactly; evaluation-cache hits) are backed
//! up on the spot. That split is what lets one driver keep many trees and the evaluator busy.
//!
//! Root algorithms (config [`Algorithm`]):
//! * Gumbel: Gumbel-top-k picks m root moves, sequential halving spreads the n simulations over
//!   them ([`crate::sequential_halving`]), non-root nodes select deterministically toward the
//!   improved policy ([`crate::gumbel`]); the policy target is the completed-Q improved policy.
//! * PUCT: Dirichlet noise on the root priors, PUCT with first-play urgency everywhere, the
//!   policy target is the visit distribution and the move is sampled with a temperature.
//!
//! Tree reuse ([`Search::advance`]): the played child's subtree becomes the new tree. Its
//! statistics keep informing Q, completed Q and the visit counts reported, but per-search
//! root state starts afresh at every [`Search::start`]: new Dirichlet noise (PUCT), new Gumbel
//! samples and a new halving schedule counted over this search's own simulations (Gumbel).
//! A search always runs `simulations` new simulations (the root's first evaluation is extra
//! and counted separately, as in `mctx`).
//!
//! Virtual loss: with `leaves_per_tree > 1` a tree sends several leaves per batch; visits on
//! their way count as losses for the side choosing them until the answer arrives, and a
//! descent that runs into a leaf still waiting is a collision that ends this tree's share of
//! the batch.

use crate::cache::EvalCache;
use crate::child_stats::{self, ChildStats};
use crate::config::{Algorithm, SearchConfig};
use crate::evaluator::{EvalRequest, Evaluation};
use crate::game::{SearchGame, Terminal};
use crate::result::SearchResult;
use crate::sequential_halving::considered_visit_sequence;
use crate::tree::{NodeId, NodeState, Tree, ROOT};
use crate::wdl::Wdl;
use crate::{gumbel, puct};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gumbel as GumbelDistribution};

/// Errors a search reports to its caller.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SearchError {
    #[error("the game is already over; there is nothing to search")]
    GameOver,
    #[error("leaves of this search are still being evaluated")]
    Busy,
    #[error("the move is not legal in the root position")]
    IllegalMove,
    #[error("the search has no result: it was not run or the tree budget cannot hold the root")]
    NoResult,
}

/// Where a search is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not started (or the previous result was consumed by a move).
    Idle,
    Running,
    /// The budget is spent; [`Search::result`] is available.
    Finished,
}

/// Counters of what the search's leaves needed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafCounters {
    /// Leaves sent to the evaluator.
    pub requested: u64,
    /// Leaves answered by the evaluation cache.
    pub cache_hits: u64,
    /// Leaves valued exactly because the game was over there.
    pub terminal: u64,
    /// Descents that ran into a leaf already waiting for evaluation.
    pub collisions: u64,
}

/// A leaf handed to the evaluator, identifying where its answer belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    pub search: u32,
    pub slot: u32,
    pub hash: u64,
}

/// A batch under construction: requests plus where each answer goes. Move vectors of answered
/// requests are recycled through `spare_moves`.
pub struct Batch<G: SearchGame> {
    pub requests: Vec<EvalRequest<G>>,
    pub tickets: Vec<Ticket>,
    pub spare_moves: Vec<Vec<G::Move>>,
}

impl<G: SearchGame> Default for Batch<G> {
    fn default() -> Self {
        Batch {
            requests: Vec::new(),
            tickets: Vec::new(),
            spare_moves: Vec::new(),
        }
    }
}

impl<G: SearchGame> Batch<G> {
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Empties the batch, keeping the move vectors for reuse.
    pub fn recycle(&mut self) {
        for request in self.requests.drain(..) {
            self.spare_moves.push(request.moves);
        }
        self.tickets.clear();
    }
}

struct PendingLeaf {
    path: Vec<NodeId>,
}

/// Per-search root data, set up once the root is expanded.
enum RootPlan {
    NotReady,
    Gumbel {
        /// g(a) + logit(a) for every root move.
        perturbed_logits: Vec<f32>,
        /// The m moves chosen by Gumbel-top-k.
        considered: Vec<usize>,
        /// Visit count the next simulation's move must have (sequential halving).
        schedule: Vec<u32>,
        /// Visits (including in-flight) given to each root move by this search.
        search_visits: Vec<u32>,
    },
    Puct {
        noisy_priors: Vec<f32>,
    },
}

enum Leaf<G: SearchGame> {
    /// Valued without the evaluator: (value, was terminal).
    Valued(Wdl, bool),
    Request {
        position: G::Position,
        moves: Vec<G::Move>,
        hash: u64,
    },
    Collision,
    Exhausted,
}

/// A resumable search over one tree (see the module docs).
pub struct Search<G: SearchGame> {
    game: G,
    config: SearchConfig,
    tree: Tree<G::Move>,
    rng: ChaCha8Rng,
    phase: Phase,
    /// Simulations started by this search (in flight or done), not counting the root's own
    /// evaluation.
    started: u32,
    exhausted: bool,
    plan: RootPlan,
    pending: Vec<Option<PendingLeaf>>,
    free_slots: Vec<u32>,
    in_flight_leaves: u32,
    counters: LeafCounters,
    scratch_moves: Vec<G::Move>,
    scratch_stats: Vec<ChildStats>,
    scratch_sigma: Vec<f32>,
    scratch_policy: Vec<f32>,
}

impl<G: SearchGame> Search<G> {
    /// A search over `game`'s current position; `seed` fixes all its randomness.
    pub fn new(game: G, config: SearchConfig, seed: u64) -> Search<G> {
        let tree = Tree::new(config.max_nodes, config.max_edges);
        Search {
            game,
            config,
            tree,
            rng: ChaCha8Rng::seed_from_u64(seed),
            phase: Phase::Idle,
            started: 0,
            exhausted: false,
            plan: RootPlan::NotReady,
            pending: Vec::new(),
            free_slots: Vec::new(),
            in_flight_leaves: 0,
            counters: LeafCounters::default(),
            scratch_moves: Vec::new(),
            scratch_stats: Vec::new(),
            scratch_sigma: Vec::new(),
            scratch_policy: Vec::new(),
        }
    }

    pub fn game(&self) -> &G {
        &self.game
    }

    pub fn into_game(self) -> G {
        self.game
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the configuration for the next [`Search::start`] (e.g. a temperature schedule).
    pub fn config_mut(&mut self) -> &mut SearchConfig {
        &mut self.config
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn counters(&self) -> LeafCounters {
        self.counters
    }

    pub fn tree(&self) -> &Tree<G::Move> {
        &self.tree
    }

    /// Leaves of this search waiting for the evaluator.
    pub fn in_flight(&self) -> u32 {
        self.in_flight_leaves
    }

    /// Begins a search from the game's current position (keeping a reused subtree).
    pub fn start(&mut self) -> Result<(), SearchError> {
        if self.in_flight_leaves > 0 {
            return Err(SearchError::Busy);
        }
        if self.game.terminal().is_some() {
            return Err(SearchError::GameOver);
        }
        self.started = 0;
        self.exhausted = false;
        self.plan = RootPlan::NotReady;
        self.phase = Phase::Running;
        if self.root_ready() {
            self.plan_root();
        }
        Ok(())
    }

    /// Plays `mv` in the game and moves the root to it, keeping its subtree if configured.
    pub fn advance(&mut self, mv: G::Move) -> Result<(), SearchError> {
        if self.in_flight_leaves > 0 {
            return Err(SearchError::Busy);
        }
        let edge = if self.root_ready() {
            let i = self.tree.edges_of(ROOT).iter().position(|e| e.mv == mv);
            Some(i.ok_or(SearchError::IllegalMove)?)
        } else {
            self.scratch_moves.clear();
            self.game.legal_moves(&mut self.scratch_moves);
            if !self.scratch_moves.contains(&mv) {
                return Err(SearchError::IllegalMove);
            }
            None
        };
        self.game.play(mv);
        match edge {
            Some(i) if self.config.reuse_tree => {
                self.tree.promote_child(i);
            }
            _ => self.tree = Tree::new(self.config.max_nodes, self.config.max_edges),
        }
        self.phase = Phase::Idle;
        self.plan = RootPlan::NotReady;
        Ok(())
    }

    fn root_ready(&self) -> bool {
        self.tree.node(ROOT).state == NodeState::Expanded
    }

    fn update_finished(&mut self) {
        if self.phase == Phase::Running
            && self.in_flight_leaves == 0
            && (self.exhausted || (self.root_ready() && self.started >= self.config.simulations))
        {
            self.phase = Phase::Finished;
        }
    }

    /// Descends to up to `leaves_per_tree` leaves, adding those that need the evaluator to
    /// `batch` (tagged with `search_index`). Returns how many were added.
    pub fn collect(
        &mut self,
        search_index: u32,
        cache: &mut EvalCache,
        batch: &mut Batch<G>,
    ) -> usize {
        let mut added = 0;
        while self.phase == Phase::Running
            && !self.exhausted
            && added < self.config.leaves_per_tree.max(1) as usize
            && !(self.root_ready() && self.started >= self.config.simulations)
        {
            match self.descend(search_index, cache, batch) {
                Some(true) => added += 1,
                Some(false) => {}
                None => break,
            }
        }
        self.update_finished();
        added
    }

    /// One descent. Some(true): a leaf went to the batch; Some(false): valued on the spot;
    /// None: nothing more can be done until answers arrive (collision) or ever (budget).
    fn descend(
        &mut self,
        search_index: u32,
        cache: &mut EvalCache,
        batch: &mut Batch<G>,
    ) -> Option<bool> {
        let mut path = vec![ROOT];
        let mut node = ROOT;
        let mut plies = 0;
        let mut root_edge = None;
        let leaf = loop {
            match self.tree.node(node).state {
                NodeState::Terminal => break Leaf::Valued(self.tree.node(node).raw_value, true),
                NodeState::Pending => break Leaf::Collision,
                NodeState::Expanded => {
                    let i = if node == ROOT {
                        self.select_root()
                    } else {
                        self.select_interior(node)
                    };
                    if node == ROOT {
                        root_edge = Some(i);
                    }
                    let mv = self.tree.edges_of(node)[i].mv;
                    let Ok(child) = self.tree.child_or_create(node, i) else {
                        break Leaf::Exhausted;
                    };
                    self.game.play(mv);
                    plies += 1;
                    path.push(child);
                    node = child;
                }
                NodeState::Unexpanded => break self.reach_leaf(node, cache, batch),
            }
        };
        for _ in 0..plies {
            self.game.undo();
        }
        let is_simulation = node != ROOT;
        let added = match leaf {
            Leaf::Collision => {
                self.counters.collisions += 1;
                return None;
            }
            Leaf::Exhausted => {
                self.exhausted = true;
                return None;
            }
            Leaf::Valued(value, terminal) => {
                if terminal {
                    self.counters.terminal += 1;
                } else {
                    self.counters.cache_hits += 1;
                }
                self.backup(&path, value, false);
                false
            }
            Leaf::Request {
                position,
                moves,
                hash,
            } => {
                for &id in &path {
                    self.tree.node_mut(id).in_flight += 1;
                }
                let slot = match self.free_slots.pop() {
                    Some(slot) => slot,
                    None => {
                        self.pending.push(None);
                        (self.pending.len() - 1) as u32
                    }
                };
                self.pending[slot as usize] = Some(PendingLeaf { path });
                self.in_flight_leaves += 1;
                self.counters.requested += 1;
                batch.requests.push(EvalRequest { position, moves });
                batch.tickets.push(Ticket {
                    search: search_index,
                    slot,
                    hash,
                });
                true
            }
        };
        if is_simulation {
            self.started += 1;
            if let (RootPlan::Gumbel { search_visits, .. }, Some(i)) = (&mut self.plan, root_edge) {
                search_visits[i] += 1;
            }
        } else if self.root_ready() {
            self.plan_root();
        }
        Some(added)
    }

    /// Decides what a newly reached node needs: an exact value, a cached evaluation or the
    /// evaluator. Called with the game in the node's position.
    fn reach_leaf(&mut self, node: NodeId, cache: &mut EvalCache, batch: &mut Batch<G>) -> Leaf<G> {
        if let Some(terminal) = self.game.terminal() {
            return self.mark_terminal(node, terminal);
        }
        let mut moves = batch.spare_moves.pop().unwrap_or_default();
        moves.clear();
        self.game.legal_moves(&mut moves);
        if moves.is_empty() {
            // Rules (KS-default, §10.7): a side with no legal move loses.
            batch.spare_moves.push(moves);
            return self.mark_terminal(node, Terminal::Loss);
        }
        if !self.tree.has_room_for_edges(moves.len()) {
            batch.spare_moves.push(moves);
            return Leaf::Exhausted;
        }
        let hash = self.game.position_hash();
        if let Some((priors, wdl)) = cache.get(hash, moves.len()) {
            self.tree.expand(node, &moves, priors, wdl);
            batch.spare_moves.push(moves);
            return Leaf::Valued(wdl, false);
        }
        self.tree.node_mut(node).state = NodeState::Pending;
        Leaf::Request {
            position: self.game.position(),
            moves,
            hash,
        }
    }

    fn mark_terminal(&mut self, node: NodeId, terminal: Terminal) -> Leaf<G> {
        let n = self.tree.node_mut(node);
        n.state = NodeState::Terminal;
        n.raw_value = terminal.wdl();
        Leaf::Valued(n.raw_value, true)
    }

    /// Adds `value` (leaf side to move's view) to every node of `path`, flipping at each ply.
    fn backup(&mut self, path: &[NodeId], value: Wdl, was_in_flight: bool) {
        let mut value = value;
        for &id in path.iter().rev() {
            let node = self.tree.node_mut(id);
            node.visits += 1;
            node.value_sum = node.value_sum + value;
            if was_in_flight {
                node.in_flight -= 1;
            }
            value = value.flip();
        }
    }

    /// Takes the evaluator's answer for the leaf in `slot`: expands it with `moves` (the
    /// request's moves) and backs up its value.
    pub fn apply(&mut self, slot: u32, moves: &[G::Move], evaluation: &Evaluation) {
        let leaf = self.pending[slot as usize]
            .take()
            .expect("answer for a leaf that is not pending");
        self.free_slots.push(slot);
        self.in_flight_leaves -= 1;
        let node = *leaf.path.last().expect("paths start at the root");
        self.tree
            .expand(node, moves, &evaluation.priors, evaluation.wdl);
        self.backup(&leaf.path, evaluation.wdl, true);
        if node == ROOT {
            self.plan_root();
        }
        self.update_finished();
    }

    /// `priors` (one per root edge) with every pass's mass removed and the rest renormalised
    /// (`GumbelConfig::root_passes = false`); `None` when there is no pass, or nothing but
    /// passes, to remove.
    fn priors_without_passes(&self, priors: &[f32]) -> Option<Vec<f32>> {
        let passes: Vec<bool> = self
            .tree
            .edges_of(ROOT)
            .iter()
            .map(|edge| self.game.is_pass(&edge.mv))
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

    /// Per-search root setup once the root has edges: Gumbel-top-k and the halving schedule,
    /// or PUCT's noisy priors.
    fn plan_root(&mut self) {
        let mut priors: Vec<f32> = self.tree.edges_of(ROOT).iter().map(|e| e.prior).collect();
        if self.config.algorithm == Algorithm::Gumbel && !self.config.gumbel.root_passes {
            // Here rather than at expansion: a reused subtree's root was expanded as an
            // interior node, with its passes' priors.
            if let Some(without) = self.priors_without_passes(&priors) {
                self.tree.set_priors(ROOT, &without);
                priors = without;
            }
        }
        self.plan = match self.config.algorithm {
            Algorithm::Gumbel => {
                let scale = self.config.gumbel.gumbel_scale;
                let gumbel = GumbelDistribution::new(0.0f32, 1.0).expect("valid Gumbel");
                let perturbed_logits: Vec<f32> = priors
                    .iter()
                    .map(|&p| {
                        let g: f32 = gumbel.sample(&mut self.rng);
                        scale * g + gumbel::logit(p)
                    })
                    .collect();
                let m = (self.config.gumbel.max_considered_actions as usize).clamp(1, priors.len());
                let mut order: Vec<usize> = (0..priors.len()).collect();
                order.sort_by(|&a, &b| {
                    perturbed_logits[b]
                        .total_cmp(&perturbed_logits[a])
                        .then(a.cmp(&b))
                });
                let edges = self.tree.edges_of(ROOT);
                let capture_values: Vec<f32> = order
                    .iter()
                    .map(|&a| self.game.capture_value(&edges[a].mv))
                    .collect();
                let evasions = self.config.gumbel.evasion_candidates as usize;
                let mut evasion_values = Vec::new();
                if evasions > 0 {
                    let moves: Vec<G::Move> = order.iter().map(|&a| edges[a].mv).collect();
                    self.game.evasion_values(&moves, &mut evasion_values);
                }
                let order = considered_with_forced(
                    &order,
                    &[
                        (
                            &capture_values,
                            self.config.gumbel.capture_candidates as usize,
                        ),
                        (&evasion_values, evasions),
                    ],
                    m,
                );
                RootPlan::Gumbel {
                    perturbed_logits,
                    considered: order,
                    schedule: considered_visit_sequence(m as u32, self.config.simulations),
                    search_visits: vec![0; priors.len()],
                }
            }
            Algorithm::Puct => RootPlan::Puct {
                noisy_priors: puct::noisy_priors(&self.config.puct, &priors, &mut self.rng),
            },
        };
    }

    /// sigma(completed Q) of `node`'s children into the scratch buffers.
    fn compute_sigma(&mut self, node: NodeId) {
        child_stats::gather(&self.tree, node, &mut self.scratch_stats);
        let raw = self.tree.node(node).raw_value.scalar();
        gumbel::sigma_completed_q(
            &self.config.gumbel,
            raw,
            &self.scratch_stats,
            &mut self.scratch_sigma,
        );
    }

    fn select_root(&mut self) -> usize {
        match self.config.algorithm {
            Algorithm::Gumbel => {
                self.compute_sigma(ROOT);
                let RootPlan::Gumbel {
                    perturbed_logits,
                    considered,
                    schedule,
                    search_visits,
                } = &self.plan
                else {
                    unreachable!("root planned before selection")
                };
                let wanted = schedule
                    .get(self.started as usize)
                    .or(schedule.last())
                    .copied()
                    .unwrap_or(0);
                let score = |a: usize| perturbed_logits[a] + self.scratch_sigma[a];
                let best_with = |visits: u32| {
                    considered
                        .iter()
                        .copied()
                        .filter(|&a| search_visits[a] == visits)
                        .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
                };
                best_with(wanted).unwrap_or_else(|| {
                    // Only reachable when collisions left the schedule behind: take the least
                    // visited considered move.
                    let fewest = considered
                        .iter()
                        .map(|&a| search_visits[a])
                        .min()
                        .unwrap_or(0);
                    best_with(fewest).expect("at least one considered move")
                })
            }
            Algorithm::Puct => {
                child_stats::gather(&self.tree, ROOT, &mut self.scratch_stats);
                let RootPlan::Puct { noisy_priors } = &self.plan else {
                    unreachable!("root planned before selection")
                };
                let root = self.tree.node(ROOT);
                let q = root.mean_wdl().map_or(0.0, Wdl::scalar);
                let c = &self.config.puct;
                puct::select(
                    c,
                    root.visits + root.in_flight,
                    q,
                    c.fpu_reduction_root,
                    &self.scratch_stats,
                    Some(noisy_priors),
                )
            }
        }
    }

    fn select_interior(&mut self, node: NodeId) -> usize {
        match self.config.algorithm {
            Algorithm::Gumbel => {
                if self.config.gumbel.capture_first_reply {
                    if let Some(i) = self.unvisited_best_capture(node) {
                        return i;
                    }
                }
                self.compute_sigma(node);
                gumbel::improved_policy(
                    &self.scratch_stats,
                    &self.scratch_sigma,
                    &mut self.scratch_policy,
                );
                gumbel::select_interior(&self.scratch_stats, &self.scratch_policy)
            }
            Algorithm::Puct => {
                child_stats::gather(&self.tree, node, &mut self.scratch_stats);
                let n = self.tree.node(node);
                let q = n.mean_wdl().map_or(0.0, Wdl::scalar);
                let c = &self.config.puct;
                puct::select(
                    c,
                    n.visits + n.in_flight,
                    q,
                    c.fpu_reduction,
                    &self.scratch_stats,
                    None,
                )
            }
        }
    }

    /// At a node none of whose children has been visited yet, its most valuable capture (the
    /// first such in move order on ties); `None` otherwise. The game is in `node`'s position.
    fn unvisited_best_capture(&self, node: NodeId) -> Option<usize> {
        let n = self.tree.node(node);
        if n.visits + n.in_flight > 1 {
            return None;
        }
        let mut best: Option<(usize, f32)> = None;
        for (i, edge) in self.tree.edges_of(node).iter().enumerate() {
            let value = self.game.capture_value(&edge.mv);
            if value > 0.0 && best.is_none_or(|(_, v)| value > v) {
                best = Some((i, value));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The answer of a finished (or at least root-expanded) search.
    pub fn result(&mut self) -> Result<SearchResult<G::Move>, SearchError> {
        if !self.root_ready() || self.in_flight_leaves > 0 {
            return Err(SearchError::NoResult);
        }
        if matches!(self.plan, RootPlan::NotReady) {
            self.plan_root();
        }
        let edges = self.tree.edges_of(ROOT);
        let moves: Vec<G::Move> = edges.iter().map(|e| e.mv).collect();
        let prior: Vec<f32> = edges.iter().map(|e| e.prior).collect();
        child_stats::gather(&self.tree, ROOT, &mut self.scratch_stats);
        let visit_counts: Vec<u32> = self.scratch_stats.iter().map(|c| c.visits).collect();
        let root = self.tree.node(ROOT);
        let root_wdl = root.mean_wdl().unwrap_or(root.raw_value);
        let raw_wdl = root.raw_value;
        let (chosen, policy) = match self.config.algorithm {
            Algorithm::Gumbel => {
                self.compute_sigma(ROOT);
                let mut policy = Vec::new();
                gumbel::improved_policy(&self.scratch_stats, &self.scratch_sigma, &mut policy);
                let RootPlan::Gumbel {
                    perturbed_logits,
                    considered,
                    search_visits,
                    ..
                } = &self.plan
                else {
                    unreachable!("root planned above")
                };
                let most = considered
                    .iter()
                    .map(|&a| search_visits[a])
                    .max()
                    .unwrap_or(0);
                let score = |a: usize| perturbed_logits[a] + self.scratch_sigma[a];
                let chosen = considered
                    .iter()
                    .copied()
                    .filter(|&a| search_visits[a] == most)
                    .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
                    .expect("at least one considered move");
                (chosen, policy)
            }
            Algorithm::Puct => {
                let total: u32 = visit_counts.iter().sum();
                let policy: Vec<f32> = if total == 0 {
                    prior.clone()
                } else {
                    visit_counts
                        .iter()
                        .map(|&n| n as f32 / total as f32)
                        .collect()
                };
                let chosen = choose_with_temperature(
                    &visit_counts,
                    &prior,
                    self.config.puct.temperature,
                    &mut self.rng,
                );
                (chosen, policy)
            }
        };
        Ok(SearchResult {
            chosen_move: moves[chosen],
            moves,
            policy,
            visit_counts,
            prior,
            root_wdl,
            raw_wdl,
            simulations: self.started,
            algorithm: self.config.algorithm,
        })
    }
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

/// Samples a move with probability proportional to N^(1/T); T = 0 takes the most visited
/// (higher prior, then lower index, on ties). Without visits, falls back to the prior.
fn choose_with_temperature<R: Rng>(
    visits: &[u32],
    prior: &[f32],
    temperature: f32,
    rng: &mut R,
) -> usize {
    let total: u32 = visits.iter().sum();
    if temperature <= 1e-3 || total == 0 {
        let key = |i: usize| (visits[i], prior[i]);
        return (0..visits.len())
            .max_by(|&a, &b| {
                let (va, pa) = key(a);
                let (vb, pb) = key(b);
                va.cmp(&vb).then(pa.total_cmp(&pb)).then(b.cmp(&a))
            })
            .unwrap_or(0);
    }
    let max = *visits.iter().max().unwrap_or(&1) as f64;
    let weights: Vec<f64> = visits
        .iter()
        .map(|&n| (n as f64 / max).powf(1.0 / temperature as f64))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
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
