//! Network players and the run ladder on tiny random-initialised checkpoints (CPU, float32).

use std::path::{Path, PathBuf};

use koshogi_arena::gate::gate_checkpoints;
use koshogi_arena::ladder::{
    run_ladder, LadderPlayerKind, RunLadderSettings, CURVE_STROKE, RANDOM_INIT_NAME,
};
use koshogi_arena::matches::derive_seed;
use koshogi_arena::matches::new_game;
use koshogi_arena::players::{resolve_card, MctsPlayer, PolicyPlayer};
use koshogi_arena::GateSettings;
use koshogi_arena::{run_match, GreedyPlayer, MatchSettings, MoveRequest, Player, RandomPlayer};
use koshogi_nn::fixtures::save_tiny_checkpoint;
use koshogi_nn::{
    DeviceSpec, EvalPosition, FeatureInput, InferenceModel, Precision, RuntimeConfig,
};
use koshogi_rules::RulesOptions;
use koshogi_run_store::ladder_csv::read_ladder_csv;

/// CPU float32 on one libtorch thread: these tests check behaviour, not speed, and a 2-thread
/// OpenMP pool slows down by an order of magnitude when other processes hold the cores.
fn cpu() -> RuntimeConfig {
    tch::set_num_threads(1);
    RuntimeConfig {
        device: DeviceSpec::Cpu,
        precision: Precision::Float32,
        channels_last: Some(false),
    }
}

/// A tiny checkpoint with weights from torch seed `seed`, as the trainer would lay it out.
fn checkpoint(run: &Path, step: u64, seed: i64) -> PathBuf {
    let dir = run.join("checkpoints").join(format!("step-{step:09}"));
    let rules = serde_json::to_value(RulesOptions::default()).unwrap();
    save_tiny_checkpoint(&dir, step, seed, rules);
    dir
}

fn settings(games: usize, max_plies: u32) -> MatchSettings {
    MatchSettings {
        games,
        max_plies,
        opening_plies: 2,
        parallel_games: games,
        seed: 5,
        sprt: None,
        output_dir: None,
        cap_material_margin: None,
    }
}

#[test]
fn policy_player_takes_the_networks_most_probable_move() {
    let dir = tempfile::tempdir().unwrap();
    let card = resolve_card(&checkpoint(dir.path(), 100, 1)).unwrap();
    let mut player = PolicyPlayer::load(&card, &cpu(), "policy").unwrap();
    let (mut reference, _) = InferenceModel::load(&card, &cpu()).unwrap();

    let mut game = new_game(&RulesOptions::default(), &settings(2, 100));
    for ply in 0..6u64 {
        let request = MoveRequest {
            game: &game,
            game_index: 0,
            seed: derive_seed(9, &[ply]),
        };
        let chosen = player.choose_moves(&[request]).unwrap()[0];
        let legal = game.legal_moves();
        let mut out = Vec::new();
        reference
            .evaluate(
                &[EvalPosition {
                    input: FeatureInput::from_game(&game),
                    moves: &legal,
                }],
                &mut out,
            )
            .unwrap();
        let index = legal
            .iter()
            .position(|m| *m == chosen)
            .expect("a legal move");
        let best = out[0]
            .policy
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(out[0].policy[index], best, "ply {ply}");
        game.play(chosen);
    }
}

#[test]
fn network_players_play_complete_legal_matches() {
    let dir = tempfile::tempdir().unwrap();
    let card = resolve_card(&checkpoint(dir.path(), 100, 2)).unwrap();
    let options = RulesOptions::default();

    // The runner rejects illegal moves, so finishing is the legality check.
    let s = settings(4, 40);
    let mut policy = PolicyPlayer::load(&card, &cpu(), "policy").unwrap();
    let report = run_match(
        &|| new_game(&options, &s),
        &mut policy,
        &mut RandomPlayer::new(),
        &s,
        &mut (),
    )
    .unwrap();
    assert_eq!(report.wdl.games(), 4);

    let s = settings(2, 12);
    let mut mcts =
        MctsPlayer::load(&card, &cpu(), MctsPlayer::evaluation_config(4), "mcts").unwrap();
    let report = run_match(
        &|| new_game(&options, &s),
        &mut mcts,
        &mut GreedyPlayer::new(),
        &s,
        &mut (),
    )
    .unwrap();
    assert_eq!(report.wdl.games(), 2);
    assert!(report.games.iter().all(|g| g.plies <= 12));
}

