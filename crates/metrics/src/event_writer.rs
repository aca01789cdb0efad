//! Writing TensorBoard event files: scalars, histograms and text.
//!
//! Why hand-written: `tensorboard-rs` is unmaintained and depends on rust-protobuf 2 (advisory
//! RUSTSEC-2024-0437); `tfrecord` is a heavy dependency tree with an unclear licence; nothing else
//! on crates.io is both maintained and small. The file format is stable and tiny — TFRecord framing
//! (length, payload, masked CRC-32C) around protobuf `Event` messages — so ~200 lines plus the
//! `crc32c` crate do it, and `tests/tensorboard_reader.rs` proves TensorBoard itself reads them.
//! See docs/tensorboard.md.
//!
//! Field numbers follow tensorflow/core/util/event.proto and tensorflow/core/framework/summary.proto.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::MetricsError;
use crate::protobuf::Message;
use crate::tfrecord::frame_record;

/// Buckets of a histogram written by [`EventWriter::add_histogram`].
const HISTOGRAM_BUCKETS: usize = 30;

/// TensorFlow's `DataType` value for strings.
const DT_STRING: u64 = 7;

/// Appends events to one new `events.out.tfevents.*` file in a log directory.
///
/// Each event is framed in memory and appended with one `write` call, then flushed to the OS, so
/// a crash loses at most the event being written and leaves at worst a torn final record, which
/// TensorBoard's reader skips. Not `Sync`: share it behind a `Mutex`.
#[derive(Debug)]
pub struct EventWriter {
    path: PathBuf,
    file: File,
}

impl EventWriter {
    /// Creates the log directory if needed and a new event file in it (never reusing a name, so
    /// a resumed run appends a second file that TensorBoard merges with the first).
    pub fn create(log_dir: &Path) -> Result<EventWriter, MetricsError> {
        static FILES_CREATED: AtomicU64 = AtomicU64::new(0);
        fs::create_dir_all(log_dir).map_err(|e| MetricsError::io(log_dir, e))?;
        let seconds = unix_seconds() as u64;
        let name = format!(
            "events.out.tfevents.{seconds:010}.{}.{}.{}",
            host_name(),
            std::process::id(),
            FILES_CREATED.fetch_add(1, Ordering::Relaxed)
        );
        let path = log_dir.join(name);
        let file = File::options()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| MetricsError::io(&path, e))?;
        let mut writer = EventWriter { path, file };
        let mut header = Message::new();
        header.double(1, unix_seconds()).bytes(3, b"brain.Event:2");
        writer.append(header)?;
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One scalar (stored as a 32-bit float, as TensorBoard does).
    pub fn add_scalar(&mut self, tag: &str, value: f64, step: i64) -> Result<(), MetricsError> {
        self.add_scalars(step, &[(tag, value)])
    }

    /// Several scalars of the same step in one event.
    pub fn add_scalars(&mut self, step: i64, values: &[(&str, f64)]) -> Result<(), MetricsError> {
        let mut summary = Message::new();
        for &(tag, value) in values {
            let mut entry = Message::new();
            entry.bytes(1, tag.as_bytes()).float(2, value as f32);
            summary.message(1, &entry);
        }
        self.write_summary(&summary, step)
    }

    /// A histogram of `values` in equal-width buckets between their minimum and maximum.
    /// Non-finite values are left out; with no finite value nothing is written.
    pub fn add_histogram(
        &mut self,
        tag: &str,
        values: &[f64],
        step: i64,
    ) -> Result<(), MetricsError> {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let Some(histogram) = histogram(&finite) else {
            return Ok(());
        };
        let mut entry = Message::new();
        entry.bytes(1, tag.as_bytes()).message(5, &histogram);
        let mut summary = Message::new();
        summary.message(1, &entry);
        self.write_summary(&summary, step)
    }

    /// A text entry (shown in TensorBoard's Text tab; Markdown is rendered).
    pub fn add_text(&mut self, tag: &str, text: &str, step: i64) -> Result<(), MetricsError> {
        let mut plugin = Message::new();
        plugin.bytes(1, b"text");
        let mut metadata = Message::new();
        metadata.message(1, &plugin);
        let mut tensor = Message::new();
        tensor
            .uint(1, DT_STRING)
            .message(2, &Message::new())
            .bytes(8, text.as_bytes());
        let mut entry = Message::new();
        entry
            .bytes(1, tag.as_bytes())
            .message(9, &metadata)
            .message(8, &tensor);
        let mut summary = Message::new();
        summary.message(1, &entry);
        self.write_summary(&summary, step)
    }

