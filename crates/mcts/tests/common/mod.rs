//! Helpers shared by the integration tests: run searches through the real driver and check
//! tree invariants.
#![allow(dead_code)]

use koshogi_mcts::tree::{NodeState, Tree, NO_NODE, ROOT};
use koshogi_mcts::{
    DriverConfig, EvalThread, Evaluator, Search, SearchConfig, SearchDriver, SearchGame,
    SearchResult,
};

/// Runs one search from `game` to the end of its budget with `evaluator` on its own thread.
pub fn search_once<G, E>(
    game: G,
    config: SearchConfig,
    seed: u64,
    evaluator: E,
) -> (SearchResult<G::Move>, Search<G>)
where
    G: SearchGame + 'static,
    E: Evaluator<G> + Send + 'static,
{
    let eval = EvalThread::spawn(move || Ok(evaluator)).unwrap();
    let mut driver = SearchDriver::new(eval, DriverConfig::default());
    let mut searches = vec![Search::new(game, config, seed)];
    searches[0].start().unwrap();
    driver.run(&mut searches).unwrap();
    let mut search = searches.pop().unwrap();
    (search.result().unwrap(), search)
}

/// Every expanded node was visited once for its own evaluation plus once per visit of a
/// child; terminal nodes have no children. Returns the number of nodes checked.
pub fn assert_visits_add_up<M: Copy>(tree: &Tree<M>) -> usize {
    let mut checked = 0;
    let mut stack = vec![ROOT];
    while let Some(id) = stack.pop() {
        let node = tree.node(id);
        assert_eq!(node.in_flight, 0, "no leaf may be left in flight");
        match node.state {
            NodeState::Expanded => {
                let mut children = 0;
                for e in tree.edges_of(id) {
                    if e.child != NO_NODE {
                        children += tree.node(e.child).visits;
                        stack.push(e.child);
                    }
                }
                assert_eq!(node.visits, 1 + children, "node {id}");
            }
            NodeState::Terminal => assert!(tree.edges_of(id).is_empty() || node.num_edges == 0),
            NodeState::Unexpanded => assert_eq!(node.visits, 0),
            NodeState::Pending => panic!("pending node {id} after the search"),
        }
        checked += 1;
    }
    checked
}

pub fn assert_distribution(p: &[f32]) {
    assert!(p.iter().all(|x| x.is_finite() && *x >= 0.0), "{p:?}");
    let total: f32 = p.iter().sum();
    assert!((total - 1.0).abs() < 1e-4, "sums to {total}");
}
