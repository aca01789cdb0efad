//! What searches hand the evaluator: a batch of leaf positions, each with a ticket saying which
//! search and which of its pending leaves the answer belongs to. Built by
//! [`crate::Search::collect`], carried to the evaluation thread and back by
//! [`crate::eval_thread::EvalJob`], answered through [`crate::Search::apply`].

use crate::evaluator::EvalRequest;
use crate::game::SearchGame;

/// A leaf handed to the evaluator, identifying where its answer belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    pub search: u32,
    pub slot: u32,
    /// The position's hash (the evaluation cache's key).
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
