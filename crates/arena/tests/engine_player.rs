//! The `engine:` player against engines that misbehave, played by small shell scripts: each
//! failure loses that game (with the reason as its termination) and the match goes on; a
//! program that cannot even start is a build error; the program is killed when the player is
//! dropped. (The real engine is matched end to end in tests/engine_match.rs.)

#![cfg(unix)]

use std::path::Path;
use std::time::{Duration, Instant};

use koshogi_arena::matches::new_game;
use koshogi_arena::players::{build_player, PlayerOptions};
use koshogi_arena::players::{EnginePlayer, EngineSpec};
use koshogi_arena::{run_match, GameScore, MatchReport, MatchSettings, PlayerSpec, RandomPlayer};
use koshogi_rules::RulesOptions;

/// The greeting every fake engine gives, then `body` for the other lines (`$line` holds one).
fn fake_engine(dir: &Path, name: &str, body: &str) -> String {
    let script = format!(
        "echo started >> {dir}/starts\n\
         echo $$ > {dir}/pid\n\
         while read -r line; do\n\
           case \"$line\" in\n\
             koshogi) echo 'id name fake'; echo koshogiok ;;\n\
             isready) echo readyok ;;\n\
             quit) exit 0 ;;\n\
             *) {body} ;;\n\
           esac\n\
         done\n",
        dir = dir.display()
    );
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    format!("sh {}", path.display())
}

fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// Two short games of the engine (player A) against the random mover.
fn play(command: &str) -> MatchReport {
    let spec: PlayerSpec = format!("engine:{command}").parse().unwrap();
    let mut engine = build_player(&spec, &PlayerOptions::default())
        .unwrap()
        .player;
    let settings = MatchSettings {
        games: 2,
        max_plies: 12,
        opening_plies: 0,
        parallel_games: 2,
        ..MatchSettings::default()
    };
    let rules = RulesOptions::default();
    run_match(
        &|| new_game(&rules, &settings),
        engine.as_mut(),
        &mut RandomPlayer::new(),
        &settings,
        &mut (),
    )
    .expect("a misbehaving engine does not stop the match")
}

fn assert_every_game_forfeited(report: &MatchReport, reason: &str) {
    assert_eq!(report.games.len(), 2);
    for game in &report.games {
        assert_eq!(game.score_a, GameScore::Loss, "{game:?}");
        assert!(
            game.termination.starts_with("forfeit by engine:") && game.termination.contains(reason),
            "expected {reason:?} in {:?}",
            game.termination
        );
    }
}

#[test]
fn an_engine_that_dies_loses_each_game_and_is_restarted_for_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let command = fake_engine(dir.path(), "dies.sh", "echo 'dying' >&2; exit 3");
    let report = play(&command);
    assert_every_game_forfeited(&report, "exited (exit status: 3)");
    assert!(
        report.games[0].termination.contains("dying"),
        "stderr is quoted"
    );
    // Started for the match, then again for the second game after the first one killed it.
    assert_eq!(starts(dir.path()), 2);
}

#[test]
fn an_illegal_answer_is_a_forfeit_quoting_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let command = fake_engine(
        dir.path(),
        "illegal.sh",
        "case \"$line\" in go*) echo 'info string error: cannot read move'; \
         echo 'bestmove 99z-1a ponder 1a-1b' ;; esac",
    );
    let report = play(&command);
    assert_every_game_forfeited(&report, "bestmove `99z-1a` is not a legal move");
    assert!(report.games[1]
        .termination
        .contains("the engine said: info string error: cannot read move"));
}

#[test]
fn resigning_and_garbage_lines_are_forfeits() {
    let dir = tempfile::tempdir().unwrap();
    let command = fake_engine(
        dir.path(),
        "resigns.sh",
        "case \"$line\" in go*) echo 'something else'; echo 'bestmovex'; echo 'bestmove resign' ;; esac",
    );
    assert_every_game_forfeited(&play(&command), "resigned (`bestmove resign`)");
    let command = fake_engine(
        dir.path(),
        "binary.sh",
        "case \"$line\" in go*) printf 'bestmove \\377\\376\\n' ;; esac",
    );
    assert_every_game_forfeited(&play(&command), "not UTF-8");
}

#[test]
fn a_silent_engine_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let command = fake_engine(dir.path(), "silent.sh", ":");
    let start = Instant::now();
    assert_every_game_forfeited(
        &play(&format!("{command}@nodes=4,timeout=1")),
        "no answer from the engine within",
    );
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_slow_engine_loses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    // Answers (a legal first move for Black) only after 1.5 s; it has 1 s + 100 ms byoyomi.
    let command = fake_engine(
        dir.path(),
        "slow.sh",
        "case \"$line\" in go*) sleep 1.5; echo 'bestmove 10m-10l' ;; esac",
    );
    let spec = EngineSpec::parse(&format!("{command}@time=1000,byoyomi=100")).unwrap();
    let mut player = EnginePlayer::start(&spec, 1).unwrap();
    let settings = MatchSettings {
        games: 2,
        max_plies: 12,
        opening_plies: 0,
        parallel_games: 1,
        ..MatchSettings::default()
    };
    let rules = RulesOptions::default();
    let report = run_match(
        &|| new_game(&rules, &settings),
        &mut player,
        &mut RandomPlayer::new(),
        &settings,
        &mut (),
    )
    .unwrap();
    assert_every_game_forfeited(&report, "lost on time");
    assert!(report.games[0]
        .termination
        .contains("1100 ms left on its clock"));
    assert_eq!(player.stats().time_losses, 2);
}

#[test]
fn a_program_that_cannot_start_or_greet_is_a_build_error() {
    let options = PlayerOptions::default();
    let error = build_player(&"engine:/no/such/engine --x".parse().unwrap(), &options)
        .err()
        .expect("no such program");
    assert!(
        error.to_string().contains("cannot start `/no/such/engine`"),
        "{error}"
    );
    let error = build_player(&"engine:sh -c 'exit 7'".parse().unwrap(), &options)
        .err()
        .expect("exits at once");
    assert!(error.to_string().contains("exit status: 7"), "{error}");
}

#[test]
fn the_program_is_killed_when_the_player_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    // Ignores `quit` (and everything else): only a kill ends it.
    let script = dir.path().join("stubborn.sh");
    std::fs::write(
        &script,
        format!(
            "echo $$ > {}/pid\ntrap '' TERM\nwhile read -r line; do\n  \
             case \"$line\" in koshogi) echo koshogiok ;; isready) echo readyok ;; esac\n\
             done\nsleep 1000\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let spec = EngineSpec::parse(&format!("sh {}", script.display())).unwrap();
    let player = EnginePlayer::start(&spec, 1).unwrap();
    let pid = std::fs::read_to_string(dir.path().join("pid")).unwrap();
    let proc_dir = Path::new("/proc").join(pid.trim());
    assert!(proc_dir.exists());
    drop(player);
    assert!(!proc_dir.exists(), "the engine outlived its player");
}
