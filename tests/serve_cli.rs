//! `koshogi serve` as a process: a bad run directory is a one-line error and exit code 1; on a
//! real socket (port 0) it serves the embedded page and the JSON API, and bad requests get JSON
//! errors.

mod serve_support;

use std::process::Command;

use serve_support::{http, send_request, write_run, Server, RECORD_NAME};

#[test]
fn a_missing_run_directory_is_an_error_with_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-run");
    let output = Command::new(koshogi_test_support::koshogi_binary())
        .args(["serve", "--port", "0", "--run"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error: run directory") && stderr.contains("no-such-run"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn the_page_and_the_api_are_served_on_a_free_port() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let server = Server::start(dir.path());
    let address = server.address();

    let (status, page) = http(&address, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.contains("<script src=\"/app.js\">"), "{page}");
    let (status, script) = http(&address, "GET", "/app.js", None);
    assert_eq!(status, 200);
    assert!(script.contains("/api/play/move"));

    let (status, games) = http(&address, "GET", "/api/games", None);
    assert_eq!(status, 200);
    let games: serde_json::Value = serde_json::from_str(&games).unwrap();
    assert_eq!(games["games"][0]["name"], RECORD_NAME);

    let (status, body) = http(
        &address,
        "GET",
        "/api/game?name=..%2F..%2Fetc%2Fpasswd",
        None,
    );
    assert_eq!(status, 400, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(error["error"]
        .as_str()
        .unwrap()
        .contains("invalid game name"));

    let (status, body) = http(&address, "POST", "/api/play/new", Some("{not json"));
    assert_eq!(status, 400, "{body}");
    let (status, _) = http(&address, "DELETE", "/api/games", None);
    assert_eq!(status, 405);
}

/// Requests another web site could make the user's browser send are refused, and the server
/// goes on answering its own page.
#[test]
fn cross_site_and_rebinding_requests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path());
    let server = Server::start(dir.path());
    let address = server.address();
    let status_of = |request: String| send_request(&address, &request).0;
    let rebinding =
        "GET /api/games HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n".to_string();
    assert_eq!(status_of(rebinding), 403);
    let plain = format!(
        "POST /api/play/new HTTP/1.1\r\nHost: {address}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    );
    assert_eq!(status_of(plain), 415);
    let cross = format!(
        "POST /api/play/new HTTP/1.1\r\nHost: {address}\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    );
    assert_eq!(status_of(cross), 403);
    let (status, _) = http(&address, "GET", "/api/games", None);
    assert_eq!(status, 200);
}
