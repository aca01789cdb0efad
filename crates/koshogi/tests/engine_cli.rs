//! `koshogi engine` end to end: a scripted session, garbage included, piped into the binary.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn a_piped_session_with_garbage_answers_everything_and_exits_cleanly() {
    let script = "koshogi\n\
                  isready\n\
                  this is not a command\n\
                  position ksfen nonsense w\n\
                  position startpos moves 99z-1a\n\
                  setoption name simulations value -5\n\
                  go visits\n\
                  \u{1b}[A\u{7}\n\
                  setoption name simulations value 12\n\
                  position startpos\n\
                  go\n\
                  isready\n\
                  quit\n\
                  go visits 5\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("id name "));
    assert!(lines.contains(&"koshogiok"));
    assert_eq!(
        lines.iter().filter(|l| **l == "readyok").count(),
        2,
        "{stdout}"
    );
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .count();
    assert_eq!(errors, 6, "{stdout}");
    // The refused `go` answers a move without a search; `quit` stops the running search, which
    // still answers; the `go` after `quit` is never read.
    let best: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("bestmove "))
        .collect();
    assert_eq!(best.len(), 2, "{stdout}");
    for line in best {
        assert!(line.len() > "bestmove ".len() && !line.ends_with("none"));
    }
}

#[test]
fn end_of_input_lets_the_last_search_finish() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_koshogi"))
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let script = b"setoption name simulations value 12\nposition startpos\ngo\n";
    child.stdin.take().unwrap().write_all(script).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("bestmove "))
            .count(),
        1,
        "{stdout}"
    );
    // `go` without limits used the simulations option: 12 new visits plus the root's own.
    let info = stdout
        .lines()
        .find(|l| l.starts_with("info visits "))
        .expect("an info line");
    let visits: u32 = info.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(visits > 12, "{info}");
}
