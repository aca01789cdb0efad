//! Search behaviour on tic-tac-toe, where the right answers are known by hand.

mod common;

use common::{assert_distribution, assert_visits_add_up, search_once};
use koshogi_mcts::toy::TicTacToe;
use koshogi_mcts::{
    Algorithm, DriverConfig, EvalError, EvalRequest, EvalThread, Evaluation, Evaluator,
    GumbelConfig, Phase, Search, SearchConfig, SearchDriver, SearchGame, UniformEvaluator,
};

fn config(algorithm: Algorithm, simulations: u32) -> SearchConfig {
    SearchConfig {
        algorithm,
        simulations,
        ..SearchConfig::default()
    }
}

#[test]
fn both_algorithms_take_a_one_move_win() {
    // X to move: 2 completes the top row. O also threatens 5 (middle row), irrelevant if X wins.
    let game = TicTacToe::from_diagram("XX. OO. ...").unwrap();
    for algorithm in [Algorithm::Gumbel, Algorithm::Puct] {
        for seed in 0..5 {
            let mut config = config(algorithm, 32);
            config.puct.temperature = 0.0;
            let (result, _) = search_once(game.clone(), config, seed, UniformEvaluator::default());
            assert_eq!(result.chosen_move, 2, "{algorithm:?} seed {seed}");
            assert!(result.root_value() > 0.0);
        }
    }
}

#[test]
fn both_algorithms_block_a_one_move_loss() {
    // X to move, no win available; O threatens 3-4-5 (needs 5). Every move but 5 loses at once.
    let game = TicTacToe::from_diagram("X.. OO. ..X").unwrap();
    for algorithm in [Algorithm::Gumbel, Algorithm::Puct] {
        for seed in 0..5 {
            let mut config = config(algorithm, 64);
            config.puct.temperature = 0.0;
            let (result, _) = search_once(game.clone(), config, seed, UniformEvaluator::default());
            assert_eq!(
                result.chosen_move, 5,
                "{algorithm:?} seed {seed}: {result:?}"
            );
        }
    }
}

#[test]
fn gumbel_root_visits_follow_sequential_halving() {
    // Empty board: 9 moves, none ends the game within one ply, so every simulation is a root
    // visit. Final per-move visit counts implied by the schedules (worked out by hand):
    // n=24, m=8: 8 moves x1, best 4 get 2 more, best 2 get 4 more -> [7,7,3,3,1,1,1,1,0]
    // n=16, m=4: 4 moves x2 (2 rounds), best 2 get 4 more -> [6,6,2,2,0,0,0,0,0]
    // n=13, m=8: 8 x1, 4 x1, then one more -> [3,2,2,2,1,1,1,1,0]
    // n=32, m=9: log2 9 = 4 -> 9 x1 (32/36 -> 1 round); 4 moves: 32/16 = 2 rounds; 2 moves:
    //   32/8 = 4 rounds -> 9+8+8 = 25; 2 moves keep alternating: 7 more sims (4 and 3)
    //   -> [1+2+4+4, 1+2+4+3, 3, 3, 1, 1, 1, 1, 1] = [11,10,3,3,1,1,1,1,1]
    let cases: [(u32, u32, [u32; 9]); 4] = [
        (24, 8, [7, 7, 3, 3, 1, 1, 1, 1, 0]),
        (16, 4, [6, 6, 2, 2, 0, 0, 0, 0, 0]),
        (13, 8, [3, 2, 2, 2, 1, 1, 1, 1, 0]),
        (32, 9, [11, 10, 3, 3, 1, 1, 1, 1, 1]),
    ];
    for (n, m, expected) in cases {
        for seed in 0..3 {
            let mut config = config(Algorithm::Gumbel, n);
            config.gumbel = GumbelConfig {
                max_considered_actions: m,
                ..GumbelConfig::default()
            };
            let (result, search) = search_once(
                TicTacToe::default(),
                config,
                seed,
                UniformEvaluator::default(),
            );
            let mut visits = result.visit_counts.clone();
            visits.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(visits, expected, "n={n} m={m} seed={seed}");
            assert_eq!(result.simulations, n);
            assert_visits_add_up(search.tree());
        }
    }
}

