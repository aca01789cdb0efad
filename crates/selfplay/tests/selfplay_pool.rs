//! Self-play end to end with the cheap material evaluator: games are played, every move becomes
//! a shard position with consistent targets, and every game a record that replays.

mod common;

use std::sync::Arc;

use koshogi_mcts::material::MaterialEvaluator;
use koshogi_replay::{board, list_shards, read_all_shards, shards_dir};
use koshogi_rules::game_record::GameRecord;
use koshogi_rules::{Color, Game, RulesOptions};
use koshogi_selfplay::fixed_opponent::FixedOpponent;
use koshogi_selfplay::{
    run_pool, CapResult, ModelSignals, OpponentStage, ResignConfig, SelfplayConfig, WorkerContext,
};

/// [`common::worker_context`] with this file's searches (8 visits) and seed (7).
fn context(run_dir: &std::path::Path, games: u64, config: SelfplayConfig) -> WorkerContext {
    common::worker_context(run_dir, config, games, 8, Arc::new(ModelSignals::new(4)), 7)
}

fn small_config() -> SelfplayConfig {
    SelfplayConfig {
        games_per_worker: 2,
        max_plies: 24,
        full_search_probability: 0.5,
        cheap_simulations: 2,
        opening_plies: 4,
        positions_per_shard: 1,
        ..SelfplayConfig::default()
    }
}

#[test]
fn two_games_produce_consistent_shards_and_records() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), 2, small_config());
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();

    let totals = ctx.stats.snapshot();
    assert_eq!(totals.games, 2);
    let fill = totals.mean_batch_fill();
    assert!(
        totals.batches > 0 && fill > 0.0 && fill <= 1.0,
        "batch fill {fill}"
    );
    assert_eq!(totals.black_wins + totals.white_wins + totals.draws, 2);
    assert!(totals.plies > 0 && totals.plies <= 48);
    assert_eq!(
        totals.positions,
        totals.plies + totals.resignations,
        "one position per decision"
    );

    let shards = read_all_shards(&shards_dir(dir.path())).unwrap();
    assert_eq!(
        shards.len(),
        2,
        "one game per shard with positions_per_shard = 1"
    );
    let mut positions = 0;
    for shard in &shards {
        let records: Vec<_> = shard.records().collect();
        positions += records.len() as u64;
        let game_length = records.len() as u32;
        // Replay the game from the stored played-move indices and check every stored board.
        let mut game = Game::new(RulesOptions::default()).with_max_plies(Some(24));
        for (ply, record) in records.iter().enumerate() {
            assert_eq!(record.ply as usize, ply);
            assert_eq!(record.board, &board::encode_position(game.position()));
            let legal = game.legal_moves();
            assert_eq!(record.legal_move_count as usize, legal.len());
            // One position per decision: plies played, plus the final one if the mover resigned.
            let remaining = game_length - record.ply;
            assert!(record.moves_left == remaining || record.moves_left + 1 == remaining);
            if record.full_search {
                // Listed moves keep their own probabilities: at most 1 in all.
                let total: f32 = record.policy_weights.iter().sum();
                assert!(
                    total > 0.0 && total <= 1.0 + 1e-2,
                    "policy target sums to {total}"
                );
                assert!(record
                    .policy_moves
                    .iter()
                    .all(|&m| m < record.legal_move_count));
            } else {
                assert!(record.policy_moves.is_empty());
            }
            assert!((-1..=1).contains(&record.game_result));
            if ply > 0 {
                // The result is the mover's, so it flips sign with every ply (a draw stays 0).
                assert_eq!(record.game_result, -records[ply - 1].game_result);
            }
            game.play(legal[record.played_move as usize]);
        }
    }
    assert_eq!(positions, totals.positions);

    let records: Vec<_> = std::fs::read_dir(dir.path().join("games"))
        .unwrap()
        .collect();
    assert_eq!(records.len(), 2);
    for entry in records {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let record = GameRecord::parse(&text, RulesOptions::default()).unwrap();
        assert!(record.result.is_some());
        assert!(record.moves.len() <= 24);
        record.replay(RulesOptions::default(), None).unwrap();
    }
}

