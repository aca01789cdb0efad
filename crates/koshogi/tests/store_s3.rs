//! The distributed roles against S3: a moto server on 127.0.0.1 (scripts/setup-moto.sh) and
//! `s3://` URLs, as on a real bucket (see store_support). Also the errors a user meets first:
//! a bucket that does not exist. Needs moto: scripts/test.sh installs it and sets
//! KOSHOGI_REQUIRE_MOTO=1, which makes its absence a failure instead of a skip.

mod store_support;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The moto venv of scripts/setup-moto.sh, if installed.
fn moto_python() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("KOSHOGI_MOTO_PYTHON") {
        return Some(PathBuf::from(path));
    }
    let cache = std::env::var_os("KOSHOGI_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/koshogi-zero"))
        })?;
    let python = cache.join("moto-venv/bin/python");
    python.exists().then_some(python)
}

struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_moto(python: &PathBuf, log: &std::path::Path) -> Moto {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(python)
        .args([
            "-m",
            "moto.server",
            "-H",
            "127.0.0.1",
            "-p",
            &port.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(log).unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("moto starts");
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "moto did not start on port {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Moto { child, port }
}

#[test]
fn roles_meet_through_s3_and_survive_sigkill() {
    let Some(python) = moto_python() else {
        assert!(
            std::env::var_os("KOSHOGI_REQUIRE_MOTO").is_none(),
            "KOSHOGI_REQUIRE_MOTO is set but moto is not installed (scripts/setup-moto.sh)"
        );
        eprintln!("skipped: moto is not installed (bash scripts/setup-moto.sh)");
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let moto = start_moto(&python, &root.path().join("moto.log"));
    let endpoint = format!("http://127.0.0.1:{}", moto.port);
    let env: Vec<(String, String)> = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    // This test binary runs this one test, so the test process can use the same variables.
    for (k, v) in &env {
        std::env::set_var(k, v);
    }

    // A missing bucket is a clear error, before any work starts.
    let out = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .args(["store", "ls", "s3://no-such-bucket/run"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("does not exist"), "{stderr}");

    let made = Command::new(&python)
        .args([
            "-c",
            "import boto3; boto3.client('s3').create_bucket(Bucket='koshogi')",
        ])
        .status()
        .unwrap();
    assert!(made.success(), "creating the bucket");
    let roles = store_support::Roles::new("s3://koshogi/runs/one".into(), env, root);
    store_support::two_workers_a_trainer_and_two_crashes(&roles);
}
