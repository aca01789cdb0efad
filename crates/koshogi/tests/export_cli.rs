//! `koshogi export` + `koshogi encode` + `scripts/export_example.py` end to end. Needs Python
//! with torch (`$KOSHOGI_PYTHON` or the setup venv); without it the Python step prints a NOTICE.

use std::path::{Path, PathBuf};
use std::process::Command;

fn koshogi(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn python_with_torch() -> Option<PathBuf> {
    let python = koshogi_test_support::find_python("torch, numpy");
    if python.is_none() {
        eprintln!("NOTICE: no python with torch found; skipping scripts/export_example.py");
    }
    python
}

#[test]
fn export_encode_and_the_example_script_work_together() {
    let dir = tempfile::tempdir().unwrap();
    let step = dir.path().join("checkpoints/step-000000100");
    koshogi_nn::fixtures::save_tiny_checkpoint(&step, 100, 2, serde_json::json!({}));
    let export = dir.path().join("export");
    let encoded = dir.path().join("encoded");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    koshogi(&["export", "--checkpoint", &s(&step), "--out", &s(&export)]);
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(export.join("model-card.json")).unwrap())
            .unwrap();
    assert_eq!(card["training_step"], 100);
    assert_eq!(card["format"], "koshogi-export");
    assert_eq!(card["input_features"]["planes"], 142);
    assert_eq!(card["input_features"]["attack_planes"], false);
    assert_eq!(card["torchscript_file"], "model.pt");
    assert!(card.get("onnx").is_none());
    assert!(export.join("model.pt").is_file() && !export.join("model.onnx").exists());
    // The weights are safetensors (an 8-byte header length, then the JSON header), the same
    // bytes as the checkpoint's.
    let weights = std::fs::read(export.join("model.safetensors")).unwrap();
    assert_eq!(weights[8], b'{');
    assert_eq!(
        weights,
        std::fs::read(step.join("model.safetensors")).unwrap()
    );
    koshogi(&["encode", "startpos", "--out", &s(&encoded)]);
    let moves: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(encoded.join("moves.json")).unwrap())
            .unwrap();
    let count = moves["moves"].as_array().unwrap().len();
    let game = koshogi_rules::Game::new(koshogi_rules::RulesOptions::default());
    assert_eq!(count, game.legal_moves().len());
    // The attack planes are filled only when asked: a pawn of each side side by side (without
    // drums, pawns step sideways), White to move.
    let hanging = format!(
        "g,18/{}8,p,P,9/{}18,G w 1",
        "19/".repeat(8),
        "19/".repeat(8)
    );
    let attack_sums = |extra: &[&str]| {
        let out = dir.path().join(format!("encoded-attacks-{}", extra.len()));
        let mut args = vec!["encode", hanging.as_str(), "--out"];
        let out_text = s(&out);
        args.push(&out_text);
        args.extend_from_slice(extra);
        koshogi(&args);
        let (features, shape) = koshogi_export::npy::read_f32(&out.join("features.npy")).unwrap();
        assert_eq!(shape, [1, 142, 19, 19]);
        [140, 141].map(|plane: usize| features[plane * 361..(plane + 1) * 361].iter().sum::<f32>())
    };
    assert_eq!(attack_sums(&[]), [0.0, 0.0]);
    assert_eq!(attack_sums(&["--attack-planes"]), [1.0, 1.0]);

    let Some(python) = python_with_torch() else {
        return;
    };
    let script = koshogi_test_support::workspace_root().join("scripts/export_example.py");
    let text = koshogi_test_support::succeeded(
        &Command::new(python)
            .arg(script)
            .arg(&export)
            .arg(&encoded)
            .args(["--top", "3"])
            .output()
            .unwrap(),
        "export_example.py",
    );
    assert!(text.contains(&format!("legal moves: {count}")), "{text}");
    let ranked: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(char::is_numeric))
        .collect();
    assert_eq!(ranked.len(), 3, "{text}");
}