#[test]
fn workers_of_one_pool_number_their_shards_without_gaps_or_repeats() {
    // Each worker used to open its own handle on the shard directory: two workers finishing a
    // shard at once could both take the same sequence number (the lock that orders them was
    // per handle). Many small shards from several workers make that collision likely.
    let dir = tempfile::tempdir().unwrap();
    let config = SelfplayConfig {
        workers: 4,
        games_per_worker: 2,
        max_plies: 6,
        positions_per_shard: 1,
        ..small_config()
    };
    let ctx = context(dir.path(), 16, config);
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();
    let mut sequences: Vec<u64> = list_shards(&shards_dir(dir.path()))
        .unwrap()
        .iter()
        .map(|shard| shard.sequence)
        .collect();
    sequences.sort_unstable();
    assert_eq!(sequences.len(), 16, "one shard per game");
    assert_eq!(sequences, (0..16).collect::<Vec<u64>>());
}

#[test]
fn a_stop_request_ends_the_pool_without_new_games() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), 1000, small_config());
    ctx.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();
    assert_eq!(ctx.stats.snapshot().games, 0);
}

#[test]
fn a_stop_during_play_ends_the_pool_promptly_and_writes_only_whole_games() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = SelfplayConfig {
        max_plies: 100_000,
        ..small_config()
    };
    config.resign.enabled = false;
    let ctx = context(dir.path(), 1000, config);
    let stop = ctx.stop.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let started = std::time::Instant::now();
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();
    stopper.join().unwrap();
    // A budget of 1,000 games would take many minutes: the pool returned because of the stop.
    // Whatever reached the shards is whole games (unfinished ones are dropped).
    assert!(started.elapsed().as_secs() < 30, "stopped promptly");
    let totals = ctx.stats.snapshot();
    let stored: u64 = read_all_shards(&shards_dir(dir.path()))
        .unwrap()
        .iter()
        .map(|shard| shard.len() as u64)
        .sum();
    assert_eq!(
        stored, totals.positions,
        "nothing of the dropped games was written: {totals:?}"
    );
    assert_eq!(
        totals.positions, totals.plies,
        "no resignations: one position per ply played"
    );
}

#[test]
fn invalid_settings_are_rejected_with_the_field_name() {
    let dir = tempfile::tempdir().unwrap();
    let config = SelfplayConfig {
        full_search_probability: 1.5,
        ..small_config()
    };
    let ctx = context(dir.path(), 1, config);
    let err = run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap_err();
    assert!(err.to_string().contains("full_search_probability"), "{err}");
}

#[test]
fn with_material_adjudication_capped_games_go_to_the_side_ahead_in_records_and_targets() {
    let dir = tempfile::tempdir().unwrap();
    let config = SelfplayConfig {
        cap_result: CapResult::Material,
        cap_material_margin: 1,
        games_per_worker: 4,
        opening_plies: 24,
        resign: ResignConfig {
            enabled: false,
            ..ResignConfig::default()
        },
        ..small_config()
    };
    let ctx = context(dir.path(), 4, config);
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();
    let totals = ctx.stats.snapshot();
    assert_eq!(totals.games, 4);

    // Every record that reached the cap is scored by the piece count of its final position.
    let mut capped = 0;
    for entry in std::fs::read_dir(dir.path().join("games")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let record = GameRecord::parse(&text, RulesOptions::default()).unwrap();
        let result = record.result.clone().unwrap();
        if record.moves.len() < 24 {
            continue;
        }
        capped += 1;
        let end = record.replay(RulesOptions::default(), None).unwrap();
        let lead = i64::from(end.position().piece_count(Color::Black))
            - i64::from(end.position().piece_count(Color::White));
        let expected = match lead.signum() {
            1 => Some(Color::Black),
            -1 => Some(Color::White),
            _ => None,
        };
        assert_eq!(
            result.winner, expected,
            "lead {lead}: {}",
            result.termination
        );
        let termination = if expected.is_some() {
            "material at max plies"
        } else {
            "max plies"
        };
        assert_eq!(result.termination, termination);
    }
    assert!(capped > 0, "no game reached the cap");
    assert_eq!(totals.adjudicated, capped);

    // The value targets follow the adjudicated result: at ply 0 Black is to move.
    let decided = totals.black_wins + totals.white_wins;
    let shards = read_all_shards(&shards_dir(dir.path())).unwrap();
    let first_results: Vec<i8> = shards
        .iter()
        .flat_map(|s| s.records().filter(|r| r.ply == 0).map(|r| r.game_result))
        .collect::<Vec<_>>();
    assert_eq!(first_results.len(), 4);
    assert_eq!(
        first_results.iter().filter(|&&r| r != 0).count() as u64,
        decided
    );
    // Signs: +1 at ply 0 means Black (the mover there) won.
    assert_eq!(
        first_results.iter().filter(|&&r| r == 1).count() as u64,
        totals.black_wins
    );
}

