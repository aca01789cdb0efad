//! The HTTP transport on a real socket (port 0), with requests written by hand: a declared body
//! length far beyond the limit is refused with 413 without reading or allocating it (it used to
//! abort the process), a body over the limit is refused whether its length is declared or
//! chunked, a malformed `Content-Length` is a 4xx, clients that declare a body and never send it
//! do not stop the server answering others, and HEAD, `Cache-Control` and content types are as
//! the page expects.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use koshogi_serve::api::MAX_BODY_BYTES;
use koshogi_serve::RunningServer;

/// A server on an empty run directory (enough for `/api/run`, `/api/games` and the page).
fn start(root: &std::path::Path) -> RunningServer {
    RunningServer::start(common::app(root), IpAddr::V4(Ipv4Addr::LOCALHOST), 0).unwrap()
}

/// What came back: status, head (lower-cased) and body.
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

/// Writes `request` on a new connection and reads the reply until the server closes it or the
/// declared length has arrived. Write errors are ignored (the server may answer and close
/// before taking a refused body), and so is a reset once a whole head has arrived.
fn exchange(address: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let _ = stream.write_all(request);
    read_reply(&mut stream)
}

fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if let Some(reply) = parse(&raw, false) {
            return reply;
        }
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("reading the reply: {e} (after {raw:?})"),
        }
    }
    parse(&raw, true).unwrap_or_else(|| panic!("no HTTP reply in {raw:?}"))
}

/// The reply in `raw`, or `None` while it is incomplete (`closed`: the connection ended, so
/// the body is whatever came).
fn parse(raw: &[u8], closed: bool) -> Option<Reply> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = &raw[split + 4..];
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let body = match length {
        Some(length) if body.len() >= length => body[..length].to_vec(),
        _ if closed => body.to_vec(),
        _ => return None,
    };
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some(Reply { status, head, body })
}

fn get(address: SocketAddr, path: &str) -> Reply {
    exchange(
        address,
        format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// A request with the given extra headers and body, for `address`'s own `Host`.
fn request(address: SocketAddr, method: &str, path: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nConnection: close\r\n{headers}\r\n"
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

fn assert_still_serving(address: SocketAddr) {
    let reply = get(address, "/api/run");
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
}

/// The report of issue #18 (item 1): a 2-byte body declared as 999999999999 bytes, on any
/// method and route, made the old server allocate the declared length and abort.
#[test]
fn a_huge_declared_length_is_refused_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let address = server.address();
    for (method, path) in [
        ("POST", "/api/play/new"),
        ("GET", "/api/run"),
        ("POST", "/api/no-such-route"),
        ("GET", "/"),
    ] {
        let huge = request(
            address,
            method,
            path,
            "Content-Length: 999999999999\r\n",
            b"{}",
        );
        let reply = exchange(address, &huge);
        assert_eq!(reply.status, 413, "{method} {path}: {}", reply.head);
        assert_still_serving(address);
    }
    // Beyond u64: not a length at all.
    let absurd = request(
        address,
        "POST",
        "/api/play/new",
        "Content-Length: 99999999999999999999999999\r\n",
        b"{}",
    );
    let status = exchange(address, &absurd).status;
    assert!((400..500).contains(&status), "{status}");
    assert_still_serving(address);
    server.shutdown();
}

#[test]
fn a_body_over_the_limit_is_refused_declared_or_chunked() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let address = server.address();
    let big = vec![b' '; MAX_BODY_BYTES + 1];
    let declared = request(
        address,
        "POST",
        "/api/play/new",
        &format!("Content-Length: {}\r\n", big.len()),
        &big,
    );
    assert_eq!(exchange(address, &declared).status, 413);
    // Chunked: no length up front, so the limit applies to what arrives.
    let mut chunked = Vec::new();
    for piece in big.chunks(4096) {
        chunked.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        chunked.extend_from_slice(piece);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let chunked = request(
        address,
        "POST",
        "/api/play/new",
        "Transfer-Encoding: chunked\r\n",
        &chunked,
    );
    assert_eq!(exchange(address, &chunked).status, 413);
    // At the limit is fine (a JSON value padded with spaces), and reaches the handler.
    let mut padded = b"{}".to_vec();
    padded.resize(MAX_BODY_BYTES, b' ');
    let at_limit = request(
        address,
        "POST",
        "/api/play/new",
        &format!("Content-Length: {}\r\n", padded.len()),
        &padded,
    );
    let reply = exchange(address, &at_limit);
    assert!(
        reply.status != 413 && reply.status < 500,
        "{}: {}",
        reply.status,
        String::from_utf8_lossy(&reply.body)
    );
    assert_still_serving(address);
    server.shutdown();
}

#[test]
fn a_malformed_content_length_is_a_client_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let address = server.address();
    for headers in [
        "Content-Length: abc\r\n",
        "Content-Length: -2\r\n",
        "Content-Length: 2\r\nContent-Length: 3\r\n",
    ] {
        let bad = request(address, "POST", "/api/play/new", headers, b"{}");
        let status = exchange(address, &bad).status;
        assert!((400..500).contains(&status), "{headers:?}: {status}");
        assert_still_serving(address);
    }
    server.shutdown();
}

/// More stalled clients than the old server had request threads: each declares a body and
/// sends none of it (over 1 KiB, which the old server did not read ahead in its own threads).
/// The server still answers everyone else promptly.
#[test]
fn clients_that_never_send_their_body_do_not_block_others() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let address = server.address();
    let stalled: Vec<TcpStream> = (0..12)
        .map(|_| {
            let mut stream = TcpStream::connect(address).unwrap();
            let head = request(
                address,
                "POST",
                "/api/play/new",
                "Content-Length: 4096\r\n",
                b"",
            );
            stream.write_all(&head).unwrap();
            stream
        })
        .collect();
    // Let the server take them all before asking.
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(get(address, "/api/run").status);
    });
    let status = receiver
        .recv_timeout(Duration::from_secs(20))
        .expect("no answer within 20 s while clients stall");
    assert_eq!(status, 200);
    assert!(started.elapsed() < Duration::from_secs(20));
    drop(stalled);
    server.shutdown();
}

