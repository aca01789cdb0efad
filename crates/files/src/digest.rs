//! SHA-256 fingerprints written as lowercase hex: checkpoint cards (`weights_sha256`), export
//! cards, replay shard checksums in error messages, the short configuration hash stored in
//! checkpoints and the cache names of stored runs. One spelling, so a hash printed by one tool
//! compares equal to the same hash printed by another (and to `sha256sum`).

use std::io::{self, Read};

use sha2::{Digest, Sha256};

/// `bytes` as lowercase hex, two digits per byte.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The SHA-256 of `bytes` in hex (64 digits, as `sha256sum` prints it).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 of everything `reader` yields, in hex, read in blocks (bound a file's size with
/// [`Read::take`] first: a device behind a link never ends).
pub fn sha256_hex_of(mut reader: impl Read) -> io::Result<String> {
    let mut hasher = Sha256::new();
    io::copy(&mut reader, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lowercase_two_digits_per_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
    }

    #[test]
    fn sha256_matches_the_known_digests() {
        // FIPS 180-2 test vectors.
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let long = vec![b'a'; 1_000_000];
        assert_eq!(sha256_hex_of(&long[..]).unwrap(), sha256_hex(&long));
        assert_eq!(
            sha256_hex(&long),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }
}
