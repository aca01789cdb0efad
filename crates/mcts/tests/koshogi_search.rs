//! Search on Ko shogi positions with the cheap material evaluator: exact terminal values must
//! make it take a win that captures the last commanding piece and dodge a capture of its own.

mod common;

use common::{assert_distribution, assert_visits_add_up, search_once};
use koshogi_mcts::{
    Algorithm, GumbelConfig, MaterialEvaluator, SearchConfig, SearchGame, Terminal,
};
use koshogi_rules::{Color, Game, Move, Piece, PieceKind, Position, RulesOptions, Square};

fn position(side: Color, pieces: &[(Color, &str, u8, u8)]) -> Position {
    let mut pos = Position::empty(side);
    for &(color, code, file, rank) in pieces {
        let kind = PieceKind::from_code(code).unwrap();
        pos.set_piece(
            Square::new(file, rank).unwrap(),
            Some(Piece::new(color, kind)),
        );
    }
    pos
}

fn game(pos: Position) -> Game {
    Game::from_position(pos, RulesOptions::default())
}

fn config(algorithm: Algorithm, simulations: u32) -> SearchConfig {
    let mut config = SearchConfig {
        algorithm,
        simulations,
        ..SearchConfig::default()
    };
    config.puct.temperature = 0.0;
    config
}

/// Black's chariot unit on 5j can run up file 5 and take White's lone general on 5c, which
/// leaves White with no commanding piece (§10.1).
fn win_in_one() -> Game {
    game(position(
        Color::Black,
        &[
            (Color::Black, "G", 10, 19),
            (Color::Black, "CU", 5, 10),
            (Color::White, "G", 5, 3),
        ],
    ))
}

#[test]
fn the_winning_capture_is_a_terminal_win() {
    let mut g = win_in_one();
    let capture: Move = g
        .legal_moves()
        .into_iter()
        .find(|m| m.destination() == Square::new(5, 3).unwrap())
        .unwrap();
    SearchGame::play(&mut g, capture);
    assert_eq!(
        g.terminal(),
        Some(Terminal::Loss),
        "White, to move, has lost"
    );
}

#[test]
fn search_captures_the_last_commanding_piece() {
    let target = Square::new(5, 3).unwrap();
    let moves = win_in_one().legal_moves().len() as u32;
    for seed in 0..3 {
        let (result, search) = search_once(
            win_in_one(),
            config(Algorithm::Puct, 200),
            seed,
            MaterialEvaluator,
        );
        assert_eq!(result.chosen_move.destination(), target, "PUCT seed {seed}");
        assert!(result.root_value() > 0.5);
        assert_visits_add_up(search.tree());

        // Gumbel only ever plays one of its m sampled moves: consider them all here. Its move
        // is a sample of the improved policy (the Gumbel-max trick), so with noise on it may
        // play a non-winning move now and then; the training target must still favour the win,
        // and without noise (evaluation play, `gumbel_scale = 0`) it must play it.
        // c_scale as the shipped configurations set it: at mctx's 0.1 the win's lead over
        // keeping a chariot's worth of material (tanh(6/10) = 0.54) is under 2 nats.
        let mut gumbel = config(Algorithm::Gumbel, 2 * moves);
        gumbel.gumbel = GumbelConfig {
            max_considered_actions: moves,
            c_scale: 1.0,
            ..GumbelConfig::default()
        };
        let (result, _) = search_once(win_in_one(), gumbel.clone(), seed, MaterialEvaluator);
        assert_distribution(&result.policy);
        let best = result
            .moves
            .iter()
            .position(|m| m.destination() == target)
            .unwrap();
        assert!(
            result.policy[best] > 0.5,
            "improved policy puts most mass on the win: {}",
            result.policy[best]
        );
        gumbel.gumbel.gumbel_scale = 0.0;
        let (result, search) = search_once(win_in_one(), gumbel, seed, MaterialEvaluator);
        assert_eq!(
            result.chosen_move.destination(),
            target,
            "Gumbel seed {seed}"
        );
        assert_visits_add_up(search.tree());
    }
}

/// Black's lone general on 10j stands on file 10 below White's chariot unit on 10b: anything
/// but stepping off the file (or a capture, none available) loses the general and the game.
fn must_dodge() -> Game {
    game(position(
        Color::Black,
        &[
            (Color::Black, "G", 10, 10),
            (Color::Black, "P", 2, 15),
            (Color::Black, "P", 4, 15),
            (Color::White, "CU", 10, 2),
            (Color::White, "G", 19, 1),
        ],
    ))
}

