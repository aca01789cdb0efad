//! End-to-end tests of the main job and self-play on a tiny configuration: `koshogi selfplay`
//! writes shards and records that `koshogi show --game` replays; `koshogi run` trains, writes
//! checkpoints, and resumes when run again on the same directory.

use std::path::Path;
use std::process::Output;

/// The tiny network with a few games, batches and checkpoints: seconds on a CPU.
fn tiny_run() -> String {
    koshogi_test_support::tiny_run_toml(
        r#"[search]
simulations = 2
[selfplay]
games_per_worker = 4
max_plies = 8
cheap_simulations = 1
positions_per_shard = 16
[train]
batch_size = 8
start_rows = 16
samples_per_new_row = 1000.0
poll_seconds = 0.1
log_every_steps = 1
[train.window]
min_rows = 64
[train.checkpoint]
every_steps = 2
keep_last = 10
"#,
    )
}

fn koshogi(args: &[&str]) -> Output {
    koshogi_logging(args, "warn")
}

/// `koshogi` with its log level (`RUST_LOG`) set to `level`.
fn koshogi_logging(args: &[&str], level: &str) -> Output {
    koshogi_test_support::koshogi_command()
        .args(args)
        .env("RUST_LOG", level)
        .output()
        .expect("the koshogi binary runs")
}

fn ok(out: &Output) -> String {
    koshogi_test_support::succeeded(out, "koshogi")
}

fn write_config(dir: &Path) -> String {
    let path = dir.join("tiny.toml");
    std::fs::write(&path, tiny_run()).unwrap();
    path.to_str().unwrap().to_string()
}

fn checkpoint_steps(run: &Path) -> Vec<u64> {
    let mut steps: Vec<u64> = std::fs::read_dir(run.join("checkpoints"))
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix("step-")?
                .parse()
                .ok()
        })
        .collect();
    steps.sort_unstable();
    steps
}

#[test]
fn selfplay_writes_shards_and_records_that_show_replays() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let run_str = run.to_str().unwrap();
    let out = ok(&koshogi(&[
        "selfplay", "--run", run_str, "--config", &config, "--games", "3",
    ]));
    assert!(out.contains("3 games"), "{out}");
    assert!(
        run.join("config.toml").exists(),
        "the run keeps its configuration"
    );
    let shards: Vec<_> = std::fs::read_dir(run.join("shards")).unwrap().collect();
    assert!(!shards.is_empty());
    let records: Vec<_> = std::fs::read_dir(run.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(records.len(), 3);

    let record = records[0].to_str().unwrap();
    let shown = ok(&koshogi(&["show", "--game", record, "--ply", "2"]));
    assert!(shown.contains("side to move: black (ply 2)"), "{shown}");
    let svg_path = dir.path().join("ply2.svg");
    ok(&koshogi(&[
        "show",
        "--game",
        record,
        "--ply",
        "2",
        "--svg",
        svg_path.to_str().unwrap(),
    ]));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("<polyline"),
        "a picture with the last move"
    );
    let beyond = koshogi(&["show", "--game", record, "--ply", "99"]);
    assert!(!beyond.status.success());
    assert!(String::from_utf8_lossy(&beyond.stderr).contains("beyond its end"));
}

#[test]
fn run_trains_checkpoints_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let run_str = run.to_str().unwrap();

    let out = ok(&koshogi(&[
        "run", "--config", &config, "--run", run_str, "--steps", "4",
    ]));
    assert!(out.contains("trained steps 0 -> 4"), "{out}");
    assert!(
        checkpoint_steps(&run).contains(&4),
        "{:?}",
        checkpoint_steps(&run)
    );
    let shards_before = std::fs::read_dir(run.join("shards")).unwrap().count();
    assert!(shards_before > 0);

    // Again on the same directory (its own config.toml): resumes from step 4.
    let out = ok(&koshogi(&["run", "--run", run_str, "--steps", "6"]));
    assert!(out.contains("trained steps 4 -> 6"), "{out}");
    assert!(checkpoint_steps(&run).contains(&6));
    assert!(
        std::fs::read_dir(run.join("shards")).unwrap().count() >= shards_before,
        "data is kept"
    );
}

