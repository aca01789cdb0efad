//! One resumable search over one tree: the algorithm-free core (descend, expand, back up).
//!
//! A [`Search`] owns a game (played forward and taken back during descents), its tree and its
//! random stream. It never calls an evaluator itself: [`Search::collect`] walks down to leaves
//! and hands their positions to the caller (normally the [`crate::driver::SearchDriver`], which
//! batches the leaves of many searches), and [`Search::apply`] takes the answers back. Leaves
//! that need no network (terminal positions, valued exactly; evaluation-cache hits) are backed
//! up on the spot. That split is what lets one driver keep many trees and the evaluator busy.
//!
//! Which child a descent takes, and what the root reports at the end, is the algorithm's
//! business ([`crate::policy`]): the root's [`RootPolicy`] is planned once per search when the
//! root has edges, the [`InteriorPolicy`] chooses below it (as `mctx`'s `search` takes a root
//! and an interior action-selection function).
//!
//! Tree reuse ([`Search::advance`]): the played child's subtree becomes the new tree. Its
//! statistics keep informing Q, completed Q and the visit counts reported, but the root policy
//! is planned afresh at every [`Search::start`]: new Dirichlet noise (PUCT), new Gumbel
//! samples and a new halving schedule counted over this search's own simulations (Gumbel).
//! A search always runs `simulations` new simulations (the root's first evaluation is extra
//! and counted separately, as in `mctx`). Configuration changes take effect at the next start.
//!
//! Virtual loss: with `leaves_per_tree > 1` a tree sends several leaves per batch; visits on
//! their way count as losses for the side choosing them until the answer arrives, and a
//! descent that runs into a leaf still waiting is a collision that ends this tree's share of
//! the batch.

use crate::batch::{Batch, Ticket};
use crate::cache::EvalCache;
use crate::child_stats;
use crate::config::SearchConfig;
use crate::evaluator::{EvalRequest, Evaluation};
use crate::game::{SearchGame, Terminal};
use crate::policy::{self, InteriorPolicy, RootDecision, RootPolicy};
use crate::result::SearchResult;
use crate::tree::{NodeId, NodeState, Tree, ROOT};
use crate::wdl::Wdl;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

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

struct PendingLeaf {
    path: Vec<NodeId>,
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
    /// This search's root policy, planned once the root has edges.
    root: Option<Box<dyn RootPolicy<G::Move>>>,
    interior: Box<dyn InteriorPolicy<G>>,
    pending: Vec<Option<PendingLeaf>>,
    free_slots: Vec<u32>,
    in_flight_leaves: u32,
    counters: LeafCounters,
    scratch_moves: Vec<G::Move>,
}

impl<G: SearchGame> Search<G> {
    /// A search over `game`'s current position; `seed` fixes all its randomness.
    pub fn new(game: G, config: SearchConfig, seed: u64) -> Search<G> {
        let tree = Tree::new(config.max_nodes, config.max_edges);
        Search {
            game,
            interior: policy::interior_policy(&config),
            config,
            tree,
            rng: ChaCha8Rng::seed_from_u64(seed),
            phase: Phase::Idle,
            started: 0,
            exhausted: false,
            root: None,
            pending: Vec::new(),
            free_slots: Vec::new(),
            in_flight_leaves: 0,
            counters: LeafCounters::default(),
            scratch_moves: Vec::new(),
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
        self.root = None;
        self.interior = policy::interior_policy(&self.config);
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
        self.root = None;
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
                        let (config, game) = (&self.config, &self.game);
                        let root =
                            planned(&mut self.root, config, &mut self.tree, game, &mut self.rng);
                        let i = root.select(&self.tree, self.started);
                        root_edge = Some(i);
                        i
                    } else {
                        self.interior.select(&self.tree, &self.game, node)
                    };
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
            if let (Some(root), Some(i)) = (&mut self.root, root_edge) {
                root.visited(i);
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

    /// Plans this search's root policy unless it has one (the root has edges).
    fn plan_root(&mut self) {
        planned(
            &mut self.root,
            &self.config,
            &mut self.tree,
            &self.game,
            &mut self.rng,
        );
    }

    /// The answer of a finished (or at least root-expanded) search.
    pub fn result(&mut self) -> Result<SearchResult<G::Move>, SearchError> {
        if !self.root_ready() || self.in_flight_leaves > 0 {
            return Err(SearchError::NoResult);
        }
        let root = planned(
            &mut self.root,
            &self.config,
            &mut self.tree,
            &self.game,
            &mut self.rng,
        );
        let RootDecision { chosen, policy } = root.decide(&self.tree, &mut self.rng);
        let edges = self.tree.edges_of(ROOT);
        let moves: Vec<G::Move> = edges.iter().map(|e| e.mv).collect();
        let prior: Vec<f32> = edges.iter().map(|e| e.prior).collect();
        let mut children = Vec::new();
        child_stats::gather(&self.tree, ROOT, &mut children);
        let visit_counts: Vec<u32> = children.iter().map(|c| c.visits).collect();
        let node = self.tree.node(ROOT);
        Ok(SearchResult {
            chosen_move: moves[chosen],
            moves,
            policy,
            visit_counts,
            prior,
            root_wdl: node.mean_wdl().unwrap_or(node.raw_value),
            raw_wdl: node.raw_value,
            simulations: self.started,
            algorithm: self.config.algorithm,
        })
    }
}

/// `root`, planned for `config`'s algorithm first if it is not yet (see [`policy::plan_root`]).
fn planned<'a, G: SearchGame>(
    root: &'a mut Option<Box<dyn RootPolicy<G::Move>>>,
    config: &SearchConfig,
    tree: &mut Tree<G::Move>,
    game: &G,
    rng: &mut ChaCha8Rng,
) -> &'a mut dyn RootPolicy<G::Move> {
    root.get_or_insert_with(|| policy::plan_root(config, tree, game, rng))
        .as_mut()
}