#[test]
fn head_is_get_without_a_body_and_replies_are_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let address = server.address();
    let page = get(address, "/");
    assert_eq!(page.status, 200);
    assert!(page.head.contains("content-type: text/html; charset=utf-8"));
    assert!(
        page.head.contains("cache-control: no-store"),
        "{}",
        page.head
    );
    let head = exchange(
        address,
        format!("HEAD / HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    assert_eq!(head.status, 200);
    assert!(head.head.contains("content-type: text/html; charset=utf-8"));
    assert!(head.body.is_empty());
    let run = get(address, "/api/run");
    assert!(run.head.contains("content-type: application/json"));
    assert!(run.head.contains("cache-control: no-store"));
    assert!(!run.head.contains("content-security-policy"));
    // The ladder's picture is SVG over HTTP too, and may not run scripts when opened alone.
    std::fs::create_dir_all(dir.path().join("arena")).unwrap();
    std::fs::write(dir.path().join("arena/elo.svg"), "<svg/>").unwrap();
    let picture = get(address, "/api/training/elo.svg");
    assert_eq!(picture.status, 200);
    assert!(
        picture.head.contains("content-type: image/svg+xml"),
        "{}",
        picture.head
    );
    assert!(
        picture
            .head
            .contains("content-security-policy: default-src 'none'; style-src 'unsafe-inline'"),
        "{}",
        picture.head
    );
    assert_eq!(picture.body, b"<svg/>");
    let missing = get(address, "/api/nothing");
    assert_eq!(missing.status, 404);
    let error: serde_json::Value = serde_json::from_slice(&missing.body).unwrap();
    assert!(error["error"].as_str().unwrap().contains("/api/nothing"));
    let delete = exchange(
        address,
        format!("DELETE /api/games HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(delete.status, 405);
    let foreign = exchange(
        address,
        b"GET /api/run HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(foreign.status, 403);
    server.shutdown();
}

#[test]
fn shutdown_returns_and_frees_the_port() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let address = server.address();
    assert_ne!(address.port(), 0);
    assert_eq!(server.url(), format!("http://{address}/"));
    // An open idle connection must not hold the shutdown up.
    let _idle = TcpStream::connect(address).unwrap();
    let started = Instant::now();
    server.shutdown();
    assert!(started.elapsed() < Duration::from_secs(10));
    std::net::TcpListener::bind(address).expect("the port is free again");
}
