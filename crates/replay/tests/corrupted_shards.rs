//! A damaged shard is detected and skipped with a warning that names the file, while good shards
//! next to it are still read.

mod common;

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use common::synthetic_game;
use koshogi_replay::{
    list_shards, read_all_shards, Provenance, Shard, ShardArrays, ShardDir, ShardError,
    MAX_SHARD_BYTES,
};

/// Captures everything logged while `f` runs.
fn capture_logs<T>(f: impl FnOnce() -> T) -> (T, String) {
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let sink = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .finish();
    let result = tracing::subscriber::with_default(subscriber, f);
    let logs = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    (result, logs)
}

/// Three good shards in a fresh directory.
fn three_shards(dir: &Path) -> Vec<PathBuf> {
    let shard_dir = ShardDir::open(dir).unwrap();
    (0..3)
        .map(|i| {
            let mut arrays = ShardArrays::new();
            for r in synthetic_game(i, i, 40, 0.5) {
                arrays.push(&r).unwrap();
            }
            shard_dir
                .write_shard("w0", &Provenance::default(), &arrays)
                .unwrap()
                .path
        })
        .collect()
}

/// Every member of a shard's zip archive, in archive order, with its bytes.
fn read_members(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    (0..archive.len())
        .map(|i| {
            let mut entry = archive.by_index(i).unwrap();
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).unwrap();
            (entry.name().to_string(), bytes)
        })
        .collect()
}

/// Rewrites one member of a shard with new contents, keeping the zip itself valid (fresh CRCs),
/// as a buggy tool or a wrong merge would.
fn rewrite_member(path: &Path, member: &str, edit: impl Fn(&mut Vec<u8>)) {
    let mut members = read_members(path);
    for (name, bytes) in &mut members {
        if name == member {
            edit(bytes);
        }
    }
    write_members(path, members);
}

/// Writes `members` as the shard's zip archive (fresh CRCs).
fn write_members(path: &Path, members: Vec<(String, Vec<u8>)>) {
    let mut out = zip::ZipWriter::new(fs::File::create(path).unwrap());
    for (name, bytes) in members {
        out.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        out.write_all(&bytes).unwrap();
    }
    out.finish().unwrap();
}

fn assert_skipped_with_warning(dir: &Path, bad: &Path) {
    let (shards, logs) = capture_logs(|| read_all_shards(dir).unwrap());
    assert_eq!(shards.len(), 2, "the two good shards are still read");
    assert!(shards.iter().all(|s| s.path() != bad));
    assert!(logs.contains("WARN"), "logs: {logs}");
    assert!(
        logs.contains(&bad.display().to_string()),
        "warning must name the file: {logs}"
    );
    assert_eq!(
        list_shards(dir).unwrap().len(),
        3,
        "listing does not verify"
    );
}

/// The offset of the middle of the first zip member's compressed data (from its local file
/// header: compressed size at byte 18, name and extra-field lengths at 26 and 28, data after
/// the 30-byte header, the name and the extra field). A fixed fraction of the file, what these
/// tests used before, can land in a header field no reader checks once the members change.
fn compressed_data_middle(bytes: &[u8]) -> usize {
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    let size = u32::from_le_bytes(bytes[18..22].try_into().unwrap()) as usize;
    assert!(size > 2, "the first member has compressed data");
    30 + u16_at(26) + u16_at(28) + size / 2
}

#[test]
fn flipped_byte_in_compressed_data_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let paths = three_shards(dir.path());
    let mut bytes = fs::read(&paths[1]).unwrap();
    let middle = compressed_data_middle(&bytes);
    bytes[middle] ^= 0x40;
    fs::write(&paths[1], bytes).unwrap();
    assert!(Shard::open(&paths[1]).is_err());
    assert_skipped_with_warning(dir.path(), &paths[1]);
}

