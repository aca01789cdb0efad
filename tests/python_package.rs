//! The `koshogi` Python package (python/rl: the rules as a PyO3 wheel, the PettingZoo
//! environment, the OpenSpiel game) runs its own test suite, python/rl/tests, against this
//! binary: a 1,000-ply random game must agree move by move with `koshogi moves`, positions must
//! give `koshogi encode`'s planes and policy legs, and the environments must pass PettingZoo's
//! and OpenSpiel's own conformance checks.
//!
//! The Python is `$KOSHOGI_RL_PYTHON`, the venv `scripts/setup-python-rl.sh` builds the wheel
//! into (scripts/test.sh sets it and KOSHOGI_REQUIRE_PYTHON_RL=1, which makes its absence a
//! failure); without it the test prints a NOTICE and passes, like the other Python checks.

use std::path::PathBuf;
use std::process::Command;

fn python() -> Option<PathBuf> {
    let python = std::env::var_os("KOSHOGI_RL_PYTHON").map(PathBuf::from);
    let usable = python.filter(|p| {
        Command::new(p)
            .args(["-c", "import koshogi, pettingzoo, pyspiel"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if usable.is_none() {
        assert!(
            std::env::var_os("KOSHOGI_REQUIRE_PYTHON_RL").is_none(),
            "KOSHOGI_REQUIRE_PYTHON_RL is set but $KOSHOGI_RL_PYTHON cannot import koshogi, \
             pettingzoo and pyspiel (scripts/setup-python-rl.sh)"
        );
        eprintln!(
            "NOTICE: $KOSHOGI_RL_PYTHON is not a python with the koshogi package \
             (scripts/setup-python-rl.sh); skipping python/rl/tests"
        );
    }
    usable
}

#[test]
fn the_python_package_passes_its_tests_against_this_binary() {
    let Some(python) = python() else { return };
    let tests = koshogi_test_support::workspace_root().join("python/rl/tests");
    // Run from the tests' own directory so `import koshogi` finds the installed wheel, not the
    // source tree's koshogi/ (which lacks the native module).
    let output = Command::new(&python)
        .args([
            "-m",
            "unittest",
            "discover",
            "-s",
            ".",
            "-p",
            "test_*.py",
            "-v",
        ])
        .current_dir(&tests)
        .env("KOSHOGI_BIN", koshogi_test_support::koshogi_binary())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stderr}");
    assert!(output.status.success(), "python/rl/tests failed");
    assert!(
        !stderr.contains("skipped"),
        "no test of python/rl/tests may be skipped here"
    );
}

/// An OpenSpiel bot in the arena through the engine protocol: `koshogi arena --a
/// engine:"<python> -m koshogi.engine_bot --bot mcts …" --b random --games 2 --max-plies 40`
/// plays both games to their end, none forfeited, every move of the bot legal.
#[test]
fn the_arena_plays_an_open_spiel_bot_through_the_engine_protocol() {
    let Some(python) = python() else { return };
    let out = tempfile::tempdir().unwrap();
    let engine = format!(
        "engine:{} -m koshogi.engine_bot --bot mcts --rollout-plies 2@nodes=8",
        python.display()
    );
    // From a directory without a koshogi/ source tree, so the installed wheel is imported.
    let output = Command::new(koshogi_test_support::koshogi_binary())
        .args(["arena", "--a", &engine, "--b", "random", "--games", "2"])
        .args(["--max-plies", "40", "--out"])
        .arg(out.path())
        .current_dir(out.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("{engine} vs random: 2 games")),
        "{stdout}"
    );
    // Both games went on past the opening: the bot answered its moves.
    koshogi_test_support::assert_engine_games_finished(out.path(), &engine, 2, 10, &stderr);
}
