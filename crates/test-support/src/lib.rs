//! Helpers shared by the workspace's tests; used only as a dev-dependency.
//!
//! The system tests in the top-level `tests/` run the built `koshogi` binary from another
//! package than the binary's, where cargo does not name it (`CARGO_BIN_EXE_koshogi` exists only
//! in the binary's own package): [`koshogi_binary`] finds it beside the running test.
//!
//! Several crates check their files with the real Python tools (numpy, TensorBoard's reader,
//! torch): [`find_python`] finds the interpreter the set-up script installed, so each test skips
//! with a notice instead of failing where no such Python exists.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace's root directory, for tests that read its scripts and configs: the nearest
/// folder above the running test's package that holds `Cargo.lock` (packages sit at
/// `crates/<name>` and `tests/`).
///
/// Taken from cargo's run-time `CARGO_MANIFEST_DIR` (the running test's package) before the
/// compile-time one: clones share one target directory, and cargo may reuse a test binary that
/// another clone, perhaps since deleted, compiled.
pub fn workspace_root() -> PathBuf {
    let package = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    );
    package
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| package.join("../.."))
}

/// The `koshogi` binary the system tests run: `$KOSHOGI_BIN` if set, else the one cargo built
/// into the running test's profile folder (the test runs from `target/<profile>/deps/`).
///
/// `cargo test --workspace` (what `scripts/test.sh` runs) builds it before any test starts,
/// because the binary's own package has integration tests; after `cargo test -p
/// koshogi-system-tests` alone it may be older than the sources, so build it first
/// (`cargo build -p koshogi`). Panics with that advice when it is missing.
pub fn koshogi_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("KOSHOGI_BIN") {
        return path.into();
    }
    let test = std::env::current_exe().expect("the running test's path");
    let profile_dir = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/<profile>/deps/");
    let binary = profile_dir.join(format!("koshogi{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "no koshogi binary at {}: build it first (cargo build -p koshogi) or set KOSHOGI_BIN",
        binary.display()
    );
    binary
}

/// `relative` inside the workspace's top-level `data/` folder, where the fixtures kept as text
/// are (`data/README.md`); found through [`workspace_root`].
pub fn data_path(relative: &str) -> PathBuf {
    workspace_root().join("data").join(relative)
}

/// A Python interpreter that can `import <imports>` (e.g. `"numpy, torch"`): tried in order
/// `$KOSHOGI_PYTHON`, the venv behind the workspace's `.libtorch` link, the default venv in the
/// cache, `python3`.
pub fn find_python(imports: &str) -> Option<PathBuf> {
    let workspace = workspace_root();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("KOSHOGI_PYTHON") {
        candidates.push(p.into());
    }
    if let Ok(torch) = std::fs::canonicalize(workspace.join(".libtorch")) {
        // .libtorch -> <venv>/lib/pythonX.Y/site-packages/torch
        if let Some(venv) = torch.ancestors().nth(4) {
            candidates.push(venv.join("bin/python"));
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(Path::new(&home).join(".cache/koshogi-zero/torch-2.13.0/venv/bin/python"));
    }
    candidates.push("python3".into());
    candidates.into_iter().find(|python| {
        Command::new(python)
            .args(["-c", &format!("import {imports}")])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// `python` with the workspace's `python/` folder importable and no bytecode written into it
/// (the PyTorch twin, the evaluation module, the examples).
pub fn python_command(python: &Path) -> Command {
    let mut command = Command::new(python);
    command
        .env("PYTHONPATH", workspace_root().join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

/// The `koshogi` binary as a command (see [`koshogi_binary`]).
pub fn koshogi_command() -> Command {
    Command::new(koshogi_binary())
}

/// Runs `koshogi args` and returns what it did.
pub fn koshogi(args: &[&str]) -> Output {
    koshogi_command()
        .args(args)
        .output()
        .expect("the koshogi binary runs")
}

/// The standard output of a command that must have succeeded; a failure shows the exit status,
/// both outputs and `what` (the command, usually).
pub fn succeeded(output: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what}: exit {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The standard error of a command that must have failed.
pub fn failed(output: &Output, what: &str) -> String {
    assert!(
        !output.status.success(),
        "{what}: expected a failure, got exit {:?}\nstdout:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `command`, which must succeed, and reads its standard output as JSON (the Python
/// checks print one JSON document).
pub fn json_output(command: &mut Command) -> serde_json::Value {
    let output = command.output().expect("the command runs");
    let stdout = succeeded(&output, &format!("{command:?}"));
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{command:?}: not JSON ({e}): {stdout}"))
}

/// Checks `koshogi arena --out <out_dir>`'s `games.csv` after a match of `player` (an
/// `engine:` spec): `games` rows, each with the player, none forfeited, each longer than
/// `min_plies` (so the engine answered its moves past the opening). `context` is printed with a
/// failure (e.g. the arena's stderr).
pub fn assert_engine_games_finished(
    out_dir: &Path,
    player: &str,
    games: usize,
    min_plies: u32,
    context: &str,
) {
    let csv = std::fs::read_to_string(out_dir.join("games.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), games, "{csv}\n{context}");
    assert!(
        rows.iter()
            .all(|r| r.contains(player) && !r.contains("forfeit")),
        "{csv}\n{context}"
    );
    // Column 4 (`black,white,result,plies,…`); a player's name holds no comma.
    assert!(
        rows.iter().all(|r| r
            .split(',')
            .nth(3)
            .and_then(|p| p.parse::<u32>().ok())
            .is_some_and(|p| p > min_plies)),
        "{csv}\n{context}"
    );
}

/// A run configuration (TOML) for the system tests: the tiny network every such test uses
/// (seed 11, one block of 8 channels, so a CPU trains it in seconds) followed by `sections`,
/// the test's own `[search]`, `[selfplay]` and `[train]` tables. One owner, so the CLI tests and
/// the store tests agree on what "the tiny network" is.
pub fn tiny_run_toml(sections: &str) -> String {
    const TINY_NETWORK: &str = "\
[run]
seed = 11
[model]
blocks = 1
channels = 8
global_pool_every = 1
global_pool_channels = 4
policy_channels = 4
value_channels = 4
value_hidden = 8
";
    format!("{TINY_NETWORK}{sections}")
}
