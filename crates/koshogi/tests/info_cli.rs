//! End-to-end checks of the binary's basics: `--version`, `--help`, `info`, and bad input.

use std::process::Command;

fn koshogi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(args)
        .output()
        .expect("the koshogi binary runs")
}

#[test]
fn version_names_the_package_version() {
    let out = koshogi(&["--version"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.trim(),
        format!("koshogi {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn info_reports_device_libtorch_and_threads() {
    let out = koshogi(&["info"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let device = text
        .lines()
        .find_map(|l| l.strip_prefix("device (auto): "))
        .expect("a device line");
    let cuda = tch::Cuda::is_available();
    assert_eq!(device, if cuda { "cuda:0" } else { "cpu" });
    let libtorch = text
        .lines()
        .find_map(|l| l.strip_prefix("libtorch: "))
        .expect("a libtorch line");
    assert!(
        libtorch.starts_with("2.13.0"),
        "libtorch version {libtorch}"
    );
    assert!(text.contains("intra-op threads: "));
}

#[test]
fn unknown_subcommand_fails_cleanly() {
    let out = koshogi(&["no-such-command"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unrecognized subcommand"), "{err}");
    assert!(!err.contains("panicked"));
}
