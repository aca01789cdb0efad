//! One terminal display for every progress bar of a command, and log lines that do not tear
//! it: each `tracing` line is written while the bars are cleared (indicatif's `suspend`) and
//! the bars are drawn again below it. Without this, a log line printed while a bar is drawn
//! lands in the middle of the bar and the bar is redrawn over the log.

use std::io::Write;
use std::sync::OnceLock;

use indicatif::{MultiProgress, ProgressBar};

/// The display all bars of this process are drawn in.
pub fn display() -> &'static MultiProgress {
    static DISPLAY: OnceLock<MultiProgress> = OnceLock::new();
    DISPLAY.get_or_init(MultiProgress::new)
}

/// Adds `bar` to the display (a bar outside it would be torn by log lines).
pub fn add(bar: ProgressBar) -> ProgressBar {
    display().add(bar)
}

/// The log writer: standard error, written with the bars cleared.
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // tracing-subscriber formats a whole event and writes it with one `write_all`, so one
        // suspension covers one log line.
        display().suspend(|| std::io::stderr().write_all(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> Self::Writer {
        LogWriter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::ProgressDrawTarget;

    #[test]
    fn log_lines_are_written_whole_while_a_bar_is_live() {
        display().set_draw_target(ProgressDrawTarget::hidden());
        let bar = add(ProgressBar::new(10));
        bar.inc(3);
        let line = b"2026-01-01T00:00:00Z  INFO koshogi: a log line\n";
        assert_eq!(LogWriter.write(line).unwrap(), line.len());
        bar.finish_and_clear();
    }
}
