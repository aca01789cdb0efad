//! ONNX export (`koshogi export --format onnx`): the graph made by the Python twin must have the
//! four named outputs with a dynamic batch and reproduce the Rust model under onnxruntime on
//! real positions at two batch sizes.
//!
//! Python is `$KOSHOGI_PYTHON`, else the venv of `scripts/setup-libtorch.sh`, which
//! `scripts/setup-python.sh` completes with onnx, onnxscript and onnxruntime (scripts/test.sh
//! runs it); without such a Python the test prints a NOTICE and passes, like the other Python
//! checks.

mod common;

use std::path::Path;
use std::process::Command;

use common::noisy_model;
use koshogi_export::{encode_game, export_checkpoint_with, npy, ExportError, ExportOptions};
use koshogi_nn::{checkpoint, Model, ModelConfig, FEATURE_LEN, INPUT_PLANES};
use koshogi_rules::{Game, RulesOptions};
use tch::{Device, Kind, Tensor};

/// Positions of a game with a ply limit: the start, White to move, and later ones.
fn real_positions(count: usize) -> Vec<f32> {
    let mut game = Game::new(RulesOptions::default()).with_max_plies(Some(300));
    let mut features = Vec::new();
    for ply in 0..count * 9 {
        if ply % 9 == 0 || ply == 1 {
            features.extend_from_slice(&encode_game(&game, false).unwrap().features);
        }
        let moves = game.legal_moves();
        game.play(moves[(ply * 31) % moves.len()]);
    }
    features.truncate(count * FEATURE_LEN);
    features
}

const ONNXRUNTIME: &str = r#"
import sys, json, numpy as np, onnx, onnxruntime
model = onnx.load(sys.argv[1])
dims = {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in list(model.graph.input) + list(model.graph.output)}
options = onnxruntime.SessionOptions()
options.intra_op_num_threads = 1
session = onnxruntime.InferenceSession(sys.argv[1], options, providers=["CPUExecutionProvider"])
x = np.load(sys.argv[2])
names = [o.name for o in session.get_outputs()]
full = session.run(None, {"features": x})
single = session.run(None, {"features": x[1:2]})
for name, value, one in zip(names, full, single):
    np.save(f"{sys.argv[3]}/{name}.npy", value.astype(np.float32))
    np.save(f"{sys.argv[3]}/{name}-1.npy", one.astype(np.float32))
print(json.dumps({"names": names, "dims": dims}))
"#;

#[test]
fn the_onnx_graph_reproduces_the_rust_model_under_onnxruntime() {
    let Some(python) =
        koshogi_test_support::find_python("torch, safetensors, onnx, onnxscript, onnxruntime")
    else {
        eprintln!("NOTICE: no python with torch, onnx, onnxscript and onnxruntime found (run scripts/setup-python.sh); skipping the ONNX check");
        return;
    };
    tch::set_num_threads(1);
    let config = ModelConfig {
        material_relative: true,
        value_counts_material: true,
        ..ModelConfig::tiny()
    };
    let model = noisy_model(&config, 9);
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("step-000000005/model.json");
    std::fs::create_dir_all(card.parent().unwrap()).unwrap();
    checkpoint::save(&model, &card, 5, serde_json::json!({})).unwrap();
    let export = dir.path().join("export");
    std::fs::create_dir_all(&export).unwrap();
    std::fs::write(export.join("model.pt"), b"stale").unwrap();

    let options = ExportOptions {
        torchscript: false,
        onnx: Some(python.clone()),
    };
    let summary = export_checkpoint_with(&card, &export, &options).unwrap();
    assert!(summary.torchscript.is_none() && !export.join("model.pt").exists());
    let onnx_path = summary.onnx.clone().unwrap();
    assert!(onnx_path.is_file());
    // The card on disk names the graph and its outputs, and no TorchScript module.
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary.card_path).unwrap()).unwrap();
    assert!(written.get("torchscript_file").is_none());
    assert_eq!(written["onnx"]["file"], "model.onnx");
    let names: Vec<&str> = written["onnx"]["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, koshogi_export::OUTPUT_NAMES);
    assert!(written["onnx"]["opset"].as_u64().unwrap() >= 17);

    let count = 4;
    let inputs = real_positions(count);
    let input_path = dir.path().join("inputs.npy");
    npy::write_f32(&input_path, &inputs, &[count, INPUT_PLANES, 19, 19]).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let report = koshogi_test_support::json_output(
        Command::new(&python)
            .args(["-c", ONNXRUNTIME])
            .arg(&onnx_path)
            .arg(&input_path)
            .arg(&out),
    );
    assert_eq!(
        report["names"],
        serde_json::json!(koshogi_export::OUTPUT_NAMES)
    );
    // The batch dimension is symbolic everywhere.
    assert_eq!(
        report["dims"]["features"],
        serde_json::json!(["N", 142, 19, 19])
    );
    assert_eq!(
        report["dims"]["policy"],
        serde_json::json!(["N", 299, 19, 19])
    );
    assert_eq!(report["dims"]["wdl_logits"], serde_json::json!(["N", 3]));
    assert_eq!(report["dims"]["moves_left"], serde_json::json!(["N"]));
    assert_eq!(report["dims"]["material"], serde_json::json!(["N"]));

    let input = Tensor::from_slice(&inputs).view([count as i64, INPUT_PLANES as i64, 19, 19]);
    let expected = tch::no_grad(|| model.network.forward(&input));
    let heads = [
        &expected.policy,
        &expected.wdl_logits,
        &expected.moves_left,
        &expected.material,
    ];
    for (name, want) in koshogi_export::OUTPUT_NAMES.iter().zip(heads) {
        for (suffix, want) in [("", want.shallow_clone()), ("-1", want.narrow(0, 1, 1))] {
            let (got, shape) = npy::read_f32(&out.join(format!("{name}{suffix}.npy"))).unwrap();
            let want_shape: Vec<usize> = want.size().iter().map(|&d| d as usize).collect();
            assert_eq!(shape, want_shape, "{name}{suffix}");
            let want =
                Vec::<f32>::try_from(want.to_kind(Kind::Float).contiguous().view([-1])).unwrap();
            let diff = got
                .iter()
                .zip(&want)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            eprintln!(
                "onnxruntime vs Rust, {name}, batch {}: max abs diff {diff:.2e}",
                shape[0]
            );
            assert!(diff <= 1e-5, "{name}{suffix} differs by {diff}");
        }
    }
}

#[test]
fn a_missing_python_is_a_clear_error() {
    tch::set_num_threads(1);
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("model.json");
    checkpoint::save(&model, &card, 1, serde_json::json!({})).unwrap();
    let options = ExportOptions {
        torchscript: false,
        onnx: Some(Path::new("/nonexistent/bin/python").to_path_buf()),
    };
    let error = export_checkpoint_with(&card, &dir.path().join("export"), &options).unwrap_err();
    assert!(matches!(error, ExportError::Python(_)), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("/nonexistent/bin/python") && text.contains("scripts/setup-python.sh"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1);
}
