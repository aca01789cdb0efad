//! TFRecord framing, the container of TensorBoard event files: each record is
//! `u64 length (LE) | u32 masked CRC-32C of the length | data | u32 masked CRC-32C of the data`.

use std::io::{self, Read};

/// TensorFlow's CRC mask, so that CRCs of data containing CRCs stay well distributed.
pub fn masked_crc32c(bytes: &[u8]) -> u32 {
    let crc = crc32c::crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// The framed bytes of one record, ready to be appended with a single write.
pub fn frame_record(data: &[u8]) -> Vec<u8> {
    let length = (data.len() as u64).to_le_bytes();
    let mut out = Vec::with_capacity(data.len() + 16);
    out.extend_from_slice(&length);
    out.extend_from_slice(&masked_crc32c(&length).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc32c(data).to_le_bytes());
    out
}

/// Reads all complete records, checking both CRCs; a truncated final record (a writer killed
/// mid-append) ends the stream without error, as TensorBoard's own reader treats it.
pub fn read_records(mut reader: impl Read) -> io::Result<Vec<Vec<u8>>> {
    let mut records = Vec::new();
    loop {
        let mut header = [0u8; 12];
        if !read_exact_or_eof(&mut reader, &mut header)? {
            return Ok(records);
        }
        let length_bytes: [u8; 8] = header[..8].try_into().expect("8 bytes");
        let stored = u32::from_le_bytes(header[8..].try_into().expect("4 bytes"));
        if masked_crc32c(&length_bytes) != stored {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "bad length CRC"));
        }
        let length = u64::from_le_bytes(length_bytes);
        // Read through the declared length rather than allocating it first: the length comes
        // from the file, and a header declaring terabytes is only as big as the bytes behind it.
        let mut data = Vec::new();
        reader.by_ref().take(length).read_to_end(&mut data)?;
        let mut crc = [0u8; 4];
        if (data.len() as u64) < length || !read_exact_or_eof(&mut reader, &mut crc)? {
            return Ok(records);
        }
        if masked_crc32c(&data) != u32::from_le_bytes(crc) {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "bad data CRC"));
        }
        records.push(data);
    }
}

/// `Ok(false)` when the stream ends before `buf` is full.
fn read_exact_or_eof(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    match reader.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_the_standard_check_value() {
        // CRC-32C (Castagnoli) of "123456789" is 0xE3069283 (RFC 3720, appendix B.4).
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
        // TensorFlow's mask ((crc >> 15) | (crc << 17)) + 0xa282ead8, evaluated by hand.
        assert_eq!(masked_crc32c(b"123456789"), 0xc78a_b0e5);
    }

    #[test]
    fn records_round_trip_and_a_torn_tail_is_ignored() {
        let mut stream = frame_record(b"first");
        stream.extend(frame_record(b""));
        stream.extend(frame_record(&[7u8; 1000]));
        let records = read_records(stream.as_slice()).unwrap();
        assert_eq!(records, vec![b"first".to_vec(), vec![], vec![7u8; 1000]]);
        let torn = &stream[..stream.len() - 3];
        assert_eq!(read_records(torn).unwrap().len(), 2);
    }

    #[test]
    fn a_declared_length_is_not_allocated_before_its_bytes_are_read() {
        // A valid first record, then a header declaring 2⁶⁴ − 1 bytes (with the right length
        // CRC) followed by a few: a torn tail, not a 16-exabyte allocation (which panicked
        // with "capacity overflow"; a terabyte was allocated up front).
        for length in [u64::MAX, 1 << 40] {
            let mut stream = frame_record(b"first");
            let length_bytes = length.to_le_bytes();
            stream.extend_from_slice(&length_bytes);
            stream.extend_from_slice(&masked_crc32c(&length_bytes).to_le_bytes());
            stream.extend_from_slice(b"only a few bytes");
            assert_eq!(
                read_records(stream.as_slice()).unwrap(),
                vec![b"first".to_vec()]
            );
        }
    }

    #[test]
    fn a_flipped_bit_is_detected() {
        let mut stream = frame_record(b"payload");
        stream[14] ^= 1;
        assert!(read_records(stream.as_slice()).is_err());
    }
}
