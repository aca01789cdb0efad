//! The network evaluator end to end: a tiny model on its own evaluation thread drives real
//! Ko shogi searches.

// The search crate's own test helpers (tree invariants), shared rather than copied.
#[path = "../../mcts/tests/common/mod.rs"]
mod common;

use common::{assert_distribution, assert_visits_add_up};
use koshogi_mcts::{Algorithm, DriverConfig, Search, SearchConfig, SearchDriver};
use koshogi_nn::{spawn_network_thread, InferenceModel, ModelConfig, Precision, RuntimeConfig};
use koshogi_rules::{Game, RulesOptions};

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