    fn write_summary(&mut self, summary: &Message, step: i64) -> Result<(), MetricsError> {
        let mut event = Message::new();
        event
            .double(1, unix_seconds())
            .int64(2, step)
            .message(5, summary);
        self.append(event)
    }

    fn append(&mut self, event: Message) -> Result<(), MetricsError> {
        let record = frame_record(&event.into_bytes());
        self.file
            .write_all(&record)
            .and_then(|()| self.file.flush())
            .map_err(|e| MetricsError::io(&self.path, e))
    }

    /// Forces written events to stable storage (each write already reached the OS).
    pub fn sync(&mut self) -> Result<(), MetricsError> {
        self.file
            .sync_data()
            .map_err(|e| MetricsError::io(&self.path, e))
    }
}

/// `HistogramProto`: bucket `i` counts values in `(bucket_limit[i-1], bucket_limit[i]]`.
fn histogram(values: &[f64]) -> Option<Message> {
    let min = values.iter().copied().reduce(f64::min)?;
    let max = values.iter().copied().reduce(f64::max)?;
    let width = (max - min) / HISTOGRAM_BUCKETS as f64;
    let (limits, counts) = if width > 0.0 {
        let limits: Vec<f64> = (1..=HISTOGRAM_BUCKETS)
            .map(|i| {
                if i == HISTOGRAM_BUCKETS {
                    max
                } else {
                    min + width * i as f64
                }
            })
            .collect();
        let mut counts = vec![0.0; HISTOGRAM_BUCKETS];
        for &v in values {
            let bucket = limits
                .partition_point(|&limit| limit < v)
                .min(HISTOGRAM_BUCKETS - 1);
            counts[bucket] += 1.0;
        }
        (limits, counts)
    } else {
        (vec![max], vec![values.len() as f64])
    };
    let mut message = Message::new();
    message
        .double(1, min)
        .double(2, max)
        .double(3, values.len() as f64)
        .double(4, values.iter().sum())
        .double(5, values.iter().map(|v| v * v).sum())
        .packed_doubles(6, &limits)
        .packed_doubles(7, &counts);
    Some(message)
}

fn unix_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The machine's name for the file name (TensorBoard's convention), without a dependency.
fn host_name() -> String {
    let raw = fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let cleaned: String = raw
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    if cleaned.is_empty() {
        "localhost".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tfrecord::read_records;

    #[test]
    fn file_starts_with_the_version_event_and_holds_one_record_per_call() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = EventWriter::create(dir.path()).unwrap();
        writer.add_scalar("loss", 0.5, 1).unwrap();
        writer.add_scalars(2, &[("a", 1.0), ("b", 2.0)]).unwrap();
        writer.add_histogram("h", &[1.0, 2.0, f64::NAN], 3).unwrap();
        writer.add_histogram("empty", &[], 3).unwrap();
        writer.add_text("config", "x = 1", 0).unwrap();
        let name = writer
            .path()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert!(name.starts_with("events.out.tfevents."), "{name}");
        let records = read_records(File::open(writer.path()).unwrap()).unwrap();
        assert_eq!(records.len(), 5);
        assert!(records[0].windows(13).any(|w| w == b"brain.Event:2"));
    }

    #[test]
    fn histogram_buckets_count_every_value_once() {
        let values: Vec<f64> = (0..100).map(|i| i as f64 / 7.0).collect();
        let bytes = histogram(&values).unwrap().into_bytes();
        // Packed bucket counts are field 7 (key 0x3a, varint length 240 = f0 01), at the tail.
        let counts_start = bytes.len() - HISTOGRAM_BUCKETS * 8;
        assert_eq!(&bytes[counts_start - 3..counts_start], &[0x3a, 0xf0, 0x01]);
        let total: f64 = bytes[counts_start..]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .sum();
        assert_eq!(total, 100.0);
        let single = histogram(&[3.0, 3.0]).unwrap().into_bytes();
        assert!(single.ends_with(&2.0f64.to_le_bytes()));
    }
}