#[test]
fn onnx_export_without_the_python_environment_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let model = koshogi_nn::Model::new(&koshogi_nn::ModelConfig::tiny(), tch::Device::Cpu).unwrap();
    let step = dir.path().join("step-000000001");
    std::fs::create_dir_all(&step).unwrap();
    koshogi_nn::checkpoint::save(&model, &step.join("model.json"), 1, serde_json::json!({}))
        .unwrap();
    let out = dir.path().join("export");
    for python in ["/nonexistent/bin/python", ""] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_koshogi"));
        command
            .args(["export", "--format", "onnx", "--checkpoint"])
            .arg(&step)
            .arg("--out")
            .arg(&out)
            .env("KOSHOGI_PYTHON", python)
            // No venv in this cache either.
            .env("KOSHOGI_CACHE", dir.path().join("empty-cache"));
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].contains("scripts/setup-python.sh"), "{stderr}");
        assert!(!out.join("model.onnx").exists());
    }
}

/// `koshogi encode --run RUN --out DIR`: a run's shards as training arrays, with the run's
/// settings; a second run only checks; `--shards` without a configuration uses the defaults.
#[test]
fn encode_turns_a_runs_shards_into_training_arrays() {
    use koshogi_train::synthetic::{write_random_games, SyntheticOptions};
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let options = SyntheticOptions {
        games: 3,
        max_plies: 30,
        positions_per_shard: 40,
        ..SyntheticOptions::default()
    };
    let report = write_random_games(&run.join("shards"), &options).unwrap();
    std::fs::write(
        run.join("config.toml"),
        "[selfplay]\nmax_plies = 30\n\n[train]\nsearch_value_weight = 0.5\n",
    )
    .unwrap();
    let out = dir.path().join("encoded");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let text = koshogi(&["encode", "--run", &s(&run), "--out", &s(&out)]);
    assert!(
        text.contains(&format!(
            "encoded {} shards ({} positions",
            report.shards, report.positions
        )),
        "{text}"
    );
    assert!(text.contains("config.toml"), "{text}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["options"]["max_plies"], 30);
    assert_eq!(manifest["options"]["search_value_weight"], 0.5);
    assert_eq!(manifest["positions"], report.positions);
    assert_eq!(manifest["files"].as_array().unwrap().len(), report.shards);
    let text = koshogi(&["encode", "--run", &s(&run), "--out", &s(&out)]);
    assert!(
        text.contains("encoded 0 shards (0 positions")
            && text.contains(&format!("{} up to date", report.shards)),
        "{text}"
    );
    // `--set` changes a target for this encoding only: the manifest says so, the run's file
    // is untouched.
    let kept = std::fs::read_to_string(run.join("config.toml")).unwrap();
    let other = dir.path().join("encoded-other");
    let text = koshogi(&[
        "encode",
        "--run",
        &s(&run),
        "--out",
        &s(&other),
        "--set",
        "train.search_value_weight=0.25",
    ]);
    assert!(
        text.contains("with --set train.search_value_weight=0.25"),
        "{text}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(other.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["options"]["search_value_weight"], 0.25);
    assert_eq!(manifest["options"]["max_plies"], 30);
    assert_eq!(
        std::fs::read_to_string(run.join("config.toml")).unwrap(),
        kept
    );
    // A shard directory without a configuration beside it: the defaults, with a warning.
    let bare = dir.path().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    for entry in std::fs::read_dir(run.join("shards")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), bare.join(entry.file_name())).unwrap();
    }
    let output = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args([
            "encode",
            "--shards",
            &s(&bare),
            "--out",
            &s(&dir.path().join("e2")),
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("built-in defaults"));

    // User errors: one line each.
    for args in [
        vec!["encode", "--run", "/nonexistent/run", "--out", "/tmp/x"],
        vec!["encode", "startpos", "--run", &s(&run), "--out", "/tmp/x"],
        vec![
            "encode", "startpos", "--config", "/x.toml", "--out", "/tmp/x",
        ],
        vec![
            "encode",
            "startpos",
            "--set",
            "train.seed=2",
            "--out",
            "/tmp/x",
        ],
        vec![
            "encode",
            "--run",
            &s(&run),
            "--set",
            "train.no_such_key=1",
            "--out",
            "/tmp/x",
        ],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_koshogi"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.lines().any(|l| l.starts_with("error:")), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