#[test]
fn truncated_shard_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let paths = three_shards(dir.path());
    let bytes = fs::read(&paths[0]).unwrap();
    fs::write(&paths[0], &bytes[..bytes.len() * 2 / 3]).unwrap();
    assert!(matches!(
        Shard::open(&paths[0]),
        Err(ShardError::Zip { .. })
    ));
    assert_skipped_with_warning(dir.path(), &paths[0]);
}

/// `Shard::from_bytes` on damaged bytes fails like `Shard::open` on the damaged file, naming the
/// origin it was given, and never panics.
fn assert_bytes_refused(bytes: &[u8]) {
    let origin = Path::new("s3://bucket/run/shards/shard-000000001-w0.npz");
    let error = Shard::from_bytes(origin, bytes).unwrap_err();
    assert!(
        error.to_string().contains(&origin.display().to_string()),
        "the error must name the origin: {error}"
    );
}

#[test]
fn damaged_bytes_in_memory_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let paths = three_shards(dir.path());
    let bytes = fs::read(&paths[1]).unwrap();
    assert!(Shard::from_bytes(&paths[1], &bytes).is_ok());
    for keep in [
        0,
        1,
        4,
        30,
        bytes.len() / 3,
        bytes.len() * 2 / 3,
        bytes.len() - 1,
    ] {
        assert_bytes_refused(&bytes[..keep]);
    }
    // A flipped bit anywhere (zip headers, deflate data, central directory) is caught by the
    // zip structure, a CRC-32 or the SHA-256.
    for at in (0..bytes.len())
        .step_by(97)
        .chain([bytes.len() / 3, bytes.len() - 5])
    {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        if Shard::from_bytes(&paths[1], &flipped).is_ok() {
            // Some bytes no reader looks at (a zip comment length, version-made-by fields, ...)
            // may change harmlessly; the contents must then be intact.
            let reread = Shard::from_bytes(&paths[1], &flipped).unwrap();
            let original = Shard::open(&paths[1]).unwrap();
            assert_eq!(reread.arrays(), original.arrays(), "byte {at}");
        }
    }
    let mut flipped = bytes.clone();
    flipped[compressed_data_middle(&bytes)] ^= 0x40;
    assert_bytes_refused(&flipped);
}

#[test]
fn member_changed_behind_the_checksum_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let paths = three_shards(dir.path());
    // Flip the last game result: the zip CRCs are recomputed, only the SHA-256 can tell.
    rewrite_member(&paths[2], "game_result.npy", |bytes| {
        let last = bytes.len() - 1;
        bytes[last] = if bytes[last] == 1 { 0xff } else { 1 };
    });
    assert!(matches!(
        Shard::open(&paths[2]),
        Err(ShardError::Checksum { .. })
    ));
    assert_skipped_with_warning(dir.path(), &paths[2]);
}

#[test]
fn missing_member_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let paths = three_shards(dir.path());
    let mut members = read_members(&paths[1]);
    members.retain(|(name, _)| name != "ply.npy");
    write_members(&paths[1], members);
    assert!(Shard::open(&paths[1]).is_err());
    assert_skipped_with_warning(dir.path(), &paths[1]);
}

#[test]
fn empty_and_garbage_files_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let paths = three_shards(dir.path());
    fs::write(&paths[0], b"").unwrap();
    assert!(Shard::open(&paths[0]).is_err());
    assert_skipped_with_warning(dir.path(), &paths[0]);
    fs::write(&paths[0], vec![0x50u8; 5000]).unwrap();
    assert_skipped_with_warning(dir.path(), &paths[0]);
}