#[test]
fn ladder_rates_every_checkpoint_and_the_baselines_against_the_random_init_anchor() {
    let run = tempfile::tempdir().unwrap();
    checkpoint(run.path(), 100, 3);
    checkpoint(run.path(), 200, 4);
    // The default baselines: random, greedy, ab:2.
    let ladder_settings = RunLadderSettings {
        games_per_pair: 4,
        match_settings: settings(4, 30),
        player: LadderPlayerKind::Policy,
        runtime: cpu(),
        ..RunLadderSettings::default()
    };
    let result = run_ladder(run.path(), &ladder_settings, &mut ()).unwrap();
    // Pairings, 4 games each: greedy vs random, ab:2 vs greedy; random-init vs the 3 baselines;
    // 100 vs random-init and the 3 baselines; 200 vs 100, random-init and the 3 baselines.
    assert_eq!(result.games_played, 4 * (2 + 3 + 4 + 5));
    assert_eq!(result.anchor, RANDOM_INIT_NAME);
    let names: Vec<&str> = result.ratings.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            RANDOM_INIT_NAME,
            "step-000000100",
            "step-000000200",
            "random",
            "greedy",
            "ab:2"
        ]
    );
    assert_eq!(result.ratings[0].elo, 0.0);
    assert!(result
        .ratings
        .iter()
        .all(|r| r.elo.is_finite() && r.stderr.is_finite()));
    assert!(run.path().join("arena/random-init/model.json").is_file());
    let csv = std::fs::read_to_string(run.path().join("arena/ladder.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    // The table reads back (as the viewer reads it), baselines without a step.
    let table = read_ladder_csv(&run.path().join("arena/ladder.csv"))
        .unwrap()
        .unwrap();
    let steps: Vec<Option<u64>> = table.iter().map(|r| r.step).collect();
    assert_eq!(steps, [Some(0), Some(100), Some(200), None, None, None]);
    let games = std::fs::read_to_string(run.path().join("arena/games.csv")).unwrap();
    assert_eq!(games.lines().count(), 1 + 56);
    assert!(games.contains("ab:2,greedy,") || games.contains("greedy,ab:2,"));
    assert!(run
        .path()
        .join("arena/games/step-000000200_vs_ab-2/from-000000/game-000000.txt")
        .is_file());
    let tensorboard = std::fs::read_dir(run.path().join("tb/arena"))
        .unwrap()
        .count();
    assert_eq!(tensorboard, 1);
    // The picture of progress: the steps panel has the anchor and both checkpoints, the hours
    // panel only the run's own checkpoints (the synthesised anchor has no training time), and
    // each baseline is a labelled line on both.
    assert_eq!(
        result.elo_svg.as_deref(),
        Some(run.path().join("arena/elo.svg").as_path())
    );
    let svg = std::fs::read_to_string(run.path().join("arena/elo.svg")).unwrap();
    let curve = format!("stroke=\"{CURVE_STROKE}\"");
    let curve_points: Vec<usize> = svg
        .split("<polyline")
        .skip(1)
        .map(|tag| &tag[..tag.find("/>").unwrap()])
        .filter(|tag| tag.contains(&curve))
        .map(|tag| {
            tag.split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .map(|points| points.split_whitespace().count())
        .collect();
    assert_eq!(curve_points, [2, 3], "{svg}");
    for baseline in ["random (", "greedy (", "ab:2 ("] {
        assert_eq!(svg.matches(baseline).count(), 2, "{baseline}");
    }
    assert!(svg.contains("since step-000000100 was saved (the first checkpoint kept)"));

    // A new checkpoint: only its pairings (predecessor, anchor, 3 baselines) are played.
    checkpoint(run.path(), 300, 5);
    let result = run_ladder(run.path(), &ladder_settings, &mut ()).unwrap();
    assert_eq!(result.games_played, 4 * 5);
    assert_eq!(result.ratings.len(), 7);
    // Without baselines nothing new is played, and the earlier baseline games still count.
    let no_baselines = RunLadderSettings {
        baselines: Vec::new(),
        ..ladder_settings.clone()
    };
    let result = run_ladder(run.path(), &no_baselines, &mut ()).unwrap();
    assert_eq!(result.games_played, 0);
    assert_eq!(result.ratings.len(), 7);
}

#[test]
fn gating_two_checkpoints_decides_by_the_match() {
    let run = tempfile::tempdir().unwrap();
    let incumbent = checkpoint(run.path(), 100, 6);
    let candidate = checkpoint(run.path(), 200, 7);
    let gate_settings = GateSettings {
        match_settings: settings(4, 30),
        required_score: 0.5,
    };
    let result = gate_checkpoints(
        &candidate,
        &incumbent,
        &LadderPlayerKind::Policy,
        &cpu(),
        &gate_settings,
        &mut (),
    )
    .unwrap();
    assert_eq!(result.report.wdl.games(), 4);
    assert_eq!(result.report.player_a, "candidate step-000000200");
    let score = result.report.wdl.score().unwrap();
    assert_eq!(result.passed, score >= 0.5, "{}", result.reason);
    // A candidate that is the incumbent itself scores exactly ½ (deterministic players, each
    // opening with both colours): it passes, ties favouring the candidate.
    let same = gate_checkpoints(
        &incumbent,
        &incumbent,
        &LadderPlayerKind::Policy,
        &cpu(),
        &gate_settings,
        &mut (),
    )
    .unwrap();
    assert_eq!(
        same.report.wdl.score(),
        Some(0.5),
        "{}",
        same.report.summary()
    );
    assert!(same.passed);
}
