//! The distributed roles against a `file://` store (always runs): see store_support.

mod store_support;

#[test]
fn roles_meet_through_a_file_store_and_survive_sigkill() {
    let root = tempfile::tempdir().unwrap();
    let url = format!("file://{}", root.path().join("store/run").display());
    let roles = store_support::Roles::new(url, Vec::new(), root);
    store_support::two_workers_a_trainer_and_two_crashes(&roles);
}

use std::process::Output;

fn koshogi(args: &[&str]) -> Output {
    koshogi_test_support::koshogi_command()
        .args(args)
        .env("RUST_LOG", "warn")
        .env("OMP_NUM_THREADS", "1")
        .output()
        .expect("the koshogi binary runs")
}

fn ok(out: &Output) -> String {
    koshogi_test_support::succeeded(out, "koshogi")
}

fn failed(out: &Output) -> String {
    koshogi_test_support::failed(out, "koshogi")
}

/// A run started locally continues in the store: `store push` publishes it, the gate runs as
/// its own process on the store, `store pull` brings the whole run back, and commands that need
/// a local directory say how to get one.
#[test]
fn a_local_run_is_pushed_gated_on_the_store_and_pulled_back() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("local");
    let config = root.path().join("run.toml");
    std::fs::write(
        &config,
        store_support::store_run()
            .replace("keep_last = 1000", "keep_last = 1000\nevery_steps = 2")
            .replace("every_steps = 200\n", ""),
    )
    .unwrap();
    let gated = root.path().join("gated.toml");
    let gate = "[gate]\nenabled = true\ngames = 2\nmax_plies = 8\nparallel_games = 2\n";
    std::fs::write(
        &gated,
        format!("{}{gate}", std::fs::read_to_string(&config).unwrap()),
    )
    .unwrap();
    let (run_s, config_s) = (run.to_str().unwrap(), config.to_str().unwrap());
    ok(&koshogi(&[
        "run", "--config", config_s, "--run", run_s, "--steps", "4",
    ]));
    let url = format!("file://{}", root.path().join("store/run").display());

    let pushed = ok(&koshogi(&["store", "push", run_s, &url]));
    assert!(pushed.contains("checkpoints"), "{pushed}");
    let again = ok(&koshogi(&["store", "push", run_s, &url]));
    assert!(again.contains("sent 0 files and 0 checkpoints"), "{again}");
    let listed = ok(&koshogi(&["store", "ls", &url]));
    assert!(
        listed.contains("config.toml: yes") && listed.contains("latest 4"),
        "{listed}"
    );

    let cache = root.path().join("gate-cache");
    ok(&koshogi(&[
        "gate",
        "--run",
        &url,
        "--config",
        gated.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--once",
    ]));
    let back = root.path().join("back");
    ok(&koshogi(&["store", "pull", &url, back.to_str().unwrap()]));
    let accepted = std::fs::read_to_string(back.join("checkpoints/accepted.json")).unwrap();
    assert!(
        accepted.contains("\"step\":0") || accepted.contains("\"step\":4"),
        "{accepted}"
    );
    let steps = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("checkpoints"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("step-"))
            .collect();
        names.sort();
        names
    };
    assert_eq!(steps(&back), steps(&run));
    assert_eq!(
        std::fs::read(back.join("config.toml")).unwrap(),
        std::fs::read(run.join("config.toml")).unwrap()
    );

    // Another run's directory may not be pushed over this one.
    let other = root.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("config.toml"), "[run]\nseed = 5\n").unwrap();
    let refused = failed(&koshogi(&["store", "push", other.to_str().unwrap(), &url]));
    assert!(refused.contains("another run"), "{refused}");
    let eval = failed(&koshogi(&["eval", "--run", &url]));
    assert!(eval.contains("koshogi store pull"), "{eval}");
    let one_machine = failed(&koshogi(&["run", "--run", &url]));
    assert!(one_machine.contains("koshogi store push"), "{one_machine}");
    let bad = failed(&koshogi(&["selfplay", "--run", "s4://bucket/run"]));
    assert!(bad.contains("unknown scheme"), "{bad}");
}