/// Rewrites `member` with `edit` and then the checksum to match, as a tool that writes bad
/// values (or a hostile user) would: the file is consistent, only its targets are wrong.
fn rewrite_member_behind_a_valid_checksum(path: &Path, member: &str, edit: impl Fn(&mut Vec<u8>)) {
    rewrite_member(path, member, edit);
    let members = read_members(path);
    let checksum = koshogi_replay::format::shard_checksum(
        members.iter().map(|(n, b)| (n.as_str(), b.as_slice())),
    );
    let checksum_entry = format!("{}.npy", koshogi_replay::format::CHECKSUM_MEMBER);
    rewrite_member(path, &checksum_entry, |bytes| {
        // The .npy data (uint8[32]) closes the member.
        let start = bytes.len() - 32;
        bytes[start..].copy_from_slice(&checksum);
    });
}

#[test]
fn non_finite_or_negative_targets_behind_a_valid_checksum_are_rejected() {
    // float16 bit patterns: NaN, +inf, -1.0.
    for (member, bits) in [
        ("search_value.npy", 0x7e00u16),
        ("policy_weights.npy", 0x7c00),
        ("policy_weights.npy", 0xbc00),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let paths = three_shards(dir.path());
        rewrite_member_behind_a_valid_checksum(&paths[1], member, |bytes| {
            let last = bytes.len() - 2;
            bytes[last..].copy_from_slice(&bits.to_le_bytes());
        });
        let error = Shard::open(&paths[1]).unwrap_err().to_string();
        assert!(error.contains("position"), "{member}: {error}");
        assert_skipped_with_warning(dir.path(), &paths[1]);
    }
}

/// Sets the declared uncompressed sizes of a zip archive's members in their local and central
/// headers (32-bit fields; archives written to a seekable writer have no data descriptors).
fn patch_declared_sizes(bytes: &mut [u8], sizes: &[u32]) {
    let find = |signature: &[u8]| -> Vec<usize> {
        (0..bytes.len().saturating_sub(3))
            .filter(|&i| &bytes[i..i + 4] == signature)
            .collect()
    };
    let (local, central) = (find(b"PK\x03\x04"), find(b"PK\x01\x02"));
    assert_eq!((local.len(), central.len()), (sizes.len(), sizes.len()));
    for (i, size) in sizes.iter().enumerate() {
        for at in [local[i] + 22, central[i] + 24] {
            bytes[at..at + 4].copy_from_slice(&size.to_le_bytes());
        }
    }
}

#[test]
fn a_member_inflating_past_its_declared_size_is_not_read_whole() {
    // Found while writing the `shard` fuzz target (docs/fuzzing.md; its inputs are too small to
    // show it): the zip crate inflates a member to its end whatever its header declares, so
    // 1 MiB of zeros declared as 1,000 bytes was read whole, and a few MB of file could ask for
    // gigabytes.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shard-000000000-w0.npz");
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    out.start_file("board.npy", options).unwrap();
    out.write_all(&vec![0u8; 1 << 20]).unwrap();
    let mut bytes = out.finish().unwrap().into_inner();
    assert!(bytes.len() < 16 << 10, "deflated zeros are small");
    patch_declared_sizes(&mut bytes, &[1000]);
    fs::write(&path, &bytes).unwrap();
    let error = Shard::open(&path).unwrap_err().to_string();
    assert!(error.contains("declared 1000 bytes"), "{error}");
}

#[test]
fn members_declaring_more_than_the_bound_in_all_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shard-000000000-w0.npz");
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for name in ["board.npy", "ply.npy"] {
        out.start_file(name, options).unwrap();
        out.write_all(b"tiny").unwrap();
    }
    let mut bytes = out.finish().unwrap().into_inner();
    // The second member alone is within the bound, with the first one it is not. (The bound
    // was 4 GiB: a 4 MB deflate bomb within it made readers allocate ~20 GB before any check.)
    assert_eq!(MAX_SHARD_BYTES, 256 << 20);
    patch_declared_sizes(&mut bytes, &[4, MAX_SHARD_BYTES as u32 - 3]);
    fs::write(&path, &bytes).unwrap();
    let error = Shard::open(&path).unwrap_err().to_string();
    assert!(error.contains("ply.npy is too large"), "{error}");
}
