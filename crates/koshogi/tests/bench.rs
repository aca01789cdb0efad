//! `koshogi bench nn|train|arena` end to end, at toy sizes: each runs, reports every
//! measurement, and turns bad options into an error message instead of a panic.

use std::process::Command;

fn koshogi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(args)
        .output()
        .expect("koshogi runs")
}

/// Runs `koshogi args`, which must succeed, and checks its standard output holds every one of
/// `expected`.
fn assert_reports(args: &[&str], expected: &[&str]) {
    let out = koshogi(args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in expected {
        assert!(stdout.contains(expected), "{expected:?} in {stdout}");
    }
}

/// Runs `koshogi args`, which must fail with an error message holding `message` (no panic).
fn assert_rejected(args: &[&str], message: &str) {
    let out = koshogi(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(
        stderr.contains("error:") && stderr.contains(message) && !stderr.contains("panicked"),
        "{args:?}: {stderr}"
    );
}

#[test]
fn bench_nn_reports_inference_training_and_memory() {
    assert_reports(
        &[
            "bench",
            "nn",
            "--device",
            "cpu",
            "--threads",
            "1",
            "--models",
            "cpu",
            "--precisions",
            "f32",
            "--batches",
            "1,2",
            "--seconds",
            "0.01",
            "--min-iterations",
            "1",
            "--train-batch",
            "2",
            "--train-steps",
            "1",
            "--playout-plies",
            "3",
        ],
        &[
            "6 blocks x 64 channels",
            "b1:",
            "b2:",
            "pos/s",
            "train step f32, batch 2:",
            "samples/s",
            "peak RSS",
            "MiB",
        ],
    );
}

/// `--layouts` times each precision in every layout asked for, one line each, labelled by the
/// runtime the inference copy resolved to.
#[test]
fn bench_nn_times_each_layout_asked_for() {
    let out = koshogi(&[
        "bench",
        "nn",
        "--device",
        "cpu",
        "--threads",
        "1",
        "--models",
        "tiny",
        "--precisions",
        "f32",
        "--layouts",
        "nchw,nhwc",
        "--batches",
        "1",
        "--seconds",
        "0.01",
        "--min-iterations",
        "1",
        "--train-batch",
        "0",
        "--playout-plies",
        "3",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains("inference cpu f32"))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(!lines[0].contains("channels-last"), "{stdout}");
    assert!(lines[1].contains("channels-last"), "{stdout}");
}

#[test]
fn bench_nn_rejects_unknown_models_and_devices() {
    for args in [
        ["--models", "huge"],
        ["--device", "tpu"],
        ["--precisions", "f8"],
        ["--layouts", "nwhc"],
    ] {
        let mut full = vec![
            "bench",
            "nn",
            "--batches",
            "1",
            "--train-batch",
            "0",
            "--playout-plies",
            "1",
        ];
        full.extend(args);
        assert_rejected(&full, "");
    }
}

#[test]
fn bench_train_reports_both_precisions_the_pipeline_and_memory() {
    assert_reports(
        &[
            "bench",
            "train",
            "--model",
            "tiny",
            "--device",
            "cpu",
            "--steps",
            "2",
            "--batch-size",
            "8",
            "--games",
            "2",
            "--threads",
            "1",
        ],
        &[
            "batch size               8",
            "raw step samples/s",
            "bf16/f32",
            "loss mean, all 3",
            "last step material",
            "ratio to raw",
            "s/batch on the prefetch thread",
            "step waited for input",
            "peak memory (VmHWM)",
        ],
    );
}

#[test]
fn bench_train_rejects_unknown_models() {
    assert_rejected(
        &["bench", "train", "--model", "huge"],
        "error: bench train: --model huge: invalid network configuration: unknown network \"huge\": expected tiny, cpu, gpu or <blocks>x<channels>",
    );
    assert_rejected(
        &["bench", "train", "--model", "0x48"],
        "error: bench train: --model 0x48: invalid network configuration:",
    );
}

#[test]
fn bench_arena_times_every_player_kind() {
    assert_reports(
        &[
            "bench",
            "arena",
            "--games",
            "2",
            "--max-plies",
            "10",
            "--parallel",
            "2",
            "--model",
            "tiny",
            "--sims",
            "2",
            "--ab-depths",
            "1",
            "--device",
            "cpu",
            "--threads",
            "1",
        ],
        &[
            "random                       vs random:   2 games",
            "greedy                       vs random:   2 games",
            "ab:1  start",
            "ab:1  vs greedy, one game of",
            "policy (random init)         warm-up match",
            "mcts 2 sims (random init)    vs random:   2 games",
            "search driver (warm-up + timed match)",
            "peak resident memory (VmHWM)",
        ],
    );
}

#[test]
fn bench_arena_rejects_bad_depths_and_models() {
    let base = ["bench", "arena", "--games", "1", "--max-plies", "2"];
    assert_rejected(
        &[&base[..], &["--ab-depths", "9"]].concat(),
        "error: bench arena: --ab-depths: `9` is not a depth from 1 to 4",
    );
    assert_rejected(
        &[&base[..], &["--model", "huge"]].concat(),
        "error: bench arena: --model huge: invalid network configuration: unknown network \"huge\": expected tiny, cpu, gpu or <blocks>x<channels> (e.g. 4x48); or none",
    );
}