#[test]
fn search_avoids_a_one_move_loss() {
    let file_10 =
        |m: &Move| m.destination().file() == 10 && m.origin() == Square::new(10, 10).unwrap();
    let general_moved_off_file =
        |m: &Move| m.origin() == Square::new(10, 10).unwrap() && m.destination().file() != 10;
    let legal = must_dodge().legal_moves();
    assert!(legal.iter().any(file_10) && legal.iter().any(|m| !general_moved_off_file(m)));
    // The position really is "dodge or lose": after any other move White can end the game.
    for mv in legal.iter().filter(|m| !general_moved_off_file(m)) {
        let mut g = must_dodge();
        SearchGame::play(&mut g, *mv);
        let replies = g.legal_moves();
        assert!(
            replies.iter().any(|r| {
                SearchGame::play(&mut g, *r);
                let lost = g.terminal() == Some(Terminal::Loss); // Black to move, and lost
                SearchGame::undo(&mut g);
                lost
            }),
            "{mv} should lose at once"
        );
    }
    for seed in 0..3 {
        let (result, _) = search_once(
            must_dodge(),
            config(Algorithm::Puct, 800),
            seed,
            MaterialEvaluator,
        );
        assert!(
            general_moved_off_file(&result.chosen_move),
            "PUCT seed {seed}: {}",
            result.chosen_move
        );
        let (result, _) = search_once(
            must_dodge(),
            config(Algorithm::Gumbel, 256),
            seed,
            MaterialEvaluator,
        );
        assert!(
            general_moved_off_file(&result.chosen_move),
            "Gumbel seed {seed}: {}",
            result.chosen_move
        );
    }
}

#[test]
fn max_plies_adjudication_is_a_terminal_draw() {
    let g = game(Position::startpos()).with_max_plies(Some(0));
    assert_eq!(g.terminal(), Some(Terminal::Draw));
    let mut search = koshogi_mcts::Search::new(g, SearchConfig::default(), 0);
    assert!(search.start().is_err());
}

#[test]
fn start_position_search_with_the_cpu_default_budget() {
    let (result, search) = search_once(
        game(Position::startpos()),
        SearchConfig::default(),
        1,
        MaterialEvaluator,
    );
    assert_eq!(result.simulations, 16);
    assert_eq!(result.visit_counts.iter().sum::<u32>(), 16);
    assert_distribution(&result.policy);
    assert_visits_add_up(search.tree());
    // m = 16, n = 16: sequential halving gives each of the 16 sampled moves exactly one visit.
    assert_eq!(result.visit_counts.iter().filter(|&&n| n == 1).count(), 16);
}

/// Evaluation play with 16 simulations finds a winning capture that the (uniform) prior does
/// not rank among its few considered moves, because captures always get considered; without
/// that quota it plays whatever the tie-broken prior ranks first.
#[test]
fn evaluation_play_always_considers_captures() {
    let target = Square::new(5, 3).unwrap();
    let mut evaluation = config(Algorithm::Gumbel, 16);
    evaluation.gumbel = GumbelConfig::evaluation(16);
    let mut without_quota = evaluation.clone();
    without_quota.gumbel.capture_candidates = 0;
    // With uniform priors and no noise the first m moves in generation order are considered;
    // the winning capture must not be among them for this test to mean anything.
    let moves = win_in_one().legal_moves();
    let m = evaluation.gumbel.max_considered_actions as usize;
    assert!(moves.len() > 2 * m);
    assert!(!moves[..m].iter().any(|mv| mv.destination() == target));
    for seed in 0..3 {
        let (result, _) = search_once(win_in_one(), without_quota.clone(), seed, MaterialEvaluator);
        assert_ne!(result.chosen_move.destination(), target);
        let (result, search) =
            search_once(win_in_one(), evaluation.clone(), seed, MaterialEvaluator);
        assert_eq!(result.chosen_move.destination(), target, "seed {seed}");
        assert_visits_add_up(search.tree());
    }
}

