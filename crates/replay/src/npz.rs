//! The `.npz` container (numpy's `savez_compressed`: a zip archive of `.npy` members, deflate
//! compressed) — the one implementation of writing and reading it, used by replay shards and by
//! koshogi-export's encoded shards. The member format is [`crate::npy`]; what the members mean
//! is the caller's (docs/replay-format.md, docs/python.md).
//!
//! Why here: both users already depend on this crate; the `zip` dependency it needs is also why
//! it is not in koshogi-files (koshogi-nn depends on that one and needs no compression).
//!
//! Reading bounds everything a damaged or hostile archive claims before allocating it: the
//! total uncompressed size, and each member is read to its declared size and no further (the
//! zip crate would inflate a member to its end whatever its header says).

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Read, Seek, Write};

use zip::write::SimpleFileOptions;

/// Why an `.npz` could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum NpzError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error(transparent)]
    Zip(#[from] zip::result::ZipError),
    #[error("member {name} is too large (over {max} bytes in all)")]
    TooLarge { name: String, max: u64 },
    #[error("member {name} does not hold its declared {declared} bytes")]
    WrongSize { name: String, declared: u64 },
    #[error("member {0} appears twice")]
    Duplicate(String),
}

/// The zip entry name of a member (`numpy.savez` appends `.npy`; `numpy.load` strips it).
pub fn entry_name(member: &str) -> String {
    format!("{member}.npy")
}

/// Writes `members` (name without `.npy`, the member's `.npy` bytes), in that order, as an
/// `.npz` into `out`, deflate-compressed at `deflate_level`, and returns `out` (for the caller
/// to sync or commit). The members may be made as they are written, one at a time.
pub fn write_npz<W, N, B>(
    out: W,
    members: impl IntoIterator<Item = (N, B)>,
    deflate_level: i64,
) -> Result<W, NpzError>
where
    W: Write + Seek,
    N: AsRef<str>,
    B: AsRef<[u8]>,
{
    let mut zip = zip::ZipWriter::new(BufWriter::new(out));
    for (member, bytes) in members {
        let bytes = bytes.as_ref();
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(deflate_level))
            .large_file(bytes.len() as u64 >= u64::from(u32::MAX));
        zip.start_file(entry_name(member.as_ref()), options)?;
        zip.write_all(bytes)?;
    }
    let buffered = zip.finish()?;
    buffered.into_inner().map_err(|e| e.into_error().into())
}

/// Reads every entry of an `.npz` (zip entry name → raw bytes, so `.npy` members keep their
/// suffix), checking each entry's CRC-32, refusing duplicate names and more than `max_bytes`
/// uncompressed in all.
pub fn read_npz<R: Read + Seek>(
    reader: R,
    max_bytes: u64,
) -> Result<BTreeMap<String, Vec<u8>>, NpzError> {
    let mut archive = zip::ZipArchive::new(reader)?;
    let mut entries = BTreeMap::new();
    let mut claimed: u64 = 0;
    for index in 0..archive.len() {
        let entry = archive.by_index(index)?;
        let name = entry.name().to_string();
        let declared = entry.size();
        claimed = claimed.saturating_add(declared);
        if claimed > max_bytes {
            return Err(NpzError::TooLarge {
                name,
                max: max_bytes,
            });
        }
        // Trust the declared size only so far: a damaged header must not force a huge allocation.
        let mut bytes = Vec::with_capacity(declared.min(1 << 26) as usize);
        // Never more than the declared size (and one byte to notice a longer member). Reading to
        // the end of the member makes the zip crate check its CRC-32.
        entry
            .take(declared.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 != declared {
            return Err(NpzError::WrongSize { name, declared });
        }
        if entries.contains_key(&name) {
            return Err(NpzError::Duplicate(name));
        }
        entries.insert(name, bytes);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn members_round_trip_with_the_npy_suffix() {
        let members: [(&str, &[u8]); 2] = [("board", b"abc"), ("meta", b"")];
        let written = write_npz(Cursor::new(Vec::new()), members, 6).unwrap();
        let read = read_npz(Cursor::new(written.into_inner()), 1 << 20).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read["board.npy"], b"abc");
        assert_eq!(read["meta.npy"], b"");
    }

    #[test]
    fn the_size_bound_covers_all_members() {
        let members: [(&str, &[u8]); 2] = [("a", &[0; 600]), ("b", &[0; 600])];
        let bytes = write_npz(Cursor::new(Vec::new()), members, 6)
            .unwrap()
            .into_inner();
        assert!(read_npz(Cursor::new(&bytes), 1200).is_ok());
        assert!(matches!(
            read_npz(Cursor::new(&bytes), 1000),
            Err(NpzError::TooLarge { name, .. }) if name == "b.npy"
        ));
        assert!(matches!(
            read_npz(Cursor::new(&bytes[..bytes.len() / 2]), 1 << 20),
            Err(NpzError::Zip(_))
        ));
    }
}
