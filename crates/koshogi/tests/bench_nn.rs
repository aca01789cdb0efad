//! `koshogi bench nn` end to end, at toy sizes: it runs, reports every measurement, and turns
//! bad options into an error message instead of a panic.

use std::process::Command;

fn koshogi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(args)
        .output()
        .expect("koshogi runs")
}

#[test]
fn bench_nn_reports_inference_training_and_memory() {
    let out = koshogi(&[
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
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("6 blocks x 64 channels"), "{stdout}");
    assert!(
        stdout.contains("b1:") && stdout.contains("b2:") && stdout.contains("pos/s"),
        "{stdout}"
    );
    assert!(
        stdout.contains("train step f32, batch 2:") && stdout.contains("samples/s"),
        "{stdout}"
    );
    assert!(
        stdout.contains("peak RSS") && stdout.contains("MiB"),
        "{stdout}"
    );
}

#[test]
fn bench_nn_rejects_unknown_models_and_devices() {
    for args in [
        ["--models", "huge"],
        ["--device", "tpu"],
        ["--precisions", "f8"],
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
        let out = koshogi(&full);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(
            stderr.contains("error:") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
}