#[test]
fn games_against_alpha_beta_name_it_in_records_and_totals() {
    let dir = tempfile::tempdir().unwrap();
    let config = SelfplayConfig {
        games_per_worker: 2,
        max_plies: 30,
        fixed_opponent_fraction: 1.0,
        fixed_opponent: FixedOpponent::AlphaBeta { depth: 1 },
        positions_per_shard: 1,
        ..small_config()
    };
    let ctx = context(dir.path(), 2, config);
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();
    let totals = ctx.stats.snapshot();
    assert_eq!(totals.opponent_games, 2);
    assert_eq!(totals.opponent, Some(FixedOpponent::AlphaBeta { depth: 1 }));
    assert!(
        ctx.stats.summary().contains("vs ab:1"),
        "{}",
        ctx.stats.summary()
    );
    for entry in std::fs::read_dir(dir.path().join("games")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let record = GameRecord::parse(&text, RulesOptions::default()).unwrap();
        let named = record
            .tags
            .iter()
            .filter(|(k, v)| (k == "Black" || k == "White") && v == "ab:1")
            .count();
        assert_eq!(named, 1, "{:?}", record.tags);
    }
}

#[test]
fn the_opponent_schedule_picks_the_opponent_of_the_checkpoint_playing() {
    let dir = tempfile::tempdir().unwrap();
    let config = SelfplayConfig {
        games_per_worker: 2,
        max_plies: 30,
        fixed_opponent_fraction: 1.0,
        fixed_opponent: FixedOpponent::Greedy,
        fixed_opponent_schedule: vec![OpponentStage {
            from_step: 400,
            opponent: FixedOpponent::AlphaBeta { depth: 1 },
        }],
        positions_per_shard: 1,
        ..small_config()
    };
    // The worker's evaluator plays checkpoint 400: every game meets the stage's opponent.
    let ctx = context(dir.path(), 2, config);
    ctx.model.publish_step(0, 400);
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();
    let totals = ctx.stats.snapshot();
    assert_eq!(totals.opponent_games, 2);
    assert_eq!(totals.opponent, Some(FixedOpponent::AlphaBeta { depth: 1 }));
    for entry in std::fs::read_dir(dir.path().join("games")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(text.contains("ab:1"), "{text}");
        assert!(!text.contains("greedy"), "{text}");
    }
}

