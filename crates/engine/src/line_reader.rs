//! Reading protocol lines with a length bound.
//!
//! `BufRead::lines` keeps a whole line in memory however long it is, so a peer that never sends
//! a newline could make the engine (or the arena reading an engine) allocate without limit.
//! [`read_bounded_line`] keeps at most `max_bytes` of a line; the rest of a longer line is read
//! and thrown away, and the line is reported as [`Line::TooLong`].

use std::io::{self, BufRead};

/// The longest line the engine accepts: a `position` with tens of thousands of moves fits
/// (a move is at most a dozen characters), a runaway peer does not.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The text without its line ending (`\n` or `\r\n`).
    Text(String),
    /// Longer than the bound; its bytes were discarded.
    TooLong { bytes: u64 },
    /// Within the bound but not UTF-8.
    NotUtf8,
}

/// Reads the next line, holding at most `max_bytes` of it; `Ok(None)` at the end of the input.
/// A last line without a newline counts as a line.
pub fn read_bounded_line<R: BufRead + ?Sized>(
    input: &mut R,
    max_bytes: usize,
) -> io::Result<Option<Line>> {
    let mut kept = Vec::new();
    let mut total: u64 = 0;
    let mut too_long = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            if total == 0 {
                return Ok(None);
            }
            break;
        }
        let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], true),
            None => (available, false),
        };
        total += chunk.len() as u64;
        if !too_long {
            if kept.len() + chunk.len() > max_bytes {
                too_long = true;
                kept = Vec::new();
            } else {
                kept.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(found_newline);
        input.consume(used);
        if found_newline {
            // An empty line still counts as a line.
            total = total.max(1);
            break;
        }
    }
    if too_long {
        return Ok(Some(Line::TooLong { bytes: total }));
    }
    if kept.last() == Some(&b'\r') {
        kept.pop();
    }
    Ok(Some(match String::from_utf8(kept) {
        Ok(text) => Line::Text(text),
        Err(_) => Line::NotUtf8,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor, Read};

    fn all_lines(bytes: &[u8], max: usize) -> Vec<Line> {
        // A tiny buffer makes lines span many `fill_buf` calls.
        let mut reader = BufReader::with_capacity(3, Cursor::new(bytes.to_vec()));
        let mut lines = Vec::new();
        while let Some(line) = read_bounded_line(&mut reader, max).unwrap() {
            lines.push(line);
        }
        lines
    }

    fn text(s: &str) -> Line {
        Line::Text(s.into())
    }

    #[test]
    fn splits_lines_like_bufread_lines() {
        assert_eq!(
            all_lines(b"isready\r\n\ngo nodes 5\nquit", 100),
            vec![text("isready"), text(""), text("go nodes 5"), text("quit")]
        );
        assert_eq!(all_lines(b"", 100), vec![]);
    }

    #[test]
    fn a_line_over_the_bound_is_reported_and_skipped_and_reading_goes_on() {
        let mut input = vec![b'x'; 1000];
        input.extend_from_slice(b"\nisready\n\xff\xfe\n");
        assert_eq!(
            all_lines(&input, 64),
            vec![
                Line::TooLong { bytes: 1000 },
                text("isready"),
                Line::NotUtf8
            ]
        );
        // Exactly at the bound is fine.
        assert_eq!(all_lines(b"abcd\n", 4), vec![text("abcd")]);
    }

    /// An endless line without a newline is read in constant memory: the reader keeps
    /// nothing of it (a 64 MiB stream against a 1 KiB bound).
    #[test]
    fn an_endless_line_is_not_buffered() {
        let endless = std::io::repeat(b'y').take(64 << 20);
        let mut reader = BufReader::new(endless);
        let line = read_bounded_line(&mut reader, 1024).unwrap().unwrap();
        assert_eq!(line, Line::TooLong { bytes: 64 << 20 });
        assert_eq!(read_bounded_line(&mut reader, 1024).unwrap(), None);
    }
}
