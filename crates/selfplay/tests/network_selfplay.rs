//! Self-play with a real (tiny) network: games finish, the player picks up a new checkpoint,
//! and the `pool` opponent plays the run's recent checkpoints.

mod common;

use std::path::Path;
use std::sync::Arc;

use koshogi_mcts::EvalError;
use koshogi_nn::{Model, ModelConfig, RuntimeConfig};
use koshogi_replay::{read_all_shards, shards_dir};
use koshogi_rules::RulesOptions;
use koshogi_selfplay::{run_pool, CheckpointFollowingEvaluator, ModelSignals, SelfplayConfig};

use common::worker_context;

#[test]
fn two_games_on_a_tiny_network_and_a_checkpoint_switch() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoints = dir.path().join("checkpoints");
    let signals = Arc::new(ModelSignals::new(2));
    let config = SelfplayConfig {
        max_plies: 12,
        ..small_config()
    };
    let ctx = worker_context(dir.path(), config, 2, 4, signals.clone(), 3);
    let make = {
        let checkpoints = checkpoints.clone();
        let signals = signals.clone();
        move |worker: usize| evaluator(&checkpoints, &signals, worker, false)
    };
    run_pool(&ctx, make.clone()).unwrap();
    assert_eq!(ctx.stats.snapshot().games, 2);
    let shards = read_all_shards(&shards_dir(dir.path())).unwrap();
    assert_eq!(
        shards.iter().map(|s| s.len() as u64).sum::<u64>(),
        ctx.stats.snapshot().positions
    );
    assert_eq!(signals.step(0), 0, "no checkpoint yet: random network");

    // A trainer writes step 5; the next evaluator built for the run starts from it.
    let model = Model::new(&ModelConfig::tiny(), tch::Device::Cpu).unwrap();
    save_checkpoint(&model, &checkpoints, 5);
    let evaluator = make(0).unwrap();
    assert_eq!(evaluator.loaded_step(), Some(5));
    assert_eq!(signals.step(0), 5);
}

#[test]
fn with_gating_the_accepted_checkpoint_plays_not_the_newest() {
    use koshogi_run_store::local_checkpoints::write_accepted;
    let dir = tempfile::tempdir().unwrap();
    let model = Model::new(&ModelConfig::tiny(), tch::Device::Cpu).unwrap();
    for step in [0u64, 5, 9] {
        save_checkpoint(&model, dir.path(), step);
    }
    let signals = Arc::new(ModelSignals::new(2));
    let make = || evaluator(dir.path(), &signals, 0, true).unwrap();
    assert_eq!(
        make().loaded_step(),
        None,
        "nothing accepted yet: the initial network plays"
    );
    write_accepted(dir.path(), 5).unwrap();
    assert_eq!(
        make().loaded_step(),
        Some(5),
        "the accepted step 5, not the newest step 9"
    );
    let ungated = evaluator(dir.path(), &signals, 0, false).unwrap();
    assert_eq!(ungated.loaded_step(), Some(9));
}

#[test]
fn each_workers_evaluator_picks_up_a_new_checkpoint_on_its_own_request() {
    use koshogi_mcts::{EvalRequest, Evaluator, SearchGame};
    use koshogi_rules::Game;
    let dir = tempfile::tempdir().unwrap();
    let model = Model::new(&ModelConfig::tiny(), tch::Device::Cpu).unwrap();
    let save = |step: u64| save_checkpoint(&model, dir.path(), step);
    save(5);
    let signals = Arc::new(ModelSignals::new(2));
    let make = |worker| evaluator(dir.path(), &signals, worker, false).unwrap();
    let (mut first, mut second) = (make(0), make(1));
    assert_eq!((signals.step(0), signals.step(1)), (5, 5));
    save(9);
    let game = Game::new(RulesOptions::default());
    let requests = [EvalRequest {
        position: SearchGame::position(&game),
        moves: game.legal_moves(),
    }];
    let mut out = Vec::new();
    // Both workers finished a game: each evaluator must see its own request, although the
    // first one to evaluate has already handled its own.
    signals.request_recheck(0);
    signals.request_recheck(1);
    first.evaluate(&requests, &mut out).unwrap();
    assert_eq!(first.loaded_step(), Some(9));
    assert_eq!((signals.step(0), signals.step(1)), (9, 5));
    second.evaluate(&requests, &mut out).unwrap();
    assert_eq!(second.loaded_step(), Some(9));
    assert_eq!(
        signals.step(1),
        9,
        "each worker's shards name its own model step"
    );
}

