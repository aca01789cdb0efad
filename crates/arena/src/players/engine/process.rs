//! A running engine program: its stdin for commands, its stdout as lines with deadlines, the
//! tail of its stderr for error messages, and a kill when it is dropped.
//!
//! Why threads: reading a pipe blocks, and the arena must not block forever on an engine that
//! hangs. A reader thread turns stdout into a bounded channel of lines (bounded twice: each
//! line by [`MAX_ENGINE_LINE_BYTES`], the queue by [`QUEUED_LINES`], so a flooding engine
//! blocks on its own pipe instead of filling the arena's memory), and every read has a
//! deadline. A second thread keeps the last few stderr lines, which usually say why an engine
//! died.

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use koshogi_engine::line_reader::{read_bounded_line, Line};

/// Longest engine output line kept; longer ones are reported as garbage.
pub const MAX_ENGINE_LINE_BYTES: usize = 64 * 1024;
/// Output lines queued while nobody reads.
pub const QUEUED_LINES: usize = 1024;
/// Stderr lines kept for error messages.
const STDERR_TAIL_LINES: usize = 5;
/// How long a dropped engine gets to obey `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);

#[derive(Debug, thiserror::Error)]
pub enum EngineProcessError {
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("the engine exited ({status}){stderr}")]
    Exited { status: String, stderr: String },
    #[error("no answer from the engine within {waited:?} (waiting for {waiting_for})")]
    Timeout {
        waited: Duration,
        waiting_for: String,
    },
    #[error("cannot write to the engine: {0}")]
    Write(std::io::Error),
    #[error("the engine wrote {0}")]
    Garbage(String),
}

enum Event {
    Line(String),
    Garbage(String),
    Closed,
}

/// One engine program; killed on drop.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Event>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Finishes when the program's stderr closes (so its last words are in the tail).
    stderr_reader: std::thread::JoinHandle<()>,
    label: String,
}

impl EngineProcess {
    /// Starts `argv[0]` with the other words as arguments; `label` names it in logs.
    pub fn start(argv: &[String], label: &str) -> Result<EngineProcess, EngineProcessError> {
        let (program, args) = argv.split_first().expect("a command has a program");
        let spawn_error = |source| EngineProcessError::Spawn {
            program: program.clone(),
            source,
        };
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (sender, lines) = sync_channel(QUEUED_LINES);
        let reader = std::thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || {
                let mut stdout = BufReader::new(stdout);
                loop {
                    let event = match read_bounded_line(&mut stdout, MAX_ENGINE_LINE_BYTES) {
                        Ok(Some(Line::Text(line))) => Event::Line(line),
                        Ok(Some(Line::TooLong { bytes })) => {
                            Event::Garbage(format!("a line of {bytes} bytes"))
                        }
                        Ok(Some(Line::NotUtf8)) => {
                            Event::Garbage("a line that is not UTF-8".into())
                        }
                        Ok(None) | Err(_) => Event::Closed,
                    };
                    let closed = matches!(event, Event::Closed);
                    if sender.send(event).is_err() || closed {
                        return;
                    }
                }
            });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        let name = label.to_string();
        let stderr_reader = std::thread::Builder::new()
            .name("engine-stderr".into())
            .spawn(move || {
                let mut stderr = BufReader::new(stderr);
                while let Ok(Some(line)) = read_bounded_line(&mut stderr, 4096) {
                    let Line::Text(line) = line else { continue };
                    tracing::debug!(engine = %name, "stderr: {line}");
                    let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                    if tail.len() == STDERR_TAIL_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            });
        let stderr_reader = match reader.and(stderr_reader) {
            Ok(handle) => handle,
            Err(err) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(spawn_error(err));
            }
        };
        tracing::debug!(engine = label, pid = child.id(), "engine started");
        Ok(EngineProcess {
            child,
            stdin,
            lines,
            stderr_tail,
            stderr_reader,
            label: label.to_string(),
        })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineProcessError> {
        tracing::trace!(engine = %self.label, "> {line}");
        let written = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush());
        match written {
            Ok(()) => Ok(()),
            // A closed pipe means the engine is gone: say how it ended.
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Err(self.exited()),
            Err(err) => Err(EngineProcessError::Write(err)),
        }
    }

    /// The next output line, waiting at most until `deadline`; `waiting_for` names what is
    /// awaited in the timeout message.
    pub fn read_line(
        &mut self,
        deadline: Instant,
        waiting_for: &str,
    ) -> Result<String, EngineProcessError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(Event::Line(line)) => {
                tracing::trace!(engine = %self.label, "< {line}");
                Ok(line)
            }
            Ok(Event::Garbage(what)) => Err(EngineProcessError::Garbage(what)),
            Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => Err(self.exited()),
            Err(RecvTimeoutError::Timeout) => Err(EngineProcessError::Timeout {
                waited: wait,
                waiting_for: waiting_for.to_string(),
            }),
        }
    }

    /// Reads lines until one equal to `expected`, ignoring the others.
    pub fn expect_line(
        &mut self,
        expected: &str,
        timeout: Duration,
    ) -> Result<(), EngineProcessError> {
        let deadline = Instant::now() + timeout;
        while self.read_line(deadline, expected)? != expected {}
        Ok(())
    }

    /// Drops output nobody asked for yet (e.g. late `info` lines of the previous search).
    pub fn discard_pending(&mut self) {
        while let Ok(Event::Line(_)) = self.lines.try_recv() {}
    }

    /// The error for an engine whose output closed: its exit status (it gets a moment to
    /// finish exiting) and its last stderr lines.
    fn exited(&mut self) -> EngineProcessError {
        let deadline = Instant::now() + QUIT_GRACE;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Ok(None) => break "its output closed".to_string(),
                Err(err) => break err.to_string(),
            }
        };
        while !self.stderr_reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        let stderr = if tail.is_empty() {
            String::new()
        } else {
            format!(
                "; its last stderr: {}",
                tail.iter().cloned().collect::<Vec<_>>().join(" | ")
            )
        };
        EngineProcessError::Exited { status, stderr }
    }
}

impl Drop for EngineProcess {
    /// `quit`, a short grace, then a kill: an engine never outlives its player.
    fn drop(&mut self) {
        let _ = self
            .stdin
            .write_all(b"quit\n")
            .and_then(|()| self.stdin.flush());
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        tracing::debug!(engine = %self.label, "engine killed");
    }
}
