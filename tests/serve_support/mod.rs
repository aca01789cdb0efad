//! Shared by the `koshogi serve` tests: a tiny run directory (a recorded game, a random tiny
//! checkpoint, TensorBoard losses, a ladder table) and the server started on a free port.

#![allow(dead_code)] // each test binary uses part of it

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use koshogi_nn::fixtures::save_tiny_checkpoint;
use koshogi_rules::fixtures::capped_selfplay_record;
use koshogi_rules::{Move, RulesOptions};

pub const RECORD_NAME: &str = "games/game-e2e.txt";
pub const RECORD_PLIES: usize = 8;
pub const CHECKPOINT: &str = "step-000000010";

/// The moves of the recorded game ([`capped_selfplay_record`]).
pub fn recorded_moves() -> Vec<Move> {
    capped_selfplay_record(RECORD_PLIES).moves
}

pub fn write_run(root: &Path) {
    let rules = RulesOptions::default();
    std::fs::create_dir_all(root.join("games")).unwrap();
    let record = capped_selfplay_record(RECORD_PLIES);
    std::fs::write(root.join(RECORD_NAME), record.to_text(rules).unwrap()).unwrap();

    let checkpoint = root.join("checkpoints").join(CHECKPOINT);
    save_tiny_checkpoint(&checkpoint, 10, 11, serde_json::to_value(rules).unwrap());

    let mut events = koshogi_metrics::EventWriter::create(&root.join("tb")).unwrap();
    for step in 1..=10i64 {
        let loss = 5.0 / (step as f64).sqrt();
        events
            .add_scalars(
                step * 10,
                &[("loss/total", loss), ("loss/policy", loss * 0.8)],
            )
            .unwrap();
    }
    std::fs::create_dir_all(root.join("arena")).unwrap();
    std::fs::write(
        root.join("arena/ladder.csv"),
        "name,step,elo,stderr,games,points\nstep-000000000,0,0.0,0.0,8,4\nstep-000000010,10,35.0,60.0,8,5\n",
    )
    .unwrap();
}

/// `koshogi serve` on a free port; killed when dropped.
pub struct Server {
    child: Child,
    pub url: String,
}

impl Server {
    pub fn start(run: &Path) -> Server {
        let mut child = Command::new(koshogi_test_support::koshogi_binary())
            .args(["serve", "--run"])
            .arg(run)
            .args(["--port", "0"])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting koshogi serve");
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        let mut server = Server {
            child,
            url: String::new(),
        };
        let line = receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("koshogi serve printed no `listening on` line within 60 s");
        server.url = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        assert!(
            server.url.starts_with("http://127.0.0.1:"),
            "{}",
            server.url
        );
        server
    }

    /// `host:port` of the server.
    pub fn address(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal HTTP/1.1 client (one request per connection), enough for a local server and for
/// chromedriver's WebDriver endpoint: returns the status and the body. The body ends where
/// `Content-Length` or the chunked encoding says (chromedriver keeps connections open).
pub fn http(address: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    send_request(address, &request)
}

/// Sends `request` (a whole HTTP/1.1 request, headers as given) and returns the status and
/// the body, as [`http`] does.
pub fn send_request(address: &str, request: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address)
        .unwrap_or_else(|e| panic!("connecting to {address}: {e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let what = request.lines().next().unwrap_or_default().to_string();
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    let complete = |raw: &[u8]| -> Option<(String, Vec<u8>)> {
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let payload = &raw[split + 4..];
        if head.contains("transfer-encoding: chunked") {
            return dechunk(payload).map(|body| (head, body));
        }
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok())?;
        (payload.len() >= length).then(|| (head, payload[..length].to_vec()))
    };
    let (head, payload) = loop {
        if let Some(done) = complete(&raw) {
            break done;
        }
        let n = stream
            .read(&mut buffer)
            .unwrap_or_else(|e| panic!("{what} on {address}: {e}"));
        if n == 0 {
            // Closed without a length: the body is whatever came.
            let split = raw
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .expect("an HTTP response header");
            break (
                String::from_utf8_lossy(&raw[..split]).to_string(),
                raw[split + 4..].to_vec(),
            );
        }
        raw.extend_from_slice(&buffer[..n]);
    };
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    (status, String::from_utf8_lossy(&payload).to_string())
}

/// The body of a chunked response, or `None` while its last chunk has not arrived.
fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&data[..end]).to_string();
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        if data.len() < end + 4 + size {
            return None;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 4 + size..];
    }
}
