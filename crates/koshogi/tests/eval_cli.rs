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
    tch::manual_seed(seed);
    let model = koshogi_nn::Model::new(&koshogi_nn::ModelConfig::tiny(), tch::Device::Cpu).unwrap();
    let dir = run.join("checkpoints").join(format!("step-{step:09}"));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = serde_json::to_value(koshogi_rules::RulesOptions::default()).unwrap();
    koshogi_nn::checkpoint::save(&model, &dir.join("model.json"), step, rules).unwrap();
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
        "greedy,random",
        "--threads",
        "1",
        "--device",
        "cpu",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");

    let expected_rows = [
        ("policy:step-000000100", "policy:step-000000000"),
        ("policy:step-000000100", "greedy"),
        ("policy:step-000000100", "random"),
        ("mcts:step-000000100:2", "mcts:step-000000000:2"),
        ("mcts:step-000000100:2", "greedy"),
        ("mcts:step-000000100:2", "random"),
    ];
    let table: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|l| l.starts_with("| "))
        .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>()[1..14].to_vec())
        .collect();
    assert_eq!(table.len(), 2 + expected_rows.len(), "{stdout}");
    assert_eq!(table[0][6], "score ± 95 % CI");
    assert_eq!(table[0][11], "opponent's capture %");
    for (cells, (player, opponent)) in table[2..].iter().zip(expected_rows) {
        assert_eq!((cells[0], cells[1]), (player, opponent), "{stdout}");
        let number = |i: usize| cells[i].parse::<u64>().unwrap();
        assert_eq!(number(2), 2);
        assert_eq!(number(3) + number(4) + number(5), 2, "{stdout}");
    }
    assert!(stdout.contains("Rerun: `koshogi eval --run"), "{stdout}");

    let eval_dir = run.path().join("eval");
    let markdown = std::fs::read_to_string(eval_dir.join("eval-step-000000100.md")).unwrap();
    assert!(stdout.starts_with(&markdown), "{stdout}\n---\n{markdown}");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(eval_dir.join("eval-step-000000100.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["step"], 100);
    assert_eq!(json["baseline"], "step-000000000");
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), expected_rows.len());
    for row in rows {
        let wdl = &row["wdl"];
        let games = ["wins", "draws", "losses"]
            .iter()
            .map(|k| wdl[k].as_u64().unwrap())
            .sum::<u64>();
        assert_eq!(games, 2, "{row}");
        // 24 plies minus 4 opening plies, shared by the two sides, in each of 2 games, unless a
        // game ended early.
        let moves = row["player_moves"]["moves"].as_u64().unwrap()
            + row["opponent_moves"]["moves"].as_u64().unwrap();
        assert!(moves > 0 && moves <= 2 * 20, "{row}");
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
    let cases: [(&[&str], &str); 5] = [
        (
            &["eval", "--run", "/nonexistent/run"],
            "no run directory at",
        ),
        (&["eval", "--run", empty_arg], "no checkpoints"),
        (
            &["eval", "--run", run_arg, "--opponents", "greedy,alphabeta"],
            "unknown player `alphabeta`",
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