#[test]
fn diagnose_reads_a_runs_shards_and_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let run_str = run.to_str().unwrap();
    ok(&koshogi(&[
        "run", "--config", &config, "--run", run_str, "--steps", "2",
    ]));
    let checkpoint = run.join("checkpoints/step-000000002");
    let out = ok(&koshogi(&[
        "diagnose",
        "--run",
        run_str,
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--shards",
        "1",
        "--sample",
        "8",
    ]));
    for expected in [
        "== earliest 1 shard(s)",
        "== latest 1 shard(s)",
        "played moves: passes",
        "policy targets (",
        "Black to move (",
        "White to move (",
        "network on ",
        "played captures that won material",
        "== resignation over all ",
        " resigned; ",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
    let out = koshogi(&["diagnose", "--run", run_str, "--max-false-rate", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-false-rate must lie in [0, 1]"));
    // Without shards it is a clear error, not a panic.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(empty.join("shards")).unwrap();
    std::fs::copy(run.join("config.toml"), empty.join("config.toml")).unwrap();
    let out = koshogi(&["diagnose", "--run", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no replay shards"));
}

#[test]
fn with_gating_run_records_the_accepted_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gated.toml");
    let gate = "[gate]\nenabled = true\ngames = 2\nmax_plies = 6\nparallel_games = 2\n";
    std::fs::write(&config, format!("{}{gate}", tiny_run())).unwrap();
    let run = dir.path().join("run");
    let out = ok(&koshogi(&[
        "run",
        "--config",
        config.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
        "--steps",
        "4",
    ]));
    assert!(out.contains("trained steps 0 -> 4"), "{out}");
    let accepted: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.join("checkpoints/accepted.json")).unwrap(),
    )
    .unwrap();
    let step = accepted["step"].as_u64().unwrap();
    assert!(
        checkpoint_steps(&run).contains(&step),
        "accepted step {step} is kept on disk"
    );
}

#[test]
fn run_without_a_configuration_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = koshogi(&["run", "--run", dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--config"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // `--set` names keys, not a configuration: the built-in defaults are still refused, and
    // nothing is written into the directory.
    let out = koshogi(&[
        "run",
        "--run",
        dir.path().to_str().unwrap(),
        "--set",
        "train.seed=2",
        "--steps",
        "1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no config.toml"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let out = koshogi(&["run", "--help"]);
    assert!(
        ok(&out).contains("never starts from the built-in defaults"),
        "`koshogi run --help` tells that a configuration is needed"
    );
}

#[test]
fn logs_to_a_file_or_pipe_carry_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let out = koshogi_logging(
        &[
            "train",
            "--config",
            &config,
            "--run",
            run.to_str().unwrap(),
            "--steps",
            "1",
        ],
        "info",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("INFO"), "no log lines: {err}");
    assert!(!err.contains('\u{1b}'), "escape codes in: {err}");
}

#[test]
fn a_set_key_is_played_and_kept_with_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let run_str = run.to_str().unwrap();
    // The tiny configuration caps games at 8 plies; --set caps them at 4.
    let out = ok(&koshogi(&[
        "selfplay",
        "--run",
        run_str,
        "--config",
        &config,
        "--games",
        "2",
        "--set",
        "selfplay.max_plies=4",
    ]));
    assert!(out.contains("mean length 4"), "{out}");
    let kept = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(
        kept.starts_with(&format!("# {config} with --set selfplay.max_plies=4\n")),
        "{kept}"
    );
    assert!(kept.contains("max_plies = 4"), "{kept}");
    // `run` takes it too; a key that does not exist is refused with its name, before anything runs.
    let other = dir.path().join("other");
    let out = koshogi(&[
        "run",
        "--config",
        &config,
        "--run",
        other.to_str().unwrap(),
        "--set",
        "train.sed=2",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--set train.sed=2") && err.contains("unknown field `sed`"),
        "{err}"
    );
    assert!(!other.join("config.toml").exists());
    let out = koshogi(&["run", "--config", &config, "--set", "train.seed"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not KEY=VALUE"), "{err}");
}

#[test]
fn a_rejected_configuration_is_not_kept_in_the_run_directory() {
    // A configuration that fails validation must not become the run's kept config.toml,
    // or every later `--resume` would fail on it until the file is deleted by hand.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, tiny_run().replace("batch_size = 8", "batch_size = 0")).unwrap();
    let run = dir.path().join("run");
    for command in ["train", "selfplay", "run"] {
        let out = koshogi(&[
            command,
            "--config",
            bad.to_str().unwrap(),
            "--run",
            run.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "{command} accepted batch_size = 0");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("batch_size"), "{command}: {err}");
        assert!(!err.contains("panicked"), "{command}: {err}");
        assert!(
            !run.join("config.toml").exists(),
            "{command} kept the config"
        );
    }
}

#[test]
fn ctrl_c_stops_the_run_cleanly_with_a_final_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let child = koshogi_test_support::koshogi_command()
        .args(run_until_stopped(&config, &run))
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until training is under way (the first checkpoint after the initial one).
    let started = std::time::Instant::now();
    while !checkpoint_steps_or_empty(&run).iter().any(|&s| s > 0) {
        assert!(
            started.elapsed().as_secs() < 120,
            "no training progress within 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stdout = ok(&out);
    assert!(stdout.contains("stopped on request"), "{stdout}");
    let end_step = final_step(&stdout);
    assert!(
        checkpoint_steps(&run).contains(&end_step),
        "the stop writes a checkpoint at step {end_step}"
    );
    let shards = std::fs::read_dir(run.join("shards")).unwrap();
    for entry in shards {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            name.starts_with("shard-") && name.ends_with(".npz"),
            "leftover file {name}"
        );
    }
}

/// `koshogi run` on the tiny configuration with no step target (`--steps 0`).
fn run_until_stopped<'a>(config: &'a str, run: &'a Path) -> [&'a str; 7] {
    let run = run.to_str().unwrap();
    ["run", "--config", config, "--run", run, "--steps", "0"]
}

/// The last step of a run that started at step 0, from its summary line.
fn final_step(stdout: &str) -> u64 {
    stdout
        .split("trained steps 0 -> ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary line in {stdout}"))
}

fn checkpoint_steps_or_empty(run: &Path) -> Vec<u64> {
    if run.join("checkpoints").is_dir() {
        checkpoint_steps(run)
    } else {
        Vec::new()
    }
}

#[test]
fn a_time_limit_stops_the_run_with_a_final_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let started = std::time::Instant::now();
    // 0.05 minutes = 3 s; --steps 0 trains until stopped.
    let mut args = run_until_stopped(&config, &run).to_vec();
    args.extend(["--minutes", "0.05"]);
    let out = koshogi(&args);
    let stdout = ok(&out);
    assert!(
        started.elapsed().as_secs() < 120,
        "the run did not stop in time"
    );
    let end_step = final_step(&stdout);
    assert!(checkpoint_steps(&run).contains(&end_step), "{stdout}");

    let bad = koshogi(&["run", "--config", &config, "--minutes", "0"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("positive number of minutes"), "{err}");
}

/// The training clock of the newest checkpoint's `trainer_state.json`.
fn trained_seconds(run: &Path) -> f64 {
    clock_of(run, *checkpoint_steps(run).last().expect("a checkpoint"))
}

/// The training clock of one checkpoint's `trainer_state.json`.
fn clock_of(run: &Path, step: u64) -> f64 {
    let path = run
        .join("checkpoints")
        .join(format!("step-{step:09}"))
        .join("trainer_state.json");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    state["training_seconds"]
        .as_f64()
        .expect("training_seconds")
}

/// `--hours` is a target for the whole run: the checkpoints carry the time trained, a second
/// start with the same target trains nothing, and a larger target trains the rest.
#[test]
fn an_hours_target_counts_every_start_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let run = dir.path().join("run");
    let with_hours = |hours: &'static str| {
        let mut args = run_until_stopped(&config, &run).to_vec();
        args.extend(["--hours", hours]);
        ok(&koshogi(&args))
    };
    // 0.003 hours = 10.8 s. The clock is that of the last checkpoint: time the trainer waited
    // for data after it, without a step, is not counted, so it may end a little short.
    let first = with_hours("0.003");
    assert!(first.contains("trained 0.00 of 0.003 hours"), "{first}");
    let after_first = trained_seconds(&run);
    assert!((5.0..120.0).contains(&after_first), "{after_first}");
    let steps_after_first = checkpoint_steps(&run);

    // A target the run has already trained: nothing is done.
    let again = with_hours("0.001");
    assert!(again.contains("nothing left to train"), "{again}");
    assert_eq!(checkpoint_steps(&run), steps_after_first, "{again}");

    // A larger one trains on from the recorded time, not from zero.
    let more = with_hours("0.006");
    assert!(!more.contains("nothing left"), "{more}");
    assert!(more.contains(&format!(
        "trained {:.2} of 0.006 hours",
        after_first / 3600.0
    )));
    let after_more = trained_seconds(&run);
    assert!(
        after_more > after_first + 5.0,
        "{after_first} then {after_more}"
    );
    assert!(checkpoint_steps(&run).last() > steps_after_first.last());

    let bad = koshogi(&["run", "--config", &config, "--hours", "1e300"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("positive number of hours"), "{err}");
}

/// `train.checkpoint.keep_hours`: the checkpoint of each listed hour of the training clock
/// outlives `keep_last`, through a second start of the run.
#[test]
fn the_checkpoint_of_a_listed_hour_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hours.toml");
    let text = tiny_run().replace(
        "keep_last = 10\n",
        "keep_last = 1\nkeep_every = 0\nkeep_hours = [0.001]\n",
    );
    assert!(text.contains("keep_hours"));
    std::fs::write(&path, text).unwrap();
    let config = path.to_str().unwrap();
    let run = dir.path().join("run");
    let clocks = || -> Vec<(u64, f64)> {
        checkpoint_steps(&run)
            .into_iter()
            .map(|step| (step, clock_of(&run, step)))
            .collect()
    };
    let with_hours = |hours: &'static str| {
        let mut args = run_until_stopped(config, &run).to_vec();
        args.extend(["--hours", hours]);
        ok(&koshogi(&args))
    };
    // 0.001 hours = 3.6 s; the run stops at 7.2 s.
    with_hours("0.002");
    let first = clocks();
    assert_eq!(
        first.len(),
        2,
        "the hour's checkpoint and the last: {first:?}"
    );
    let (hour_step, hour_clock) = first[0];
    assert!(
        (3.6..first[1].1).contains(&hour_clock),
        "kept the first checkpoint past 3.6 s: {first:?}"
    );
    with_hours("0.003");
    let second = clocks();
    assert_eq!(second.len(), 2, "{second:?}");
    assert_eq!(second[0], (hour_step, hour_clock), "{second:?}");
    assert!(second[1].0 > first[1].0, "{first:?} then {second:?}");
}
