//! The network evaluator end to end: a tiny koshogi_nn model on its own evaluation thread
//! drives real Ko shogi searches.

mod common;

use common::{assert_distribution, assert_visits_add_up};
use koshogi_mcts::tree::{Edge, Node, Tree};
use koshogi_mcts::{
    spawn_network_thread, Algorithm, DriverConfig, Search, SearchConfig, SearchDriver,
};
use koshogi_nn::{InferenceModel, ModelConfig, Precision, RuntimeConfig};
use koshogi_rules::{Game, Move, RulesOptions};

#[test]
fn searches_run_on_the_network_thread() {
    let eval = spawn_network_thread(1, || {
        tch::manual_seed(0);
        let runtime = RuntimeConfig {
            precision: Precision::Float32,
            ..RuntimeConfig::default()
        };
        InferenceModel::new(&ModelConfig::tiny(), &runtime)
    })
    .unwrap();
    let mut driver = SearchDriver::new(eval, DriverConfig::default());
    let mut searches: Vec<Search<Game>> = [Algorithm::Gumbel, Algorithm::Puct]
        .into_iter()
        .enumerate()
        .map(|(i, algorithm)| {
            let game = Game::new(RulesOptions::default()).with_max_plies(Some(300));
            Search::new(
                game,
                SearchConfig {
                    algorithm,
                    simulations: 8,
                    ..SearchConfig::default()
                },
                i as u64,
            )
        })
        .collect();
    searches.iter_mut().for_each(|s| s.start().unwrap());
    driver.run(&mut searches).unwrap();
    for search in &mut searches {
        let result = search.result().unwrap();
        assert_eq!(result.visit_counts.iter().sum::<u32>(), 8);
        assert_distribution(&result.policy);
        assert_distribution(&result.prior);
        assert!(result.raw_wdl.is_distribution(1e-3), "{:?}", result.raw_wdl);
        assert_visits_add_up(search.tree());
        search.advance(result.chosen_move).unwrap();
    }
    assert!(driver.stats().evaluated >= 2 * 9 - 1);
}

#[test]
fn documented_node_sizes_hold() {
    // lib.rs and config.rs quote these figures.
    assert_eq!(std::mem::size_of::<Node>(), 44);
    assert_eq!(std::mem::size_of::<Edge<Move>>(), 28);
    assert_eq!(Tree::<Move>::bytes_per_expanded_node(230), 44 + 28 * 230);
}
