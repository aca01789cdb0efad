//! Property tests: whatever the position, budget and settings, a finished search leaves a
//! consistent tree and proper distributions.

mod common;

use common::{assert_distribution, assert_visits_add_up};
use koshogi_mcts::toy::TicTacToe;
use koshogi_mcts::{
    Algorithm, DriverConfig, EvalThread, GumbelConfig, Search, SearchConfig, SearchDriver,
    SearchGame, UniformEvaluator,
};
use proptest::prelude::*;

/// A legal, unfinished tic-tac-toe position reached by `moves` (indices into the legal list).
fn position_after(choices: &[usize]) -> TicTacToe {
    let mut game = TicTacToe::default();
    for &c in choices {
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        if moves.len() <= 1 {
            break;
        }
        game.play(moves[c % moves.len()]);
        if game.terminal().is_some() {
            game.undo();
            break;
        }
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn finished_searches_are_consistent(
        choices in prop::collection::vec(0usize..9, 0..6),
        simulations in 0u32..80,
        considered in 1u32..12,
        leaves_per_tree in 1u32..5,
        puct in any::<bool>(),
        trees in 1usize..5,
        seed in any::<u64>(),
    ) {
        let game = position_after(&choices);
        let config = SearchConfig {
            algorithm: if puct { Algorithm::Puct } else { Algorithm::Gumbel },
            simulations,
            leaves_per_tree,
            gumbel: GumbelConfig { max_considered_actions: considered, ..GumbelConfig::default() },
            ..SearchConfig::default()
        };
        let eval = EvalThread::spawn(|| Ok(UniformEvaluator::default())).unwrap();
        let mut driver = SearchDriver::new(eval, DriverConfig::default());
        let mut searches: Vec<Search<TicTacToe>> =
            (0..trees).map(|i| Search::new(game.clone(), config.clone(), seed ^ i as u64)).collect();
        searches.iter_mut().for_each(|s| s.start().unwrap());
        driver.run(&mut searches).unwrap();
        for search in &mut searches {
            let result = search.result().unwrap();
            prop_assert_eq!(result.simulations, simulations);
            prop_assert_eq!(result.visit_counts.iter().sum::<u32>(), simulations);
            assert_visits_add_up(search.tree());
            assert_distribution(&result.policy);
            prop_assert!(result.moves.contains(&result.chosen_move));
            prop_assert!(result.root_wdl.is_distribution(1e-4));
            if !puct {
                // Only the sampled moves are ever visited.
                let visited = result.visit_counts.iter().filter(|&&n| n > 0).count();
                prop_assert!(visited <= considered as usize);
            }
        }
    }
}