/// Two visits per root move see the opponent's reply only if the reply is the capture that
/// hurts: with captures tried first below the root, every move that leaves the general on the
/// chariot's file is seen to lose at once; with the prior's order (uniform here) it is not.
#[test]
fn replies_try_the_biggest_capture_first() {
    let general_moved_off_file =
        |m: &Move| m.origin() == Square::new(10, 10).unwrap() && m.destination().file() != 10;
    let moves = must_dodge().legal_moves().len() as u32;
    let mut two_visits_each = config(Algorithm::Gumbel, 2 * moves);
    two_visits_each.gumbel = GumbelConfig {
        max_considered_actions: moves,
        gumbel_scale: 0.0,
        capture_first_reply: true,
        ..GumbelConfig::default()
    };
    let mut prior_order = two_visits_each.clone();
    prior_order.gumbel.capture_first_reply = false;
    let mut dodged_without = 0;
    for seed in 0..3 {
        let (result, search) = search_once(
            must_dodge(),
            two_visits_each.clone(),
            seed,
            MaterialEvaluator,
        );
        assert!(
            general_moved_off_file(&result.chosen_move),
            "seed {seed}: {}",
            result.chosen_move
        );
        assert_visits_add_up(search.tree());
        let (result, _) = search_once(must_dodge(), prior_order.clone(), seed, MaterialEvaluator);
        dodged_without += u32::from(general_moved_off_file(&result.chosen_move));
    }
    assert_eq!(
        dodged_without, 0,
        "the prior's order should not find the threat"
    );
}

/// Priors that put nearly all mass on passes and an even value: the prior's favourite decides.
struct PassLovingEvaluator;

impl koshogi_mcts::Evaluator<Game> for PassLovingEvaluator {
    fn evaluate(
        &mut self,
        requests: &[koshogi_mcts::EvalRequest<Game>],
        out: &mut Vec<koshogi_mcts::Evaluation>,
    ) -> Result<(), koshogi_mcts::EvalError> {
        out.extend(requests.iter().map(|r| {
            koshogi_mcts::Evaluation {
                priors: r
                    .moves
                    .iter()
                    .map(|m| if m.is_pass() { 1000.0 } else { 1.0 })
                    .collect(),
                wdl: koshogi_mcts::Wdl::DRAW,
            }
        }));
        Ok(())
    }
}

fn pass_mass(result: &koshogi_mcts::SearchResult<Move>) -> f32 {
    result
        .moves
        .iter()
        .zip(&result.policy)
        .filter(|(m, _)| m.is_pass())
        .map(|(_, &p)| p)
        .sum()
}

/// `root_passes = false` removes passes from the root: not chosen, no target mass, even when
/// the prior loves them and the root is a subtree kept from the previous search.
#[test]
fn a_root_without_passes_never_chooses_or_teaches_one() {
    let start = Game::new(RulesOptions::default());
    assert!(
        start.legal_moves().iter().any(Move::is_pass),
        "the start position has passes"
    );
    let mut with_passes = config(Algorithm::Gumbel, 16);
    with_passes.gumbel = GumbelConfig {
        max_considered_actions: 4,
        ..GumbelConfig::default()
    };
    let (result, _) = search_once(start.clone(), with_passes.clone(), 1, PassLovingEvaluator);
    assert!(
        result.chosen_move.is_pass(),
        "control: the prior's pass wins"
    );
    assert!(pass_mass(&result) > 0.5);

    let mut without = with_passes;
    without.gumbel.root_passes = false;
    let eval = koshogi_mcts::EvalThread::spawn(|| Ok(PassLovingEvaluator)).unwrap();
    let mut driver = koshogi_mcts::SearchDriver::new(eval, koshogi_mcts::DriverConfig::default());
    let mut searches = vec![koshogi_mcts::Search::new(start, without, 1)];
    for ply in 0..4 {
        searches[0].start().unwrap();
        driver.run(&mut searches).unwrap();
        let result = searches[0].result().unwrap();
        assert!(
            !result.chosen_move.is_pass(),
            "ply {ply}: {}",
            result.chosen_move
        );
        assert_eq!(pass_mass(&result), 0.0, "ply {ply}");
        searches[0].advance(result.chosen_move).unwrap();
    }
}

#[test]
fn documented_node_sizes_hold() {
    use koshogi_mcts::tree::{Edge, Node, Tree};
    // lib.rs and config.rs quote these figures.
    assert_eq!(std::mem::size_of::<Node>(), 44);
    assert_eq!(std::mem::size_of::<Edge<Move>>(), 28);
    assert_eq!(Tree::<Move>::bytes_per_expanded_node(230), 44 + 28 * 230);
}