#[test]
fn games_against_greedy_record_only_the_networks_positions() {
    let dir = tempfile::tempdir().unwrap();
    let config = SelfplayConfig {
        games_per_worker: 4,
        max_plies: 40,
        fixed_opponent_fraction: 1.0,
        positions_per_shard: 1,
        ..small_config()
    };
    let ctx = context(dir.path(), 4, config);
    run_pool(&ctx, |_| Ok(MaterialEvaluator)).unwrap();
    let totals = ctx.stats.snapshot();
    assert_eq!(totals.games, 4);
    assert_eq!(totals.opponent_games, 4);
    assert!((0.0..=4.0).contains(&totals.opponent_points));
    assert!(ctx.stats.summary().contains("vs greedy"));

    // Every record names greedy on exactly one side.
    let mut greedy_sides = Vec::new();
    for entry in std::fs::read_dir(dir.path().join("games")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let record = GameRecord::parse(&text, RulesOptions::default()).unwrap();
        let tag = |name: &str| {
            record
                .tags
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        let sides = [tag("Black"), tag("White")];
        assert_eq!(
            sides.iter().filter(|s| *s == "greedy").count(),
            1,
            "{sides:?}"
        );
        greedy_sides.push(if sides[0] == "greedy" { 0 } else { 1 });
    }
    assert_eq!(greedy_sides.len(), 4);

    // Shards hold one game each: only the network's plies (one parity), none of greedy's.
    let shards = read_all_shards(&shards_dir(dir.path())).unwrap();
    assert_eq!(shards.len(), 4);
    let mut positions = 0;
    for shard in &shards {
        let plies: Vec<u32> = shard.records().map(|r| r.ply).collect();
        assert!(!plies.is_empty());
        let parity = plies[0] % 2;
        assert!(plies.iter().all(|p| p % 2 == parity), "{plies:?}");
        assert!(plies.windows(2).all(|w| w[1] == w[0] + 2), "{plies:?}");
        positions += plies.len() as u64;
    }
    assert_eq!(positions, totals.positions);
}

/// Black believes every position lost, White every position won: in games that end at the ply
/// cap (draws), Black's would-be resignations are all false.
struct BlackDespairs;

impl koshogi_mcts::Evaluator<Game> for BlackDespairs {
    fn evaluate(
        &mut self,
        requests: &[koshogi_mcts::EvalRequest<Game>],
        out: &mut Vec<koshogi_mcts::Evaluation>,
    ) -> Result<(), koshogi_mcts::EvalError> {
        out.extend(requests.iter().map(|r| {
            let black = r.position.position.side_to_move() == Color::Black;
            koshogi_mcts::Evaluation {
                priors: vec![1.0; r.moves.len()],
                wdl: koshogi_mcts::Wdl::from_scalar(if black { -1.0 } else { 1.0 }),
            }
        }));
        Ok(())
    }
}

#[test]
fn audit_games_with_false_resignations_raise_a_calibrated_threshold_and_nobody_resigns() {
    let resign = |max_false_rate| ResignConfig {
        enabled: true,
        threshold: 0.5,
        consecutive_moves: 2,
        disabled_fraction: 0.5,
        min_ply: 4,
        max_false_rate,
        calibration_window: 50,
    };
    let play = |max_false_rate| {
        let dir = tempfile::tempdir().unwrap();
        let config = SelfplayConfig {
            games_per_worker: 1,
            resign: resign(max_false_rate),
            ..small_config()
        };
        let ctx = context(dir.path(), 12, config);
        run_pool(&ctx, |_| Ok(BlackDespairs)).unwrap();
        ctx.stats.snapshot()
    };

    // A fixed threshold: Black resigns every game it may, and every audit says that was false.
    let fixed = play(None);
    assert_eq!(fixed.games, 12);
    assert_eq!(fixed.resign_threshold, 0.5);
    assert!(fixed.resign_audits > 0, "{fixed:?}");
    assert_eq!(fixed.false_resignations, fixed.resign_audits, "{fixed:?}");
    assert_eq!(
        fixed.resignations + fixed.resign_audits,
        12,
        "every game either resigned or was audited: {fixed:?}"
    );

    // Calibrated: after the first audit game the threshold sits at Black's despair, so no game
    // resigns after it (one game at a time, so only games before the first audit may).
    let calibrated = play(Some(0.05));
    assert_eq!(calibrated.games, 12);
    assert!(calibrated.resign_threshold > 0.9, "{calibrated:?}");
    assert!(calibrated.resign_audits > 0, "{calibrated:?}");
    assert!(
        calibrated.resignations < fixed.resignations,
        "{calibrated:?} against {fixed:?}"
    );
}

#[test]
fn the_review_of_a_runs_shards_replays_its_resignation_audit_exactly() {
    use koshogi_selfplay::resign_review::review_resignations;
    let dir = tempfile::tempdir().unwrap();
    let resign = ResignConfig {
        enabled: true,
        threshold: 0.5,
        consecutive_moves: 2,
        disabled_fraction: 0.5,
        min_ply: 4,
        ..ResignConfig::default()
    };
    let config = SelfplayConfig {
        games_per_worker: 1,
        resign: resign.clone(),
        ..small_config()
    };
    let ctx = context(dir.path(), 12, config);
    run_pool(&ctx, |_| Ok(BlackDespairs)).unwrap();
    let totals = ctx.stats.snapshot();
    let shards: Vec<_> = list_shards(&shards_dir(dir.path()))
        .unwrap()
        .into_iter()
        .map(|f| f.path)
        .collect();

    // Anything goes: the review counts what the pool counted, and every resignation stays.
    let lenient = review_resignations(&shards, &resign, 1.0).unwrap();
    assert_eq!(lenient.games, totals.games);
    assert_eq!(lenient.resignations, totals.resignations);
    assert_eq!(lenient.audited_games, totals.resign_audits);
    assert_eq!(lenient.false_resignations, totals.false_resignations);
    assert_eq!(lenient.kept_resignations, totals.resignations);
    assert!(lenient.thresholds.iter().all(|&t| t == 0.5));
    assert_eq!(lenient.thresholds.len() as u64, totals.resign_audits);

    // At 5 %: Black's false despair lifts the threshold to 1 at the first audit game, and only
    // the resignations written before it stay.
    let strict = review_resignations(&shards, &resign, 0.05).unwrap();
    assert!(strict.thresholds.iter().all(|&t| t == 1.0), "{strict:?}");
    assert!(strict.kept_resignations < totals.resignations, "{strict:?}");

    let bad = review_resignations(&shards, &resign, 1.5).unwrap_err();
    assert!(bad.to_string().contains("[0, 1]"), "{bad}");
}
