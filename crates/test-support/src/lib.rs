//! Helpers shared by the workspace's tests; used only as a dev-dependency.
//!
//! Several crates check their files with the real Python tools (numpy, TensorBoard's reader,
//! torch): [`find_python`] finds the interpreter the set-up script installed, so each test skips
//! with a notice instead of failing where no such Python exists.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root directory, for tests that read its scripts and configs.
///
/// Taken from cargo's run-time `CARGO_MANIFEST_DIR` (the running test's package, `crates/<name>`)
/// before the compile-time one: clones share one target directory, and cargo may reuse a test
/// binary that another clone, perhaps since deleted, compiled.
pub fn workspace_root() -> PathBuf {
    Path::new(
        &std::env::var_os("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("../..")
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