#[test]
fn visit_counts_add_up_and_targets_are_distributions() {
    let game = TicTacToe::from_diagram("X.. .O. ...").unwrap();
    for algorithm in [Algorithm::Gumbel, Algorithm::Puct] {
        for leaves_per_tree in [1, 4] {
            let mut config = config(algorithm, 50);
            config.leaves_per_tree = leaves_per_tree;
            let (result, search) =
                search_once(game.clone(), config, 7, UniformEvaluator::default());
            let root = search.tree().node(0);
            assert_eq!(root.visits, 1 + result.visit_counts.iter().sum::<u32>());
            assert_eq!(
                result.visit_counts.iter().sum::<u32>(),
                50,
                "{algorithm:?} vl={leaves_per_tree}"
            );
            assert!(assert_visits_add_up(search.tree()) > 10);
            assert_distribution(&result.policy);
            assert_distribution(&result.prior);
            assert_eq!(result.moves.len(), 7);
            assert!(result.root_wdl.is_distribution(1e-4));
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_result_and_another_seed_may_not() {
    let run = |seed: u64, algorithm: Algorithm| {
        let eval = EvalThread::spawn(|| Ok(UniformEvaluator::default())).unwrap();
        let mut driver = SearchDriver::new(eval, DriverConfig::default());
        let mut searches: Vec<Search<TicTacToe>> = (0..6)
            .map(|i| {
                let mut c = config(algorithm, 24);
                c.leaves_per_tree = 2;
                Search::new(TicTacToe::default(), c, seed * 100 + i)
            })
            .collect();
        searches.iter_mut().for_each(|s| s.start().unwrap());
        driver.run(&mut searches).unwrap();
        searches
            .iter_mut()
            .map(|s| s.result().unwrap())
            .collect::<Vec<_>>()
    };
    for algorithm in [Algorithm::Gumbel, Algorithm::Puct] {
        let a = run(1, algorithm);
        assert_eq!(a, run(1, algorithm));
        assert_ne!(a, run(2, algorithm), "{algorithm:?}: seeds must matter");
    }
}

#[test]
fn tree_reuse_keeps_the_played_subtree() {
    let game = TicTacToe::default();
    let config = config(Algorithm::Puct, 60);
    let (result, mut search) = search_once(game, config, 3, UniformEvaluator::default());
    let mv = result.chosen_move;
    let index = result.moves.iter().position(|&m| m == mv).unwrap();
    let kept_visits = result.visit_counts[index];
    assert!(kept_visits > 1);
    search.advance(mv).unwrap();
    assert_eq!(search.tree().node(0).visits, kept_visits);
    assert_visits_add_up(search.tree());
    assert_eq!(search.phase(), Phase::Idle);
    // The next search builds on it.
    let eval = EvalThread::spawn(|| Ok(UniformEvaluator::default())).unwrap();
    let mut driver = SearchDriver::new(eval, DriverConfig::default());
    let mut searches = vec![search];
    searches[0].start().unwrap();
    driver.run(&mut searches).unwrap();
    let next = searches[0].result().unwrap();
    assert_eq!(next.visit_counts.iter().sum::<u32>(), kept_visits - 1 + 60);
    assert!(
        searches[0].advance(mv).is_err(),
        "an occupied square is not a legal move"
    );
}

#[test]
fn node_budget_stops_the_search_without_failing() {
    let mut config = config(Algorithm::Gumbel, 200);
    config.max_nodes = 12;
    let (result, search) =
        search_once(TicTacToe::default(), config, 0, UniformEvaluator::default());
    assert!(search.tree().num_nodes() <= 12);
    assert!(result.simulations < 200);
    assert_distribution(&result.policy);
}

#[test]
fn finished_games_are_not_searched() {
    let mut search = Search::new(
        TicTacToe::from_diagram("XXX OO. ...").unwrap(),
        SearchConfig::default(),
        0,
    );
    assert!(search.start().is_err());
}

struct BrokenEvaluator;

impl Evaluator<TicTacToe> for BrokenEvaluator {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<TicTacToe>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        out.extend(requests.iter().map(|_| Evaluation {
            priors: vec![1.0],
            wdl: koshogi_mcts::Wdl::DRAW,
        }));
        Ok(())
    }
}

#[test]
fn a_malformed_evaluation_is_an_error_not_a_guess() {
    let eval = EvalThread::spawn(|| Ok(BrokenEvaluator)).unwrap();
    let mut driver = SearchDriver::new(eval, DriverConfig::default());
    let mut searches = vec![Search::new(
        TicTacToe::default(),
        SearchConfig::default(),
        0,
    )];
    searches[0].start().unwrap();
    let err = driver.run(&mut searches).unwrap_err();
    assert!(
        matches!(
            err,
            EvalError::WrongPriorCount {
                expected: 9,
                got: 1
            }
        ),
        "{err}"
    );
}

#[test]
fn run_with_restarts_searches_and_plays_whole_games() {
    // Eight self-play games of tic-tac-toe through the callback; every game must end legally.
    let eval = EvalThread::spawn(|| Ok(UniformEvaluator::default())).unwrap();
    let mut driver = SearchDriver::new(eval, DriverConfig::default());
    let mut searches: Vec<Search<TicTacToe>> = (0..8)
        .map(|i| Search::new(TicTacToe::default(), config(Algorithm::Gumbel, 16), i))
        .collect();
    searches.iter_mut().for_each(|s| s.start().unwrap());
    let mut moves_played = vec![0; 8];
    driver
        .run_with(&mut searches, |i, search| {
            let result = search.result().unwrap();
            search.advance(result.chosen_move).unwrap();
            moves_played[i] += 1;
            let _ = search.start();
        })
        .unwrap();
    for (search, &n) in searches.iter().zip(&moves_played) {
        assert!(search.game().terminal().is_some());
        assert!((5..=9).contains(&n));
    }
    assert!(driver.stats().batches > 0);
    assert!(
        driver.cache().hits > 0,
        "identical openings should hit the cache"
    );
}

/// Answers every position with one value until `switched` is set, then with another, and says
/// so through its generation (as a self-play evaluator does when it loads a new checkpoint).
struct SwitchingEvaluator {
    switched: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl SwitchingEvaluator {
    fn is_switched(&self) -> bool {
        self.switched.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Evaluator<TicTacToe> for SwitchingEvaluator {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<TicTacToe>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        let wdl = if self.is_switched() {
            koshogi_mcts::Wdl::from_scalar(-0.5)
        } else {
            koshogi_mcts::Wdl::from_scalar(0.5)
        };
        out.extend(requests.iter().map(|r| Evaluation {
            priors: vec![1.0; r.moves.len()],
            wdl,
        }));
        Ok(())
    }

    fn generation(&self) -> u64 {
        u64::from(self.is_switched())
    }
}

#[test]
fn new_weights_are_not_answered_from_the_old_weights_cache() {
    let search_root_value = |driver: &mut SearchDriver<TicTacToe>, game: TicTacToe| {
        let mut searches = vec![Search::new(game, config(Algorithm::Gumbel, 16), 7)];
        searches[0].start().unwrap();
        driver.run(&mut searches).unwrap();
        searches[0].result().unwrap().root_value()
    };
    let spawn = |switched: bool| {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(switched));
        let thread = EvalThread::spawn({
            let flag = flag.clone();
            move || Ok(SwitchingEvaluator { switched: flag })
        })
        .unwrap();
        (SearchDriver::new(thread, DriverConfig::default()), flag)
    };
    let (mut fresh, _) = spawn(true);
    let expected = search_root_value(&mut fresh, TicTacToe::default());

    let (mut driver, flag) = spawn(false);
    let before = search_root_value(&mut driver, TicTacToe::default());
    flag.store(true, std::sync::atomic::Ordering::SeqCst);
    // The driver learns of new weights from their first answers (a checkpoint is loaded
    // inside an evaluation call), so leaves collected for that batch may still hit old
    // entries; every search after it must see only the new weights.
    search_root_value(&mut driver, TicTacToe::from_diagram("..X ... ...").unwrap());
    let after = search_root_value(&mut driver, TicTacToe::default());
    assert!(
        (before - expected).abs() > 0.1,
        "the test needs the two weights to disagree"
    );
    assert_eq!(
        after, expected,
        "after the switch the search saw the old weights' cached values"
    );
}
