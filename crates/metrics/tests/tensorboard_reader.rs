//! TensorBoard's own reader (`EventAccumulator`, from the venv's `tensorboard` package) loads our
//! event files with the scalar values, steps, histograms and text we wrote.

use std::process::Command;

use koshogi_metrics::EventWriter;

const READ_WITH_TENSORBOARD: &str = r#"
import json, sys
from tensorboard.backend.event_processing import event_accumulator as ea
acc = ea.EventAccumulator(sys.argv[1], size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.TENSORS: 0})
acc.Reload()
tags = acc.Tags()
out = {
    "scalars": {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in tags["scalars"]},
    "histograms": {t: [[e.step, e.histogram_value.num, e.histogram_value.min,
                        e.histogram_value.max, e.histogram_value.sum, list(e.histogram_value.bucket)]
                       for e in acc.Histograms(t)] for t in tags["histograms"]},
    "texts": {t: [[e.step, e.tensor_proto.string_val[0].decode()] for e in acc.Tensors(t)]
              for t in tags["tensors"]},
}
print(json.dumps(out))
"#;

#[test]
fn tensorboard_reads_back_scalars_histograms_and_text() {
    let Some(python) =
        koshogi_test_support::find_python("tensorboard.backend.event_processing.event_accumulator")
    else {
        println!("NOTICE: skipped: no python with the tensorboard package found");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut writer = EventWriter::create(dir.path()).unwrap();
    let losses = [
        (0i64, 2.5f64),
        (10, 1.75),
        (20, 1.125),
        (1_000_000_000_000, -0.5),
    ];
    for &(step, loss) in &losses {
        writer.add_scalar("train/loss", loss, step).unwrap();
    }
    writer
        .add_scalars(
            7,
            &[
                ("selfplay/games_per_second", 0.25),
                ("selfplay/positions_per_second", 96.0),
            ],
        )
        .unwrap();
    let values: Vec<f64> = (0..1000).map(|i| (i % 100) as f64 / 10.0).collect();
    writer.add_histogram("nn/weights", &values, 3).unwrap();
    writer.add_text("config", "sims = 16", 0).unwrap();
    drop(writer);

    let read = koshogi_test_support::json_output(
        Command::new(&python)
            .args(["-c", READ_WITH_TENSORBOARD])
            .arg(dir.path()),
    );

    let loss = read["scalars"]["train/loss"].as_array().unwrap();
    assert_eq!(loss.len(), losses.len());
    for (got, &(step, value)) in loss.iter().zip(&losses) {
        assert_eq!(got[0].as_i64().unwrap(), step);
        assert_eq!(
            got[1].as_f64().unwrap(),
            value,
            "exactly representable in f32"
        );
    }
    assert_eq!(
        read["scalars"]["selfplay/games_per_second"][0],
        serde_json::json!([7, 0.25])
    );
    assert_eq!(
        read["scalars"]["selfplay/positions_per_second"][0],
        serde_json::json!([7, 96.0])
    );

    let histogram = &read["histograms"]["nn/weights"][0];
    assert_eq!(histogram[0], 3);
    assert_eq!(histogram[1].as_f64().unwrap(), 1000.0);
    assert_eq!(histogram[2].as_f64().unwrap(), 0.0);
    assert_eq!(histogram[3].as_f64().unwrap(), 9.9);
    assert!((histogram[4].as_f64().unwrap() - values.iter().sum::<f64>()).abs() < 1e-6);
    let bucket_total: f64 = histogram[5]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_f64().unwrap())
        .sum();
    assert_eq!(bucket_total, 1000.0);

    assert_eq!(
        read["texts"]["config"][0],
        serde_json::json!([0, "sims = 16"])
    );
}

#[test]
fn a_second_writer_in_the_same_directory_appends_a_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let first = EventWriter::create(dir.path()).unwrap();
    let second = EventWriter::create(dir.path()).unwrap();
    assert_ne!(first.path(), second.path());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}
