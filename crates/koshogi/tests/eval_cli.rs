//! End-to-end: `koshogi eval` on a tiny run (two random-initialised tiny checkpoints) prints the
//! table, writes it as Markdown and JSON under `<run>/eval/`, and rejects bad input with a clear
//! one-line message.

use std::path::Path;
use std::process::{Command, Output};

fn koshogi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(args)
        .output()
        .unwrap()
}

/// A checkpoint as the trainer lays it out, tiny network with weights from torch seed `seed`.
fn checkpoint(run: &Path, step: u64, seed: i64) {
    let dir = run.join("checkpoints").join(format!("step-{step:09}"));
    let rules = serde_json::to_value(koshogi_rules::RulesOptions::default()).unwrap();
    koshogi_nn::fixtures::save_tiny_checkpoint(&dir, step, seed, rules);
}

#[test]
fn eval_prints_and_writes_the_table_of_the_last_checkpoint() {
    let run = tempfile::tempdir().unwrap();
    checkpoint(run.path(), 0, 1);
    checkpoint(run.path(), 100, 2);
    let run_arg = run.path().to_str().unwrap();
    let output = koshogi(&[
        "eval",
        "--run",
        run_arg,
        "--games",
        "2",
        "--mcts-games",
        "2",
        "--sims",
        "2",
        "--max-plies",
        "24",
        "--opponents",
        "greedy",
        "--outright",
        "--outright-max-plies",
        "30",
        "--movetime",
        "20",
        "--movetime-games",
        "2",
        "--threads",
        "1",
        "--device",
        "cpu",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");

    let value_only = "mcts:step-000000100:2@utility=0,forced=off";
    let table_rows = [
        (
            "policy:step-000000100",
            "policy:step-000000000",
            "checkpoint",
        ),
        ("policy:step-000000100", "greedy", "checkpoint"),
        (
            "policy:step-000000000",
            "greedy",
            "control: first checkpoint",
        ),
        (
            "mcts:step-000000100:2",
            "mcts:step-000000000:2",
            "checkpoint",
        ),
        ("mcts:step-000000100:2", "material:2", "checkpoint"),
        (value_only, "material:2", "control: value only"),
        ("mcts:step-000000100:2", "greedy", "checkpoint"),
        ("material:2", "greedy", "control: no network"),
        (
            "mcts:step-000000000:2",
            "greedy",
            "control: first checkpoint",
        ),
        (value_only, "greedy", "control: value only"),
    ];
    let equal_time_rows = [
        (
            "mcts:step-000000100@movetime=20",
            "classic@movetime=20",
            "checkpoint",
        ),
        (
            "material:2@movetime=20",
            "classic@movetime=20",
            "control: no network",
        ),
    ];
    // The adjudicated table, the same rows to 30 plies, then the equal-time table.
    let expected: Vec<_> = table_rows
        .iter()
        .chain(&table_rows)
        .chain(&equal_time_rows)
        .collect();
    let cells: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|l| l.starts_with("| "))
        .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>()[1..17].to_vec())
        .collect();
    let headers: Vec<&Vec<&str>> = cells.iter().filter(|c| c[0] == "player").collect();
    assert_eq!(headers.len(), 3, "{stdout}");
    assert_eq!(headers[0][7], "score ± 95 % CI");
    assert_eq!(headers[0][14], "player's material at ply 100 / 200");
    assert_eq!(headers[0][15], "how the player's games ended");
    let rows: Vec<&Vec<&str>> = cells
        .iter()
        .filter(|c| c[0] != "player" && !c[0].starts_with(":-"))
        .collect();
    assert_eq!(rows.len(), expected.len(), "{stdout}");
    for (cells, (player, opponent, role)) in rows.iter().zip(&expected) {
        assert_eq!(
            (cells[0], cells[1], cells[2]),
            (*player, *opponent, *role),
            "{stdout}"
        );
        let number = |i: usize| cells[i].parse::<u64>().unwrap();
        assert_eq!(number(3), 2);
        assert_eq!(number(4) + number(5) + number(6), 2, "{stdout}");
        // Games of at most 30 plies have no material sample (the first is after ply 50).
        assert_eq!(cells[14], "– / –", "{stdout}");
        assert_ne!(cells[15], "–", "{stdout}");
    }
    for section in [
        "## Adjudicated at 24 plies",
        "## Outright: to 30 plies, capped games drawn",
        "## Equal time: 20 ms per move",
    ] {
        assert!(stdout.contains(section), "{stdout}");
    }
    assert!(stdout.contains("Rerun: `koshogi eval --run"), "{stdout}");
    assert!(stdout.contains("--outright --outright-max-plies 30 --movetime 20"));

    let eval_dir = run.path().join("eval");
    let markdown = std::fs::read_to_string(eval_dir.join("eval-step-000000100.md")).unwrap();
    assert!(stdout.starts_with(&markdown), "{stdout}\n---\n{markdown}");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(eval_dir.join("eval-step-000000100.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["step"], 100);
    assert_eq!(json["baseline"], "step-000000000");
    assert_eq!(json["conditions"]["equal_time"]["movetime_ms"], 20);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len());
    for (index, row) in rows.iter().enumerate() {
        let wdl = &row["wdl"];
        let games = ["wins", "draws", "losses"]
            .iter()
            .map(|k| wdl[k].as_u64().unwrap())
            .sum::<u64>();
        assert_eq!(games, 2, "{row}");
        // The endings account for every game.
        let ended: u64 = row["endings"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|wdl| ["wins", "draws", "losses"].map(|k| wdl[k].as_u64().unwrap()))
            .sum();
        assert_eq!(ended, 2, "{row}");
        // The cap minus 4 opening plies, shared by the two sides, in each of 2 games, unless a
        // game ended early.
        let cap = if row["section"] == "outright" { 30 } else { 24 };
        let moves = row["player_moves"]["moves"].as_u64().unwrap()
            + row["opponent_moves"]["moves"].as_u64().unwrap();
        assert!(moves > 0 && moves <= 2 * (cap - 4), "{row}");
        let section = match index {
            0..=9 => "adjudicated",
            10..=19 => "outright",
            _ => "equal_time",
        };
        assert_eq!(row["section"], section, "{row}");
    }
    // Nothing else is left in the run directory's eval/ (no records without --records).
    assert_eq!(std::fs::read_dir(&eval_dir).unwrap().count(), 2);
}

#[test]
fn bad_input_is_a_clear_one_line_error() {
    let empty = tempfile::tempdir().unwrap();
    let with_run = tempfile::tempdir().unwrap();
    checkpoint(with_run.path(), 0, 1);
    let empty_arg = empty.path().to_str().unwrap();
    let run_arg = with_run.path().to_str().unwrap();
    let cases: [(&[&str], &str); 7] = [
        (
            &["eval", "--run", run_arg, "--movetime-opponent", "greedy"],
            "--movetime-opponent needs --movetime MS",
        ),
        (
            &[
                "eval",
                "--run",
                run_arg,
                "--movetime",
                "10",
                "--movetime-opponent",
                "mcts:x@depth=2",
            ],
            "unknown search setting `depth`",
        ),
        (
            &["eval", "--run", "/nonexistent/run"],
            "no run directory at",
        ),
        (&["eval", "--run", empty_arg], "no checkpoints"),
        (
            &["eval", "--run", run_arg, "--opponents", "greedy,alphabeta"],
            "--opponents: unknown player `alphabeta`",
        ),
        (
            &["eval", "--run", run_arg, "--checkpoint", "7"],
            "no checkpoint at step 7",
        ),
        (
            &[
                "eval",
                "--run",
                run_arg,
                "--opponents",
                "policy:/nonexistent/ckpt",
            ],
            "no such checkpoint",
        ),
    ];
    for (args, expected) in cases {
        let output = koshogi(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
    }
}

/// Writes the training clock into a checkpoint's model card, as the trainer records it.
fn set_training_clock(run: &Path, step: u64, seconds: f64) {
    let card = run
        .join("checkpoints")
        .join(format!("step-{step:09}"))
        .join("model.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&card).unwrap()).unwrap();
    json["training_seconds"] = seconds.into();
    std::fs::write(&card, serde_json::to_string_pretty(&json).unwrap()).unwrap();
}

/// `--at-hours H` evaluates the earliest checkpoint whose training clock had reached H hours,
/// and says clearly when none has.
#[test]
fn at_hours_picks_the_earliest_checkpoint_trained_that_long() {
    let run = tempfile::tempdir().unwrap();
    for (step, seconds) in [(0, 0.0), (100, 1800.0), (200, 3700.0), (300, 7300.0)] {
        checkpoint(run.path(), step, 1 + step as i64);
        set_training_clock(run.path(), step, seconds);
    }
    let run_arg = run.path().to_str().unwrap();
    let eval_at = |hours: &str| {
        koshogi(&[
            "eval",
            "--run",
            run_arg,
            "--at-hours",
            hours,
            "--games",
            "2",
            "--mcts-games",
            "0",
            "--no-controls",
            "--max-plies",
            "16",
            "--threads",
            "1",
            "--device",
            "cpu",
        ])
    };
    let output = eval_at("1");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("--at-hours 1: step 200"), "{stdout}");
    assert!(stdout.contains("policy:step-000000200"), "{stdout}");
    assert!(run.path().join("eval/eval-step-000000200.md").is_file());

    let beyond = eval_at("3");
    let stderr = String::from_utf8_lossy(&beyond.stderr);
    assert!(!beyond.status.success());
    assert!(stderr.contains("had trained 3 hours"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    for bad in ["0", "1e300", "never"] {
        let output = eval_at(bad);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{bad}");
        assert!(
            stderr.contains("positive number of hours"),
            "{bad}: {stderr}"
        );
    }
    let both = koshogi(&[
        "eval",
        "--run",
        run_arg,
        "--at-hours",
        "1",
        "--checkpoint",
        "100",
    ]);
    let stderr = String::from_utf8_lossy(&both.stderr);
    assert!(!both.status.success());
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
