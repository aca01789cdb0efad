//! The Python twin of the network (`python/koshogi_zero`): it must load checkpoints and exports
//! by their tensor names and cards and reproduce the Rust model's four outputs on real
//! positions, for every optional part an architecture can switch (stem kernel, global pooling,
//! the relative material head); a checkpoint it saves must load in Rust with the same outputs;
//! and user errors (a card that does not match its weights, missing files, changed weights) must
//! be one line, never a traceback.
//!
//! Python is `$KOSHOGI_PYTHON`, else the venv of `scripts/setup-libtorch.sh` (it has torch,
//! numpy and safetensors); without one the tests print a NOTICE and pass, like the other
//! Python checks.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::noisy_model;
use koshogi_export::{encode_game, export_checkpoint, npy};
use koshogi_nn::{checkpoint, Model, ModelConfig, FEATURE_LEN, INPUT_PLANES};
use koshogi_rules::{Game, RulesOptions};
use tch::{Device, Kind, Tensor};

fn python() -> Option<PathBuf> {
    let python = koshogi_test_support::find_python("torch, numpy, safetensors");
    if python.is_none() {
        eprintln!("NOTICE: no python with torch, numpy and safetensors found ($KOSHOGI_PYTHON or the setup venv); skipping the Python twin check");
    }
    python
}

