//! Reading the small files of a run (`accepted.json`, the trainer's state, the ladder table,
//! an exported `.npy`) through a size bound, so that a device (`/dev/zero`), a fifo or a huge
//! file put in their place is refused rather than read into memory without end.

use std::io::{self, Read};
use std::path::Path;

/// The bytes of `path` if it holds at most `max_bytes`. A larger file is an
/// [`io::ErrorKind::InvalidData`] error after reading `max_bytes + 1` bytes; a missing file
/// is [`io::ErrorKind::NotFound`] as with [`std::fs::read`].
pub fn read_bounded(path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("more than {max_bytes} bytes"),
        ));
    }
    Ok(bytes)
}

/// The text of `path` if it holds at most `max_bytes` bytes of UTF-8 (errors as
/// [`read_bounded`]; text that is not UTF-8 is [`io::ErrorKind::InvalidData`] too).
pub fn read_small_text(path: &Path, max_bytes: u64) -> io::Result<String> {
    String::from_utf8(read_bounded(path, max_bytes)?)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
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
        let binary = dir.path().join("binary.npy");
        std::fs::write(&binary, [0x93, b'N', 0xff]).unwrap();
        assert_eq!(read_bounded(&binary, 3).unwrap(), [0x93, b'N', 0xff]);
        assert_eq!(
            read_bounded(&binary, 2).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        let not_text = read_small_text(&binary, 10).unwrap_err();
        assert_eq!(not_text.kind(), io::ErrorKind::InvalidData);
        let missing = read_small_text(&dir.path().join("missing"), 10).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        if Path::new("/dev/zero").exists() {
            let error = read_small_text(Path::new("/dev/zero"), 1 << 10).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        }
    }
}
