//! File names inside a shard directory: finished shards, and the temporary files they are
//! written to first.
//!
//! `shard-<sequence:09>-<writer>.npz` sorts in creation order and never collides between writers;
//! temporary files start with a dot and end in `.tmp`, so no reader ever mistakes one for a shard,
//! and carry the writing process id so the next start can tell an abandoned one from a live one.

use std::path::{Path, PathBuf};

use crate::error::ShardError;

const SHARD_PREFIX: &str = "shard-";
const SHARD_SUFFIX: &str = ".npz";
const TEMP_PREFIX: &str = ".partial-";
const TEMP_SUFFIX: &str = ".tmp";

/// A finished shard in a shard directory.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShardFile {
    /// Creation order within the directory (allocated when the shard becomes visible).
    pub sequence: u64,
    /// Which writer produced it (unique among concurrent writers of one run).
    pub writer_id: String,
    pub path: PathBuf,
}

/// Checks a writer id: 1–32 ASCII letters, digits or `_` (no `-`, which separates name fields).
pub fn validate_writer_id(writer_id: &str) -> Result<(), ShardError> {
    let ok = (1..=32).contains(&writer_id.len())
        && writer_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ShardError::BadWriterId(writer_id.to_string()))
    }
}

pub(crate) fn shard_file_name(sequence: u64, writer_id: &str) -> String {
    format!("{SHARD_PREFIX}{sequence:09}-{writer_id}{SHARD_SUFFIX}")
}

/// `(sequence, writer id)` of a finished shard's file name, or `None` for anything else
/// (temporary files, other files, anything with a path separator).
pub fn parse_shard_file_name(name: &str) -> Option<(u64, String)> {
    let stem = name
        .strip_prefix(SHARD_PREFIX)?
        .strip_suffix(SHARD_SUFFIX)?;
    let (sequence, writer) = stem.split_once('-')?;
    if sequence.len() < 9 || !sequence.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    validate_writer_id(writer).ok()?;
    Some((sequence.parse().ok()?, writer.to_string()))
}

/// The finished shard names among `names`, oldest first (by sequence, then writer id), without
/// anything else: the order of [`crate::ShardSource::list`] for a source that gets bare names,
/// such as an object store listing (byte order, which stops being sequence order once a
/// sequence outgrows nine digits).
pub fn finished_shard_names<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut shards: Vec<(u64, String, String)> = names
        .into_iter()
        .filter_map(|name| {
            let name = name.as_ref();
            let (sequence, writer) = parse_shard_file_name(name)?;
            Some((sequence, writer, name.to_string()))
        })
        .collect();
    shards.sort();
    shards.dedup();
    shards.into_iter().map(|(_, _, name)| name).collect()
}

pub(crate) fn temp_file_name(writer_id: &str, pid: u32, counter: u64) -> String {
    format!("{TEMP_PREFIX}{writer_id}-{pid}-{counter}{TEMP_SUFFIX}")
}

/// The process id that created a temporary file, or `None` if the name is not a shard temp file.
pub(crate) fn parse_temp_file_pid(name: &str) -> Option<u32> {
    let stem = name.strip_prefix(TEMP_PREFIX)?.strip_suffix(TEMP_SUFFIX)?;
    let mut fields = stem.rsplitn(3, '-');
    let _counter: u64 = fields.next()?.parse().ok()?;
    fields.next()?.parse().ok()
}

/// The directory holding a run's shards (its name is the run layout's, [`koshogi_run_layout`]).
pub fn shards_dir(run_dir: &Path) -> PathBuf {
    koshogi_run_layout::RunLayout::new(run_dir).shards_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names_round_trip_and_sort_in_sequence_order() {
        let names: Vec<String> = [(2, "w1"), (10, "w0"), (1_000_000_000, "a")]
            .iter()
            .map(|&(s, w)| shard_file_name(s, w))
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, names);
        assert_eq!(parse_shard_file_name(&names[1]), Some((10, "w0".into())));
        assert_eq!(
            parse_shard_file_name(&names[2]),
            Some((1_000_000_000, "a".into()))
        );
    }

    #[test]
    fn other_names_are_not_shards() {
        for name in [
            "shard-000000001-w0.npz.tmp",
            ".partial-w0-12-0.tmp",
            "shard-1-w0.npz",
            "shard-00000000x-w0.npz",
            "shard-000000001-.npz",
            "shard-000000001-w-0.npz",
            "game-000000001-w0.npz",
        ] {
            assert_eq!(parse_shard_file_name(name), None, "{name}");
        }
    }

    #[test]
    fn finished_shard_names_are_filtered_and_in_sequence_order() {
        let names = [
            "shard-1000000000-w0.npz",
            ".partial-w0-12-0.tmp",
            "shard-000000002-b.npz",
            "shards/shard-000000001-w0.npz",
            "shard-000000002-a.npz",
            "notes.txt",
        ];
        assert_eq!(
            finished_shard_names(names),
            [
                "shard-000000002-a.npz",
                "shard-000000002-b.npz",
                "shard-1000000000-w0.npz"
            ]
        );
    }

    #[test]
    fn temp_names_carry_the_pid() {
        assert_eq!(
            parse_temp_file_pid(&temp_file_name("w_3", 4242, 7)),
            Some(4242)
        );
        assert_eq!(parse_temp_file_pid("shard-000000001-w0.npz"), None);
    }

    #[test]
    fn writer_ids_are_checked() {
        assert!(validate_writer_id("worker_12").is_ok());
        for bad in ["", "a-b", "a b", "ü", &"x".repeat(33)] {
            assert!(validate_writer_id(bad).is_err(), "{bad}");
        }
    }
}
