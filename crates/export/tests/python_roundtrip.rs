//! The export as another client sees it: Python torch loads `model.pt` and must reproduce the
//! Rust model's outputs; `scripts/export_example.py` must rank moves with exactly the
//! probabilities koshogi-nn's own inference gives.
//!
//! Python comes from `$KOSHOGI_PYTHON`, else the venv `scripts/setup-libtorch.sh` installs; if
//! neither has torch the tests print a NOTICE and pass without checking.

use std::path::{Path, PathBuf};
use std::process::Command;

use koshogi_export::{encode_game, export_checkpoint, npy, write_encoding};
use koshogi_nn::{
    checkpoint, DeviceSpec, EvalPosition, FeatureInput, InferenceModel, Model, ModelConfig,
    Precision, RuntimeConfig, FEATURE_LEN, INPUT_PLANES,
};
use koshogi_rules::{Game, RulesOptions};
use tch::{Device, Kind, Tensor};

fn python_with_torch() -> Option<PathBuf> {
    let python = koshogi_test_support::find_python("torch, numpy");
    if python.is_none() {
        eprintln!("NOTICE: no python with torch and numpy found ($KOSHOGI_PYTHON or the setup venv); skipping the Python check");
    }
    python
}

/// A tiny random model saved as a checkpoint in `dir`, exported to `dir/export`.
fn tiny_export(dir: &Path, seed: i64) -> (Model, PathBuf) {
    tch::set_num_threads(1);
    tch::manual_seed(seed);
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let card = dir.join("step-000000042/model.json");
    std::fs::create_dir_all(card.parent().unwrap()).unwrap();
    checkpoint::save(&model, &card, 42, serde_json::json!({})).unwrap();
    let out = dir.join("export");
    let summary = export_checkpoint(&card, &out).unwrap();
    assert_eq!(summary.card.training_step, 42);
    assert!(summary.torchscript.unwrap().is_file() && summary.weights.is_file());
    (model, out)
}

/// A few real positions (start, after some moves) and one of noise, as a `[N, C, 19, 19]` batch.
fn sample_inputs() -> Vec<f32> {
    let mut game = Game::new(RulesOptions::default());
    let mut features = Vec::new();
    for _ in 0..3 {
        let encoded = encode_game(&game, false).unwrap();
        features.extend_from_slice(&encoded.features);
        let moves = game.legal_moves();
        game.play(moves[moves.len() / 3]);
    }
    features.extend((0..FEATURE_LEN).map(|i| ((i * 7919) % 1000) as f32 / 1000.0));
    features
}

#[test]
fn python_torch_reproduces_the_rust_model() {
    let Some(python) = python_with_torch() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (model, export) = tiny_export(dir.path(), 11);
    let inputs = sample_inputs();
    let n = inputs.len() / FEATURE_LEN;
    npy::write_f32(
        &dir.path().join("inputs.npy"),
        &inputs,
        &[n, INPUT_PLANES, 19, 19],
    )
    .unwrap();

    let script = r#"
import sys, numpy as np, torch
module = torch.jit.load(sys.argv[1] + "/model.pt")
x = torch.from_numpy(np.load(sys.argv[2]))
with torch.no_grad():
    out = module.forward(x)
np.save(sys.argv[3], out.numpy().astype(np.float32))
"#;
    let out_path = dir.path().join("outputs.npy");
    let status = Command::new(&python)
        .args(["-c", script])
        .arg(&export)
        .arg(dir.path().join("inputs.npy"))
        .arg(&out_path)
        .status()
        .unwrap();
    assert!(status.success(), "python failed");
    let (packed, shape) = npy::read_f32(&out_path).unwrap();
    assert_eq!(shape, vec![n, koshogi_export::PACKED_WIDTH]);

    let input = Tensor::from_slice(&inputs).view([n as i64, INPUT_PLANES as i64, 19, 19]);
    let expected = tch::no_grad(|| model.network.forward(&input));
    let to_vec =
        |t: &Tensor| Vec::<f32>::try_from(t.to_kind(Kind::Float).contiguous().view([-1])).unwrap();
    let (policy, wdl) = (to_vec(&expected.policy), to_vec(&expected.wdl_logits));
    let (moves_left, material) = (to_vec(&expected.moves_left), to_vec(&expected.material));
    let width = koshogi_export::PACKED_WIDTH;
    let policy_len = width - 5;
    let mut worst = 0.0f32;
    for i in 0..n {
        let row = &packed[i * width..(i + 1) * width];
        let mut want = policy[i * policy_len..(i + 1) * policy_len].to_vec();
        want.extend_from_slice(&wdl[3 * i..3 * i + 3]);
        want.push(moves_left[i]);
        want.push(material[i]);
        for (a, b) in row.iter().zip(&want) {
            worst = worst.max((a - b).abs());
        }
    }
    assert!(worst <= 1e-5, "Python output differs from Rust by {worst}");
}

#[test]
fn example_script_ranks_moves_like_the_rust_inference() {
    let Some(python) = python_with_torch() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (model, export) = tiny_export(dir.path(), 5);
    let mut game = Game::new(RulesOptions::default());
    let first = game.legal_moves()[7];
    game.play(first); // White to move: the mover's frame is turned
    let encode_dir = dir.path().join("encoded");
    let encoded = encode_game(&game, false).unwrap();
    write_encoding(&encoded, &encode_dir).unwrap();

    let summary = koshogi_test_support::json_output(
        Command::new(&python)
            .arg(koshogi_test_support::workspace_root().join("scripts/export_example.py"))
            .arg(&export)
            .arg(&encode_dir)
            .args(["--top", "5", "--json"]),
    );

    let runtime = RuntimeConfig {
        device: DeviceSpec::Cpu,
        precision: Precision::Float32,
        channels_last: None,
    };
    let mut inference = InferenceModel::from_model(&model, &runtime).unwrap();
    let legal = game.legal_moves();
    let mut evaluations = Vec::new();
    inference
        .evaluate(
            &[EvalPosition {
                input: FeatureInput::from_game(&game),
                moves: &legal,
            }],
            &mut evaluations,
        )
        .unwrap();
    let policy = &evaluations[0].policy;
    assert_eq!(
        summary["legal_moves"].as_u64().unwrap() as usize,
        legal.len()
    );
    let top = summary["top"].as_array().unwrap();
    assert_eq!(top.len(), 5);
    let mut previous = f64::INFINITY;
    for entry in top {
        let index = entry["index"].as_u64().unwrap() as usize;
        let p = entry["probability"].as_f64().unwrap();
        assert_eq!(
            entry["canonical"].as_str().unwrap(),
            legal[index].to_string()
        );
        assert!(
            (p - policy[index] as f64).abs() < 1e-5,
            "{p} vs {}",
            policy[index]
        );
        assert!(p <= previous);
        previous = p;
    }
    // Nothing outside the reported top beats its last entry.
    let best_rust = policy.iter().cloned().fold(0.0f32, f32::max) as f64;
    assert!((top[0]["probability"].as_f64().unwrap() - best_rust).abs() < 1e-5);
    let wdl: Vec<f64> = summary["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for (a, b) in wdl.iter().zip(evaluations[0].wdl) {
        assert!((a - b as f64).abs() < 1e-5);
    }
}