/// `python -c script args…` with `python/` importable.
fn run_python(python: &Path, script: &str, args: &[&Path]) -> Output {
    koshogi_test_support::python_command(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .unwrap()
}

/// Real positions: the start, Black and White to move after a few moves, a capture-rich
/// position deep into a random game with a ply limit (the ply plane is not zero), as a
/// `[N, 140, 19, 19]` batch.
fn real_positions() -> Vec<f32> {
    let mut game = Game::new(RulesOptions::default()).with_max_plies(Some(300));
    let mut features = Vec::new();
    for ply in 0..60 {
        if [0, 1, 2, 59].contains(&ply) {
            features.extend_from_slice(&encode_game(&game, false).unwrap().features);
        }
        let moves = game.legal_moves();
        // Prefer captures so the position gets interesting; otherwise a spread of moves.
        let capture = moves
            .iter()
            .position(|m| !m.removed_points().is_empty() || ply % 7 == 3);
        game.play(moves[capture.unwrap_or((ply * 37) % moves.len())]);
    }
    features
}

fn write_checkpoint(model: &Model, dir: &Path, step: u64) -> PathBuf {
    let card = dir.join(format!("step-{step:09}/model.json"));
    std::fs::create_dir_all(card.parent().unwrap()).unwrap();
    checkpoint::save(model, &card, step, serde_json::json!({})).unwrap();
    card
}

/// `FORWARD INPUTS.npy (MODEL OUT_DIR)…`: each model's outputs on the inputs, one `.npy` per
/// output in its directory (one Python process for all: importing torch takes seconds).
const FORWARD: &str = r#"
import sys, numpy as np, torch
from koshogi_zero import load_model, OUTPUT_NAMES
torch.set_num_threads(1)
x = torch.from_numpy(np.load(sys.argv[1]))
for source, out_dir in zip(sys.argv[2::2], sys.argv[3::2]):
    model, card = load_model(source)
    with torch.no_grad():
        out = model(x)
    for name in OUTPUT_NAMES:
        np.save(f"{out_dir}/{name}.npy", getattr(out, name).numpy().astype(np.float32))
    print(card["training_step"])
"#;

/// Largest absolute difference per output between the Rust model and what Python wrote.
fn compare(model: &Model, inputs: &[f32], out_dir: &Path) -> [f32; 4] {
    let n = inputs.len() / FEATURE_LEN;
    let input = Tensor::from_slice(inputs).view([n as i64, INPUT_PLANES as i64, 19, 19]);
    let expected = tch::no_grad(|| model.network.forward(&input));
    let rust = [
        &expected.policy,
        &expected.wdl_logits,
        &expected.moves_left,
        &expected.material,
    ];
    let mut worst = [0f32; 4];
    for (i, (name, want)) in koshogi_export::OUTPUT_NAMES.iter().zip(rust).enumerate() {
        let (got, shape) = npy::read_f32(&out_dir.join(format!("{name}.npy"))).unwrap();
        let want_shape: Vec<usize> = want.size().iter().map(|&d| d as usize).collect();
        assert_eq!(shape, want_shape, "{name}");
        let want = Vec::<f32>::try_from(want.to_kind(Kind::Float).contiguous().view([-1])).unwrap();
        worst[i] = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
    }
    worst
}

/// A model of `config` with random weights at full scale (the initial residual scaling would
/// hide the trunk), saved as a checkpoint at step 42 and exported.
fn random_model(config: &ModelConfig, seed: i64, dir: &Path) -> (Model, PathBuf, PathBuf) {
    let model = noisy_model(config, seed);
    let card = write_checkpoint(&model, dir, 42);
    let export = dir.join("export");
    export_checkpoint(&card, &export).unwrap();
    (model, card.parent().unwrap().to_path_buf(), export)
}

#[test]
fn the_python_twin_reproduces_the_rust_model_for_every_architecture_option() {
    let Some(python) = python() else {
        return;
    };
    tch::set_num_threads(1);
    let tiny = ModelConfig::tiny();
    let configs = [
        tiny.clone(),
        // No global pooling in the trunk, a 1x1 stem, the relative material head, the value
        // head reading the counted material.
        ModelConfig {
            stem_kernel: 1,
            global_pool_every: 0,
            material_relative: true,
            material_utility: 0.5,
            value_counts_material: true,
            ..tiny.clone()
        },
        // Every block pools; a 5x5 stem; other head widths.
        ModelConfig {
            blocks: 3,
            stem_kernel: 5,
            global_pool_every: 1,
            global_pool_channels: 6,
            policy_channels: 5,
            value_channels: 7,
            value_hidden: 9,
            ..tiny
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    let inputs = real_positions();
    let n = inputs.len() / FEATURE_LEN;
    let input_path = dir.path().join("inputs.npy");
    npy::write_f32(&input_path, &inputs, &[n, INPUT_PLANES, 19, 19]).unwrap();
    // Each model from its checkpoint's step directory and from its export directory.
    let mut models = Vec::new();
    let mut cases = Vec::new();
    for (i, config) in configs.iter().enumerate() {
        let model_dir = dir.path().join(format!("model{i}"));
        let (model, step_dir, export) = random_model(config, i as i64 + 1, &model_dir);
        models.push(model);
        for (j, source) in [step_dir, export].into_iter().enumerate() {
            let out = model_dir.join(format!("out{j}"));
            std::fs::create_dir_all(&out).unwrap();
            cases.push((i, source, out));
        }
    }
    let mut args: Vec<&Path> = vec![&input_path];
    for (_, source, out) in &cases {
        args.push(source);
        args.push(out);
    }
    let output = run_python(&python, FORWARD, &args);
    koshogi_test_support::succeeded(&output, "python");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .collect::<Vec<_>>(),
        vec!["42"; cases.len()]
    );
    for (i, source, out) in &cases {
        let worst = compare(&models[*i], &inputs, out);
        eprintln!(
            "twin vs Rust on {n} real positions ({:?}, from {}): max abs diff policy {:.2e}, wdl {:.2e}, moves_left {:.2e}, material {:.2e}",
            configs[*i],
            source.display(),
            worst[0],
            worst[1],
            worst[2],
            worst[3]
        );
        for (name, diff) in koshogi_export::OUTPUT_NAMES.iter().zip(worst) {
            assert!(diff <= 1e-5, "{name} differs by {diff}");
        }
    }
}

#[test]
fn a_checkpoint_saved_by_python_loads_in_rust_with_the_same_outputs() {
    let Some(python) = python() else {
        return;
    };
    tch::set_num_threads(1);
    tch::manual_seed(4);
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let card = write_checkpoint(&model, dir.path(), 7);
    let inputs = real_positions();
    let n = inputs.len() / FEATURE_LEN;
    let input_path = dir.path().join("inputs.npy");
    npy::write_f32(&input_path, &inputs, &[n, INPUT_PLANES, 19, 19]).unwrap();
    let saved = dir.path().join("python-step");
    let script = r#"
import sys, json, numpy as np, torch
from koshogi_zero import load_model, save_checkpoint, OUTPUT_NAMES
model, card = load_model(sys.argv[1])
with torch.no_grad():
    for p in model.parameters():
        p.mul_(1.5).add_(0.01)
path = save_checkpoint(model, sys.argv[2], card["training_step"] + 1, card["rules_options"])
x = torch.from_numpy(np.load(sys.argv[3]))
with torch.no_grad():
    out = model(x)
for name in OUTPUT_NAMES:
    np.save(f"{sys.argv[2]}/{name}.npy", getattr(out, name).numpy().astype(np.float32))
print(path)
"#;
    let output = run_python(&python, script, &[&card, &saved, &input_path]);
    koshogi_test_support::succeeded(&output, "python");
    let (loaded, loaded_card) = checkpoint::load(&saved.join("model.json"), Device::Cpu).unwrap();
    assert_eq!(loaded_card.training_step, 8);
    assert_eq!(loaded_card.architecture, ModelConfig::tiny());
    let worst = compare(&loaded, &inputs, &saved);
    // 1e-4, not the 1e-5 of the other comparisons: the weights were scaled by 1.5, and PyTorch
    // sums in another order when OMP_NUM_THREADS is not 1 (3e-5 seen with the default threads).
    assert!(worst.iter().all(|&d| d <= 1e-4), "{worst:?}");
    // The weights did change (the comparison is not between two copies of the original).
    let original = compare(&model, &inputs, &saved);
    assert!(original[0] > 1e-3, "{original:?}");
}

/// Runs `python -m koshogi_zero.evaluate MODEL FEATURES` for each pair in one Python process
/// (through the same `run_main` the command line uses) and returns (exit code, stderr) per
/// pair; a traceback (anything but a user error) fails the whole script.
fn evaluate_cases(python: &Path, cases: &[(&Path, &Path)]) -> Vec<(i64, String)> {
    let script = r#"
import sys, io, json, contextlib
from koshogi_zero.errors import run_main
from koshogi_zero import evaluate
results = []
for model, features in list(zip(sys.argv[1::2], sys.argv[2::2])):
    sys.argv = ["python -m koshogi_zero.evaluate", model, features]
    err, code = io.StringIO(), 0
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            run_main(evaluate.main, "koshogi_zero.evaluate")
        except SystemExit as stop:
            code = stop.code
    results.append([code, err.getvalue()])
print(json.dumps(results))
"#;
    let args: Vec<&Path> = cases.iter().flat_map(|(m, f)| [*m, *f]).collect();
    let output = run_python(python, script, &args);
    koshogi_test_support::succeeded(&output, "python");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn user_errors_are_one_line_not_a_traceback() {
    let Some(python) = python() else {
        return;
    };
    tch::set_num_threads(1);
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let card = write_checkpoint(&model, dir.path(), 1);
    let step = card.parent().unwrap();
    let features = dir.path().join("features.npy");
    let game = Game::new(RulesOptions::default());
    npy::write_f32(
        &features,
        &encode_game(&game, false).unwrap().features,
        &[1, INPUT_PLANES, 19, 19],
    )
    .unwrap();
    let flat = dir.path().join("flat.npy");
    npy::write_f32(&flat, &[0.0; 10], &[10]).unwrap();
    // Cards beside the good one: an architecture that does not match the weights (their hash
    // still matches), an architecture the twin does not know, and not JSON at all.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&card).unwrap()).unwrap();
    json["architecture"]["channels"] = 24.into();
    let mismatched = step.join("mismatched.json");
    std::fs::write(&mismatched, serde_json::to_string(&json).unwrap()).unwrap();
    json["architecture"]["channels"] = 16.into();
    json["architecture"]["attention"] = true.into();
    let unknown = step.join("unknown.json");
    std::fs::write(&unknown, serde_json::to_string(&json).unwrap()).unwrap();
    let garbage = step.join("garbage.json");
    std::fs::write(&garbage, "{not json").unwrap();
    // A copy of the checkpoint whose weights changed behind the card's back.
    let changed = dir.path().join("changed");
    std::fs::create_dir_all(&changed).unwrap();
    std::fs::copy(&card, changed.join("model.json")).unwrap();
    let mut bytes = std::fs::read(step.join("model.safetensors")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(changed.join("model.safetensors"), &bytes).unwrap();
    let nowhere = dir.path().join("nowhere");
    let missing_features = dir.path().join("none.npy");

    let cases: [(&Path, &Path, Option<&str>); 9] = [
        (&card, &features, None),
        (step, &features, None),
        (
            &mismatched,
            &features,
            Some("does not match the card's architecture"),
        ),
        (&unknown, &features, Some("unknown key 'attention'")),
        (&garbage, &features, Some("not a JSON model card")),
        (&nowhere, &features, Some("no such file or directory")),
        (dir.path(), &features, Some("no model card")),
        (&card, &missing_features, Some("none.npy")),
        (&changed, &features, Some("SHA-256")),
    ];
    let pairs: Vec<(&Path, &Path)> = cases.iter().map(|(m, f, _)| (*m, *f)).collect();
    let results = evaluate_cases(&python, &pairs);
    for ((model, _, expected), (code, stderr)) in cases.iter().zip(&results) {
        match expected {
            None => assert_eq!(*code, 0, "{}: {stderr}", model.display()),
            Some(needle) => {
                assert_eq!(*code, 1, "{}: {stderr}", model.display());
                assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
                assert!(
                    stderr.contains("error:") && stderr.contains(needle),
                    "{}: {stderr}",
                    model.display()
                );
            }
        }
    }
    // Features of the wrong shape, and once as a separate process, as a user runs it.
    let output = koshogi_test_support::python_command(&python)
        .args(["-m", "koshogi_zero.evaluate"])
        .arg(&card)
        .arg(&flat)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("Traceback"), "{stderr}");
    assert_eq!(
        stderr.trim(),
        format!(
            "koshogi_zero.evaluate: error: {}: shape [10], expected [N, 142, 19, 19]",
            flat.display()
        )
    );
}
