//! moto's S3 server on loopback for the store tests (scripts/setup-moto.sh installs it).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// moto's python, or `None` (with a note) to skip a test when moto is not installed; its
/// absence fails the test under KOSHOGI_REQUIRE_MOTO=1 (scripts/test.sh sets it).
pub fn moto_or_skip() -> Option<PathBuf> {
    let python = moto_python();
    if python.is_none() {
        assert!(
            std::env::var_os("KOSHOGI_REQUIRE_MOTO").is_none(),
            "KOSHOGI_REQUIRE_MOTO is set but moto is not installed (scripts/setup-moto.sh)"
        );
        eprintln!("skipped: moto is not installed (bash scripts/setup-moto.sh)");
    }
    python
}

/// The environment of a client of the S3 endpoint at `endpoint` (moto takes any keys).
pub fn s3_env(endpoint: &str) -> Vec<(String, String)> {
    [
        ("AWS_ENDPOINT_URL", endpoint),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Creates `bucket` on the server the environment points at (boto3, from moto's venv).
pub fn create_bucket(python: &PathBuf, bucket: &str) {
    let made = Command::new(python)
        .args([
            "-c",
            &format!("import boto3; boto3.client('s3').create_bucket(Bucket='{bucket}')"),
        ])
        .status()
        .unwrap();
    assert!(made.success(), "creating the bucket");
}

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

pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start_moto(python: &PathBuf, log: &std::path::Path) -> Moto {
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
