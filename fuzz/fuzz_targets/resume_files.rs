//! The files a stopped match or evaluation resumes from, as a second start reads them: first
//! byte even, a match directory (`koshogi_arena::matches::load_finished_games`): with bit 1
//! clear the rest is `games.jsonl` beside this harness's `match.json`, set, the rest is
//! `match.json` itself; odd, the rest is an evaluation's `eval-<ckpt>.partial.json`
//! (`koshogi_arena::evaluation::load_progress`) against a fixed plan of four rows.
//!
//! Kept games are in index order, below the games asked for and within the cap, scored from
//! their winner, and written back they read again the same; kept rows are a prefix of the plan
//! whose endings add up to their results, and written back they read again the same.
#![no_main]

use koshogi_arena::evaluation::{
    load_progress, save_progress, EvalConditions, Role, RowPlan, Section,
};
use koshogi_arena::matches::{
    load_finished_games, save_finished_games, MatchIdentity, MatchSettings, FINISHED_GAMES_FILE,
    MATCH_FILE,
};
use koshogi_arena::players::{BaselineSpec, PlayerSpec};
use libfuzzer_sys::fuzz_target;

const TOTAL_GAMES: usize = 100;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    if selector % 2 == 0 {
        match_directory(selector & 2 != 0, rest);
    } else {
        evaluation_in_progress(rest);
    }
});

fn identity() -> MatchIdentity {
    let settings = MatchSettings {
        max_plies: 300,
        cap_material_margin: Some(2),
        seed: 1,
        ..MatchSettings::default()
    };
    MatchIdentity::new("policy:a".into(), "greedy".into(), &settings)
}

fn match_directory(input_is_match_file: bool, bytes: &[u8]) {
    let dir = koshogi_fuzz::scratch_dir().join("match");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating the scratch match directory");
    let identity = identity();
    if input_is_match_file {
        std::fs::write(dir.join(MATCH_FILE), bytes).expect("writing match.json");
        std::fs::write(dir.join(FINISHED_GAMES_FILE), b"").expect("writing games.jsonl");
    } else {
        load_finished_games(&dir, &identity, TOTAL_GAMES).expect("a fresh directory starts");
        std::fs::write(dir.join(FINISHED_GAMES_FILE), bytes).expect("writing games.jsonl");
    }
    let Ok(games) = load_finished_games(&dir, &identity, TOTAL_GAMES) else {
        return;
    };
    for pair in games.windows(2) {
        assert!(pair[0].game_index < pair[1].game_index);
    }
    for game in &games {
        assert!(game.game_index < TOTAL_GAMES && game.plies <= identity.max_plies);
    }
    save_finished_games(&dir, &games).expect("writing the kept games back");
    let again = load_finished_games(&dir, &identity, TOTAL_GAMES).expect("kept games read back");
    let json = |games: &[koshogi_arena::matches::GameSummary]| -> Vec<String> {
        games
            .iter()
            .map(|g| serde_json::to_string(g).expect("a game serialises"))
            .collect()
    };
    assert_eq!(json(&again), json(&games));
}

fn conditions() -> EvalConditions {
    EvalConditions {
        policy_games: 100,
        mcts_games: 100,
        simulations: 16,
        max_plies: 300,
        cap_material: Some(2),
        opening_plies: 4,
        seed: 1,
        opponents: vec!["greedy".into(), "ab:2".into()],
        avoid_repetition: true,
        controls: true,
        outright_max_plies: None,
        equal_time: None,
    }
}

/// Four rows named as a real evaluation of step 12,472 names them (the names are what a stored
/// row is matched on; the players themselves are never built here).
fn plan() -> Vec<RowPlan> {
    [
        ("policy:step-000012472", "policy:step-000000000"),
        ("policy:step-000012472", "greedy"),
        ("policy:step-000000000", "greedy"),
        ("policy:step-000012472", "ab:2"),
    ]
    .into_iter()
    .map(|(player, opponent)| RowPlan {
        player: player.into(),
        opponent: opponent.into(),
        player_spec: PlayerSpec::Baseline(BaselineSpec::Greedy),
        opponent_spec: PlayerSpec::Baseline(BaselineSpec::Greedy),
        games: 100,
        role: Role::Checkpoint,
        section: Section::Adjudicated,
    })
    .collect()
}

fn evaluation_in_progress(bytes: &[u8]) {
    const CHECKPOINT: &str = "step-000012472";
    let path = koshogi_fuzz::scratch_file("eval-step-000012472.partial.json", bytes);
    let (conditions, plan) = (conditions(), plan());
    let resumed = load_progress(&path, CHECKPOINT, &conditions, &plan);
    assert!(resumed.rows.len() <= plan.len());
    for (row, planned) in resumed.rows.iter().zip(&plan) {
        assert_eq!(
            (&row.player, &row.opponent),
            (&planned.player, &planned.opponent)
        );
        let by_ending: u64 = row.endings.0.values().map(|w| w.games()).sum();
        assert_eq!(by_ending, row.wdl.games());
        assert!(row.wdl.games() >= 100 && row.wdl.games() <= 101);
    }
    save_progress(&path, CHECKPOINT, &conditions, &resumed.rows).expect("writing the rows back");
    let again = load_progress(&path, CHECKPOINT, &conditions, &plan);
    let json = |rows: &[koshogi_arena::evaluation::EvalRow]| -> Vec<String> {
        rows.iter()
            .map(|r| serde_json::to_string(r).expect("a row serialises"))
            .collect()
    };
    assert_eq!(json(&again.rows), json(&resumed.rows));
}
