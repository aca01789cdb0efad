//! The classical engine's search, tried on positions whose right answer is known.

use std::sync::Arc;
use std::time::Duration;

use koshogi_rules::{Color, Game, PieceKind, RulesOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::test_positions::{chariot_and_two_elephants, game, poisoned_pawn};
use Color::{Black, White};
use PieceKind::*;

fn search(game: &Game, limits: ClassicLimits) -> ClassicResult {
    ClassicEngine::new(ClassicConfig::default())
        .search(
            game,
            &limits,
            &mut ChaCha8Rng::seed_from_u64(7),
            &mut |_| {},
        )
        .expect("a legal move")
}

fn depth(depth: u32) -> ClassicLimits {
    ClassicLimits {
        depth: Some(depth),
        ..ClassicLimits::default()
    }
}

#[test]
fn takes_the_sole_general_and_calls_it_a_win_in_one() {
    let game = game(
        true,
        &[
            ("19s", Black, General),
            ("10c", White, General),
            ("10h", Black, ChariotUnit),
            ("3e", White, Pawn),
        ],
    );
    let result = search(&game, depth(4));
    assert!(
        result.best_move.to_string().starts_with("10hx10c"),
        "{}",
        result.best_move
    );
    assert_eq!(win_distance(result.score), Some(1));
}

#[test]
fn leaves_a_defended_pawn_alone() {
    // Black's aide can take the pawn on 10i, which the white aide de camp on 10h retakes.
    let game = poisoned_pawn();
    for depth_limit in [2, 3, 4] {
        let result = search(&game, depth(depth_limit));
        assert!(
            !result.best_move.is_capture(),
            "depth {depth_limit}: {}",
            result.best_move
        );
        assert_eq!(result.depth, depth_limit);
    }
}

#[test]
fn moves_its_general_out_of_a_chariot_s_reach() {
    // White's chariot on 10n reaches 10s (five points straight on): Black must step aside.
    let game = game(
        true,
        &[
            ("10s", Black, General),
            ("1a", White, General),
            ("10n", White, Chariot),
            ("1s", Black, Pawn),
        ],
    );
    let result = search(&game, depth(3));
    assert!(
        win_distance(result.score).is_none(),
        "score {}",
        result.score
    );
    assert_eq!(result.best_move.origin().to_string(), "10s");
    assert_ne!(result.best_move.destination().file(), 10);
}

#[test]
fn a_node_limit_is_kept_and_the_same_seed_plays_the_same_move() {
    let game = Game::new(RulesOptions::default());
    let limits = ClassicLimits {
        nodes: Some(3_000),
        ..ClassicLimits::default()
    };
    let first = search(&game, limits.clone());
    let second = search(&game, limits);
    assert!(first.nodes <= 3_000 + 256, "{} nodes", first.nodes);
    assert!(first.depth >= 1);
    assert_eq!(first.best_move, second.best_move);
    assert_eq!(first.nodes, second.nodes);
    assert!(game.legal_moves().contains(&first.best_move));
}

#[test]
fn a_stop_before_the_start_still_gives_a_legal_move() {
    let game = Game::new(RulesOptions::default());
    let result = search(
        &game,
        ClassicLimits {
            stop: Some(Arc::new(|| true)),
            ..ClassicLimits::default()
        },
    );
    assert!(game.legal_moves().contains(&result.best_move));
    assert_eq!(result.depth, 1);
}

#[test]
fn a_move_time_stops_the_search_and_iterations_are_reported() {
    // A small position, so that depth 1 completes within the time even on a busy machine.
    let game = game(
        true,
        &[
            ("10s", Black, General),
            ("10a", White, General),
            ("5p", Black, Chariot),
            ("15d", White, Chariot),
            ("12o", Black, SumoWrestler),
        ],
    );
    let mut iterations = Vec::new();
    let result = ClassicEngine::new(ClassicConfig::default())
        .search(
            &game,
            &ClassicLimits {
                movetime: Some(Duration::from_millis(100)),
                ..ClassicLimits::default()
            },
            &mut ChaCha8Rng::seed_from_u64(1),
            &mut |info| iterations.push((info.depth, info.principal_variation.clone())),
        )
        .unwrap();
    // Generous: this checks that the clock is obeyed at all, not how fast the search is.
    assert!(
        result.elapsed < Duration::from_secs(5),
        "{:?}",
        result.elapsed
    );
    assert!(!iterations.is_empty());
    let depths: Vec<u32> = iterations.iter().map(|(d, _)| *d).collect();
    assert_eq!(depths, (1..=depths.len() as u32).collect::<Vec<_>>());
    // The result's line starts with its move (the last reported iteration's may not: an
    // iteration cut short by the clock is played when it already found a better move).
    let pv = &result.principal_variation;
    assert_eq!(pv.first(), Some(&result.best_move));
    assert!(iterations.iter().all(|(_, line)| !line.is_empty()));
    // The principal variation is a line of legal moves.
    let mut replay = game.clone();
    for mv in pv {
        assert!(replay.legal_moves().contains(mv), "{mv} in {pv:?}");
        replay.play(*mv);
    }
}

#[test]
fn every_part_switched_off_still_finds_the_same_tactics() {
    let spec =
        ClassicSpec::parse_settings("depth=3,eval=material,null=off,lmr=off,see=off,futility=off")
            .unwrap();
    let game = game(
        true,
        &[
            ("19s", Black, General),
            ("10c", White, General),
            ("10h", Black, ChariotUnit),
            ("3e", White, Pawn),
        ],
    );
    let mv = classic_move(&game, &spec, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
    assert!(mv.to_string().starts_with("10hx10c"), "{mv}");
}

/// The start position and a middle-game position of a greedy-vs-greedy game (quiet moves by
/// the hundred, a few captures).
fn quiet_and_busy_positions() -> Vec<Game> {
    let start = Game::new(RulesOptions::default());
    let mut busy = start.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..60 {
        let Some(mv) = crate::greedy::greedy_move(&busy, &mut rng) else {
            break;
        };
        busy.play(mv);
    }
    vec![start, busy]
}

fn search_with(game: &Game, spec: &str) -> ClassicResult {
    let spec = ClassicSpec::parse_settings(spec).unwrap();
    ClassicEngine::new(spec.config())
        .search(
            game,
            &spec.limits(),
            &mut ChaCha8Rng::seed_from_u64(7),
            &mut |_| {},
        )
        .expect("a legal move")
}

#[test]
fn futility_pruning_keeps_the_score_and_saves_nodes() {
    let (mut pruned_nodes, mut full_nodes) = (0, 0);
    for game in quiet_and_busy_positions() {
        let base = "depth=3,null=off,lmr=off,lmp=off";
        let pruned = search_with(&game, base);
        let full = search_with(&game, &format!("{base},futility=off"));
        // Pruned quiet moves change no material and less position than the margin: the
        // score is the same.
        assert_eq!(pruned.score, full.score);
        assert!(pruned.nodes <= full.nodes);
        pruned_nodes += pruned.nodes;
        full_nodes += full.nodes;
    }
    eprintln!("futility: {pruned_nodes} nodes against {full_nodes}");
    assert!(
        pruned_nodes * 20 < full_nodes * 19,
        "{pruned_nodes} nodes pruned, {full_nodes} without"
    );
}

#[test]
fn late_move_pruning_saves_most_nodes_and_keeps_the_tactics() {
    let (mut pruned_nodes, mut full_nodes) = (0, 0);
    for game in quiet_and_busy_positions() {
        let pruned = search_with(&game, "depth=4,lmp=on");
        let full = search_with(&game, "depth=4,lmp=off");
        pruned_nodes += pruned.nodes;
        full_nodes += full.nodes;
    }
    eprintln!("late-move pruning: {pruned_nodes} nodes against {full_nodes}");
    assert!(
        pruned_nodes * 2 < full_nodes,
        "{pruned_nodes} nodes pruned, {full_nodes} without"
    );
}

#[test]
fn the_hanging_stand_pat_sees_a_fork_on_the_last_ply() {
    // At depth 1 White's reply to the fork is a quiescence search: it has no capture, and
    // standing pat keeps both elephants only if the stand-pat ignores the second threat. The
    // stand-pat charges at least an elephant's excess over the chariot that forks them.
    let game = chariot_and_two_elephants("10n", true);
    let excess =
        super::values::piece_centipawns(Elephant) - super::values::piece_centipawns(Chariot);
    let seeing = search_with(&game, "depth=1,hanging=on");
    assert_eq!(seeing.best_move.origin().to_string(), "10n");
    assert_eq!(seeing.best_move.destination().to_string(), "10j");
    let blind = search_with(&game, "depth=1,hanging=off");
    assert!(
        seeing.score - blind.score >= excess - 50,
        "{} against {}",
        seeing.score,
        blind.score
    );
    // Two plies see the fork win an elephant with or without it.
    let deeper = search_with(&game, "depth=2,hanging=off");
    assert_eq!(deeper.best_move.destination().to_string(), "10j");
}

#[test]
fn logarithmic_reductions_save_nodes_and_keep_the_tactics() {
    // Depth 5: the first depth with an interior node 4 plies from the horizon, where the
    // logarithmic reductions take 2 plies; the start position, where quiet moves are all there
    // is. Late-move pruning on in both keeps the test short: 15 % fewer nodes with it, 47 %
    // without (in the middle game of `quiet_and_busy_positions`, 8 % without).
    let start = Game::new(RulesOptions::default());
    let log = search_with(&start, "depth=5,lmr=log,lmp=on");
    let fixed = search_with(&start, "depth=5,lmr=on,lmp=on");
    eprintln!(
        "logarithmic reductions: {} nodes against {}",
        log.nodes, fixed.nodes
    );
    assert!(
        log.nodes * 10 < fixed.nodes * 9,
        "{} nodes with lmr=log, {} with lmr=on",
        log.nodes,
        fixed.nodes
    );
    let poisoned = search_with(&poisoned_pawn(), "depth=5,lmr=log,lmp=on");
    assert!(!poisoned.best_move.is_capture(), "{}", poisoned.best_move);
}

/// Black (to move) three pieces ahead in count and one pawn behind in value, `plies_left` plies
/// before a cap that gives the game to a side two pieces ahead; nothing can capture.
fn ahead_in_count_behind_in_value(plies_left: u32) -> Game {
    game(
        true,
        &[
            ("19s", Black, General),
            ("17m", Black, Pawn),
            ("18m", Black, Pawn),
            ("19m", Black, Pawn),
            ("1a", White, General),
            ("2a", White, Chariot),
        ],
    )
    .with_max_plies(Some(plies_left))
    .with_material_adjudication(Some(2))
}

#[test]
fn with_cap_on_a_count_lead_at_the_cap_is_a_win_and_without_it_the_value_decides() {
    let game = ahead_in_count_behind_in_value(2);
    let knows = search_with(&game, "depth=3,cap=on");
    assert_eq!(
        win_distance(knows.score),
        Some(2),
        "the cap two plies on gives Black the game: {}",
        knows.score
    );
    let counts_value = search_with(&game, "depth=3");
    assert!(
        counts_value.score < 0,
        "a pawn behind in value: {}",
        counts_value.score
    );
    // Without material adjudication the cap is a draw, scored as one (contempt included).
    let drawn = game.with_material_adjudication(None);
    let knows_draw = search_with(&drawn, "depth=3,cap=on");
    assert!(win_distance(knows_draw.score).is_none());
    assert!(knows_draw.score.abs() < 100, "{}", knows_draw.score);
}

#[test]
fn with_cap_on_a_search_far_from_the_cap_is_the_search_without_it() {
    // Outside the window the option changes nothing: same move, score and nodes.
    for game in quiet_and_busy_positions() {
        let far = game.plies_played() + cap::CAP_WINDOW_PLIES + 10;
        let game = game
            .with_max_plies(Some(far))
            .with_material_adjudication(Some(2));
        let with = search_with(&game, "depth=4,cap=on");
        let without = search_with(&game, "depth=4");
        assert_eq!(
            (with.best_move, with.score, with.nodes),
            (without.best_move, without.score, without.nodes)
        );
    }
}

#[test]
fn the_artillery_weight_changes_which_piece_it_takes() {
    // Black's chariot unit on 10j can take a white longbow (4 pawns) up the file or a white
    // drum (6 pawns) along the rank, neither defended: at the baselines' scale it takes the
    // drum, with the artillery weighted double (the longbow at 8) the longbow. (Pawns shelter
    // White's general, so that no line to it outweighs either capture.)
    let game = game(
        true,
        &[
            ("19s", Black, General),
            ("19a", White, General),
            ("19b", White, Pawn),
            ("18a", White, Pawn),
            ("10j", Black, ChariotUnit),
            ("10b", White, Longbow),
            ("1j", White, Drum),
        ],
    );
    let take = |artillery_percent: u16| {
        search_with(&game, &format!("depth=2,artillery={artillery_percent}"))
            .best_move
            .to_string()
    };
    assert!(take(100).starts_with("10jx1j"), "{}", take(100));
    assert!(take(200).starts_with("10jx10b"), "{}", take(200));
}
