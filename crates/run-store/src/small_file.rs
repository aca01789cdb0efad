//! Reading the small text files of a run (`accepted.json`, the trainer's state, the ladder
//! table) through a size bound, so that a device (`/dev/zero`), a fifo or a huge file put in
//! their place is refused rather than read into memory without end.

use std::io::{self, Read};
use std::path::Path;

/// The text of `path` if it holds at most `max_bytes` bytes of UTF-8. A larger file is an
/// [`io::ErrorKind::InvalidData`] error after reading `max_bytes + 1` bytes; a missing file
/// is [`io::ErrorKind::NotFound`] as with [`std::fs::read_to_string`].
pub fn read_small_text(path: &Path, max_bytes: u64) -> io::Result<String> {
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(max_bytes.saturating_add(1))
        .read_to_string(&mut text)?;
    if text.len() as u64 > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("more than {max_bytes} bytes"),
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_bound_is_refused_and_a_device_is_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small.json");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_small_text(&path, 10).unwrap(), "0123456789");
        let error = read_small_text(&path, 9).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert_eq!(error.to_string(), "more than 9 bytes");
        let missing = read_small_text(&dir.path().join("missing"), 10).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        if Path::new("/dev/zero").exists() {
            let error = read_small_text(Path::new("/dev/zero"), 1 << 10).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        }
    }
}
