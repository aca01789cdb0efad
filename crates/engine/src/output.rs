//! The engine's replies: whole lines, written and flushed one at a time, from the protocol
//! thread and the search thread alike (a mutex keeps lines from interleaving).

use std::io::Write;
use std::sync::{Arc, Mutex};

/// A cloneable sink of protocol lines.
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

/// The lines an [`Output::capture`] sink has received so far (tests).
#[derive(Clone, Default)]
pub struct CapturedLines {
    bytes: Arc<Mutex<Vec<u8>>>,
}

struct CaptureWriter(Arc<Mutex<Vec<u8>>>);

impl Write for CaptureWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl CapturedLines {
    pub fn lines(&self) -> Vec<String> {
        let bytes = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Output {
    pub fn new(writer: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(writer)),
        }
    }

    /// Standard output.
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    /// An in-memory sink and a handle to read what it received.
    pub fn capture() -> (Output, CapturedLines) {
        let captured = CapturedLines::default();
        let output = Output::new(Box::new(CaptureWriter(captured.bytes.clone())));
        (output, captured)
    }

    /// Writes one line. A closed stdout leaves nobody to tell, so write errors are ignored.
    pub fn line(&self, text: &str) {
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        let _ = sink
            .write_all(text.as_bytes())
            .and_then(|()| sink.write_all(b"\n"))
            .and_then(|()| sink.flush());
    }

    /// `info string error: …` — the reply to any bad input.
    pub fn error(&self, message: &str) {
        self.line(&format!("info string error: {}", one_line(message)));
    }
}

/// Keeps a message on one protocol line of at most 400 characters: an error about a huge
/// input line quotes part of it, not all of it.
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    koshogi_rules::notation::excerpt_to(&joined, 400)
}
