//! `koshogi train` end to end on tiny synthetic shards with a tiny network, and the shipped
//! run configurations' [model] and [train] sections.

use std::path::Path;
use std::process::Command;

use koshogi_nn::ModelConfig;
use koshogi_run_store::local_checkpoints::list_checkpoints;
use koshogi_train::synthetic::{write_random_games, SyntheticOptions};
use koshogi_train::TrainConfig;

const TINY_CONFIG: &str = r#"
[model]
blocks = 1
channels = 8
global_pool_every = 0
policy_channels = 4
value_channels = 4
value_hidden = 8

[selfplay]
max_plies = 30

[train]
batch_size = 4
steps = 3
device = "cpu"
threads = 1
start_rows = 1
samples_per_new_row = 0.0
log_every_steps = 1

[train.checkpoint]
every_steps = 2
keep_last = 10
"#;

fn koshogi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the koshogi binary runs")
}

fn steps_in(run: &Path) -> Vec<u64> {
    list_checkpoints(&run.join("checkpoints"))
        .unwrap()
        .iter()
        .map(|c| c.step)
        .collect()
}

#[test]
fn train_writes_checkpoints_and_events_and_resumes() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    let options = SyntheticOptions {
        games: 2,
        max_plies: 30,
        positions_per_shard: 16,
        ..Default::default()
    };
    write_random_games(&run.join("shards"), &options).unwrap();
    let config = root.path().join("tiny.toml");
    std::fs::write(&config, TINY_CONFIG).unwrap();
    let run_arg = run.to_str().unwrap();

    let first = koshogi(&[
        "train",
        "--run",
        run_arg,
        "--config",
        config.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        first.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(stdout.contains("trained steps 0 -> 3"), "{stdout}");
    assert_eq!(steps_in(&run), vec![0, 2, 3]);
    let events = std::fs::read_dir(run.join("tb")).unwrap().count();
    assert!(events >= 1, "no TensorBoard event file");
    assert_eq!(
        std::fs::read_to_string(run.join("config.toml")).unwrap(),
        TINY_CONFIG
    );

    // The directory now holds a run: starting afresh is refused...
    let refused = koshogi(&["train", "--run", run_arg, "--steps", "5"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--resume"));

    // ...and --resume continues it under the kept configuration.
    let resumed = koshogi(&["train", "--run", run_arg, "--steps", "5", "--resume"]);
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(
        resumed.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(stdout.contains("trained steps 3 -> 5"), "{stdout}");
    assert_eq!(steps_in(&run), vec![0, 2, 3, 4, 5]);
}

#[test]
fn a_bad_config_is_a_clear_error() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("bad.toml");
    std::fs::write(&config, "[train]\nbatch_sise = 3\n").unwrap();
    let run = root.path().join("run");
    let out = koshogi(&[
        "train",
        "--run",
        run.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("batch_sise"), "{stderr}");
}

#[test]
fn shipped_configs_have_valid_model_and_train_sections() {
    let configs = koshogi_test_support::workspace_root().join("configs");
    for name in ["quick.toml", "cpu.toml", "gpu.toml"] {
        let text = std::fs::read_to_string(configs.join(name)).unwrap();
        let table: toml::Table = toml::from_str(&text).unwrap();
        let train: TrainConfig = table["train"]
            .clone()
            .try_into()
            .unwrap_or_else(|e| panic!("{name} [train]: {e}"));
        train
            .validate()
            .unwrap_or_else(|e| panic!("{name} [train]: {e}"));
        let model: ModelConfig = table["model"]
            .clone()
            .try_into()
            .unwrap_or_else(|e| panic!("{name} [model]: {e}"));
        model
            .validate()
            .unwrap_or_else(|e| panic!("{name} [model]: {e}"));
    }
}
