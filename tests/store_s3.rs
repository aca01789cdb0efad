//! The distributed roles against S3: a moto server on 127.0.0.1 (scripts/setup-moto.sh) and
//! `s3://` URLs, as on a real bucket (see store_support). Also the errors a user meets first:
//! a bucket that does not exist. Needs moto: scripts/test.sh installs it and sets
//! KOSHOGI_REQUIRE_MOTO=1, which makes its absence a failure instead of a skip.

mod moto_support;
mod store_support;

use std::process::Command;

use moto_support::{create_bucket, moto_or_skip, s3_env, start_moto};

#[test]
fn roles_meet_through_s3_and_survive_sigkill() {
    let Some(python) = moto_or_skip() else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let moto = start_moto(&python, &root.path().join("moto.log"));
    let endpoint = format!("http://127.0.0.1:{}", moto.port);
    let env = s3_env(&endpoint);
    // This test binary runs this one test, so the test process can use the same variables.
    for (k, v) in &env {
        std::env::set_var(k, v);
    }

    // A missing bucket is a clear error, before any work starts.
    let out = Command::new(koshogi_test_support::koshogi_binary())
        .args(["store", "ls", "s3://no-such-bucket/run"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("does not exist"), "{stderr}");

    create_bucket(&python, "koshogi");
    let roles = store_support::Roles::new("s3://koshogi/runs/one".into(), env, root);
    store_support::two_workers_a_trainer_and_two_crashes(&roles);
}
