//! Baselines playing real Ko shogi: the greedy material grabber must beat the random mover
//! decisively, alpha-beta at depth 2 must beat greedy, and two identical random movers must come
//! out even. A match's material samples are the balance its records replay to.

use koshogi_arena::matches::new_game;
use koshogi_arena::{
    run_match, AlphaBetaPlayer, GameScore, GreedyPlayer, MatchSettings, RandomPlayer,
};
use koshogi_rules::game_record::GameRecord;
use koshogi_rules::material::baseline_balance;
use koshogi_rules::{Position, RulesOptions};

fn settings(games: usize, max_plies: u32) -> MatchSettings {
    MatchSettings {
        games,
        max_plies,
        opening_plies: 2,
        parallel_games: 16,
        seed: 11,
        sprt: None,
        output_dir: None,
        cap_material_margin: None,
    }
}

#[test]
fn greedy_beats_random_decisively() {
    let options = RulesOptions::default();
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(20, 300);
    s.output_dir = Some(dir.path().to_path_buf());
    let report = run_match(
        &|| new_game(&options, &s),
        &mut GreedyPlayer::new(),
        &mut RandomPlayer::new(),
        &s,
        &mut (),
    )
    .unwrap();
    eprintln!("{}", report.summary());
    // "Decisively": at least 18 of 20, and the 95 % lower Elo bound well above zero.
    assert!(report.wdl.wins >= 18, "{}", report.summary());
    let elo = report.elo().unwrap();
    assert!(elo.elo_lower_95 > 100.0, "{}", report.summary());
    // Greedy wins by capturing commanding pieces, not by adjudication.
    for g in report.games.iter().filter(|g| g.score_a == GameScore::Win) {
        assert_eq!(g.termination, "command destroyed", "{g:?}");
        assert!(g.plies < 300);
    }
    // Every record is a valid rules-crate game record: it replays from the standard start
    // position to the same result, over the same number of plies.
    for g in &report.games {
        let text = std::fs::read_to_string(g.record.as_ref().unwrap()).unwrap();
        let record = GameRecord::parse(&text, options).unwrap();
        assert_eq!(
            record.start.to_ksfen(false),
            Position::startpos().to_ksfen(false)
        );
        assert_eq!(record.moves.len() as u32, g.plies);
        assert_eq!(record.tag("OpeningPlies"), Some("2"));
        let replayed = record.replay(options, None).unwrap();
        let winner = replayed.outcome().and_then(|o| o.winner());
        assert_eq!(
            winner.map(koshogi_arena::matches::side_of),
            g.winner,
            "{text}"
        );
        // A's material samples are greedy's balance after ply 50, 100, … of the record.
        let expected: Vec<f32> = (1..=g.plies / 50)
            .map(|k| {
                let at = record.replay(options, Some(50 * k as usize)).unwrap();
                baseline_balance(at.position(), g.a_side.color()) as f32
            })
            .collect();
        assert_eq!(g.a_material, expected, "{text}");
    }
    assert!(
        report.games.iter().any(|g| !g.a_material.is_empty()),
        "no game lasted 50 plies: the material samples went unchecked"
    );
    assert!(
        report.summary().contains("greedy's material balance"),
        "{}",
        report.summary()
    );
}

#[test]
fn identical_random_players_score_about_half() {
    // Random Ko shogi games last ~1500 plies (measured: 40 games, median ~1450); a 3000-ply cap
    // lets most of them end by the rules, so the test is not just counting adjudicated draws.
    // Tolerance: 3 standard errors of a mean of n games with per-game variance at most 1/4,
    // ±3·0.5/sqrt(n) = ±0.168 for n = 80.
    let options = RulesOptions::default();
    let n = 80;
    let s = settings(n, 3000);
    let report = run_match(
        &|| new_game(&options, &s),
        &mut RandomPlayer::named("random-1"),
        &mut RandomPlayer::named("random-2"),
        &s,
        &mut (),
    )
    .unwrap();
    eprintln!("{}", report.summary());
    assert_eq!(report.wdl.games(), n as u64);
    assert!(
        report.wdl.draws < report.wdl.games() / 2,
        "{}",
        report.summary()
    );
    let score = report.wdl.score().unwrap();
    assert!(
        (score - 0.5).abs() < 3.0 * 0.5 / (n as f64).sqrt(),
        "{}",
        report.summary()
    );
}

#[test]
fn material_adjudication_scores_capped_games_by_piece_count() {
    let options = RulesOptions::default();
    let play = |cap_material_margin| {
        let s = MatchSettings {
            cap_material_margin,
            ..settings(8, 30)
        };
        run_match(
            &|| new_game(&options, &s),
            &mut GreedyPlayer::new(),
            &mut RandomPlayer::new(),
            &s,
            &mut (),
        )
        .unwrap()
    };
    // 30 plies are far too few to destroy a command: without adjudication every game is drawn.
    let plain = play(None);
    assert_eq!(plain.wdl.draws, 8, "{}", plain.summary());
    assert!(plain.games.iter().all(|g| g.termination == "max plies"));
    // With it, the material grabber is ahead after 15 moves of its own in most games.
    let adjudicated = play(Some(2));
    assert!(adjudicated.wdl.wins >= 6, "{}", adjudicated.summary());
    assert_eq!(adjudicated.wdl.losses, 0, "{}", adjudicated.summary());
    for g in adjudicated
        .games
        .iter()
        .filter(|g| g.score_a == GameScore::Win)
    {
        assert_eq!(g.termination, "material at max plies", "{g:?}");
        assert_eq!(g.plies, 30);
    }
}

#[test]
fn alpha_beta_at_depth_two_beats_greedy() {
    // Greedy walks into recaptures that depth 2 with quiescence sees. Games are capped and
    // scored by material (a lead of 2 pieces wins), as `koshogi arena --max-plies 100
    // --cap-material 2` would.
    let options = RulesOptions::default();
    let s = MatchSettings {
        cap_material_margin: Some(2),
        ..settings(8, 100)
    };
    let report = run_match(
        &|| new_game(&options, &s),
        &mut AlphaBetaPlayer::new(2),
        &mut GreedyPlayer::new(),
        &s,
        &mut (),
    )
    .unwrap();
    eprintln!("{}", report.summary());
    assert_eq!(report.player_a, "ab:2");
    assert!(report.wdl.wins >= 6, "{}", report.summary());
    assert_eq!(report.wdl.losses, 0, "{}", report.summary());
}