/// `fixed_opponent = "pool:last=2"` in every game: each game's opponent is one of the last two
/// checkpoints (never the older one), its moves are played with the cheap search, and only the
/// learner's positions are recorded.
#[test]
fn games_against_the_pool_play_recent_checkpoints_and_record_only_the_learner() {
    use koshogi_selfplay::fixed_opponent::FixedOpponent;
    use koshogi_selfplay::PoolRuntime;
    let dir = tempfile::tempdir().unwrap();
    let checkpoints = dir.path().join("checkpoints");
    let model = Model::new(&ModelConfig::tiny(), tch::Device::Cpu).unwrap();
    for step in [0u64, 5, 9] {
        save_checkpoint(&model, &checkpoints, step);
    }
    let signals = Arc::new(ModelSignals::new(1));
    let games = 4;
    let config = SelfplayConfig {
        max_plies: 10,
        fixed_opponent_fraction: 1.0,
        fixed_opponent: "pool:last=2".parse().unwrap(),
        ..small_config()
    };
    let mut ctx = worker_context(dir.path(), config, games, 4, signals.clone(), 11);
    ctx.pool_runtime = Some(PoolRuntime {
        runtime: RuntimeConfig::default(),
        intra_op_threads: 1,
    });
    run_pool(&ctx, move |worker| {
        evaluator(&checkpoints, &signals, worker, false)
    })
    .unwrap();
    let totals = ctx.stats.snapshot();
    assert_eq!(totals.games, games);
    assert_eq!(totals.opponent_games, games);
    assert_eq!(totals.opponent, Some(FixedOpponent::Pool { last: 2 }));
    // The learner moves on every other ply: at most one more position than half the plies.
    assert!(totals.positions > 0);
    assert!(
        2 * totals.positions <= totals.plies + games,
        "{} positions recorded of {} plies",
        totals.positions,
        totals.plies
    );
    let shards = read_all_shards(&shards_dir(dir.path())).unwrap();
    assert_eq!(
        shards.iter().map(|s| s.len() as u64).sum::<u64>(),
        totals.positions
    );
    // Each record names the pool checkpoint that played.
    let mut pool_players = Vec::new();
    for entry in std::fs::read_dir(dir.path().join("games")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let players: Vec<&str> = text.lines().filter(|l| l.contains("pool step")).collect();
        assert_eq!(players.len(), 1, "{text}");
        pool_players.push(players[0].to_string());
    }
    assert_eq!(pool_players.len() as u64, games);
    assert!(
        pool_players
            .iter()
            .all(|p| p.contains("pool step 5") || p.contains("pool step 9")),
        "{pool_players:?}"
    );
}

/// Two games at a time, short cheap searches.
fn small_config() -> SelfplayConfig {
    SelfplayConfig {
        games_per_worker: 2,
        cheap_simulations: 2,
        positions_per_shard: 1000,
        ..SelfplayConfig::default()
    }
}

/// Worker `worker`'s evaluator of a tiny network following the checkpoints in `checkpoints`
/// (default runtime, one intra-op thread), only the accepted ones if `gated`.
fn evaluator(
    checkpoints: &Path,
    signals: &Arc<ModelSignals>,
    worker: usize,
    gated: bool,
) -> Result<CheckpointFollowingEvaluator, EvalError> {
    CheckpointFollowingEvaluator::new(
        checkpoints.to_path_buf(),
        &ModelConfig::tiny(),
        RuntimeConfig::default(),
        1,
        signals.clone(),
        worker,
        gated,
    )
}

/// Writes `model` as checkpoint `step` under `checkpoints`.
fn save_checkpoint(model: &Model, checkpoints: &Path, step: u64) {
    let step_dir = checkpoints.join(format!("step-{step:09}"));
    std::fs::create_dir_all(&step_dir).unwrap();
    koshogi_nn::checkpoint::save(
        model,
        &step_dir.join("model.json"),
        step,
        serde_json::json!({}),
    )
    .unwrap();
}
