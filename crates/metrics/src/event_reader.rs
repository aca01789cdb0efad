//! Reading scalars back from TensorBoard event files, for quick looks without TensorBoard (the
//! web viewer's training page draws the loss and Elo curves from them).
//!
//! Only scalar summaries (`Summary.Value.simple_value`) are read; histograms, text and anything
//! else are skipped. Both CRCs of every record are checked ([`crate::tfrecord::read_records`]):
//! a corrupted file is an error, while a torn final record (a writer still appending, or killed
//! mid-append) is ignored as TensorBoard does.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use crate::error::MetricsError;
use crate::protobuf::{DecodeError, FieldValue, Fields};
use crate::tfrecord::read_records;

/// One logged value of a tag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalarPoint {
    pub step: i64,
    pub value: f64,
    /// Seconds since the Unix epoch when the event was written.
    pub wall_time: f64,
}

/// Every scalar tag of a log directory with its points in step order.
pub type ScalarSeries = BTreeMap<String, Vec<ScalarPoint>>;

/// The name prefix TensorBoard recognises as an event file.
const EVENT_FILE_PREFIX: &str = "events.out.tfevents.";

/// How deep [`read_scalar_runs`] looks for log directories below its root.
const MAX_RUN_DEPTH: usize = 4;

/// The scalars of every event file directly in `log_dir` (one TensorBoard "run"; files in
/// subdirectories are other runs). Points are sorted by step; a step logged more than once (a
/// resumed trainer, a ladder re-rated after a new checkpoint) keeps its latest value. A missing
/// directory has no scalars.
pub fn read_scalars(log_dir: &Path) -> Result<ScalarSeries, MetricsError> {
    let mut series = ScalarSeries::new();
    for path in event_files(log_dir)? {
        read_file_into(&path, &mut series)?;
    }
    for points in series.values_mut() {
        // Stable sort: among equal steps the later-written point comes last and is kept.
        points.sort_by(|a, b| {
            a.step
                .cmp(&b.step)
                .then(a.wall_time.total_cmp(&b.wall_time))
        });
        let mut deduplicated: Vec<ScalarPoint> = Vec::with_capacity(points.len());
        for point in points.drain(..) {
            match deduplicated.last_mut() {
                Some(last) if last.step == point.step => *last = point,
                _ => deduplicated.push(point),
            }
        }
        *points = deduplicated;
    }
    Ok(series)
}

/// [`read_scalars`] of `root` and of every directory below it that holds event files, keyed by
/// the path relative to `root` with `/` separators (`""` for `root` itself, e.g. `"arena"`).
/// Directories without scalars are left out.
pub fn read_scalar_runs(root: &Path) -> Result<BTreeMap<String, ScalarSeries>, MetricsError> {
    let mut runs = BTreeMap::new();
    let mut pending = vec![(root.to_path_buf(), String::new(), 0usize)];
    while let Some((dir, name, depth)) = pending.pop() {
        let series = read_scalars(&dir)?;
        if !series.is_empty() {
            runs.insert(name.clone(), series);
        }
        if depth >= MAX_RUN_DEPTH {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                let child = entry.file_name().to_string_lossy().into_owned();
                let child_name = if name.is_empty() {
                    child
                } else {
                    format!("{name}/{child}")
                };
                pending.push((path, child_name, depth + 1));
            }
        }
    }
    Ok(runs)
}

/// The event files of a directory in name order (names start with the creation time).
fn event_files(log_dir: &Path) -> Result<Vec<PathBuf>, MetricsError> {
    let entries = match std::fs::read_dir(log_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(MetricsError::io(log_dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| MetricsError::io(log_dir, e))?;
        let is_event_file = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(EVENT_FILE_PREFIX));
        if is_event_file && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

fn read_file_into(path: &Path, series: &mut ScalarSeries) -> Result<(), MetricsError> {
    let file = File::open(path).map_err(|e| MetricsError::io(path, e))?;
    let records = read_records(BufReader::new(file)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            MetricsError::corrupt(path, e.to_string())
        } else {
            MetricsError::io(path, e)
        }
    })?;
    for record in records {
        decode_event(&record, series)
            .map_err(|e| MetricsError::corrupt(path, format!("malformed event: {e}")))?;
    }
    Ok(())
}

/// `Event { double wall_time = 1; int64 step = 2; Summary summary = 5; }`.
fn decode_event(bytes: &[u8], series: &mut ScalarSeries) -> Result<(), DecodeError> {
    let mut wall_time = 0.0;
    let mut step = 0i64;
    let mut summary = None;
    for field in Fields::new(bytes) {
        match field? {
            (1, FieldValue::Fixed64(b)) => wall_time = f64::from_le_bytes(b),
            (2, FieldValue::Varint(v)) => step = v as i64,
            (5, FieldValue::LengthDelimited(s)) => summary = Some(s),
            _ => {}
        }
    }
    let Some(summary) = summary else {
        return Ok(());
    };
    // `Summary { repeated Value value = 1; }`
    for field in Fields::new(summary) {
        if let (1, FieldValue::LengthDelimited(value)) = field? {
            if let Some((tag, value)) = decode_simple_value(value)? {
                series.entry(tag).or_default().push(ScalarPoint {
                    step,
                    value,
                    wall_time,
                });
            }
        }
    }
    Ok(())
}

/// `Value { string tag = 1; float simple_value = 2; … }`: `None` for non-scalar values.
fn decode_simple_value(bytes: &[u8]) -> Result<Option<(String, f64)>, DecodeError> {
    let mut tag = None;
    let mut value = None;
    for field in Fields::new(bytes) {
        match field? {
            (1, FieldValue::LengthDelimited(t)) => {
                tag = Some(String::from_utf8_lossy(t).into_owned());
            }
            (2, FieldValue::Fixed32(b)) => value = Some(f64::from(f32::from_le_bytes(b))),
            _ => {}
        }
    }
    Ok(tag.zip(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EventWriter;

    fn values(points: &[ScalarPoint]) -> Vec<(i64, f64)> {
        points.iter().map(|p| (p.step, p.value)).collect()
    }

    #[test]
    fn scalars_written_by_the_event_writer_read_back_by_tag_and_step() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = EventWriter::create(dir.path()).unwrap();
        // Written out of step order and with values exact in f32, as the writer stores them.
        writer
            .add_scalars(20, &[("loss/total", 1.5), ("loss/policy", 0.75)])
            .unwrap();
        writer.add_scalar("loss/total", 2.25, 10).unwrap();
        writer.add_scalar("loss/total", -0.5, 1 << 40).unwrap();
        // Non-scalar summaries are skipped.
        writer
            .add_histogram("weights", &[1.0, 2.0, 3.0], 10)
            .unwrap();
        writer.add_text("config", "x = 1", 0).unwrap();
        drop(writer);

        let series = read_scalars(dir.path()).unwrap();
        assert_eq!(
            series.keys().collect::<Vec<_>>(),
            ["loss/policy", "loss/total"]
        );
        assert_eq!(
            values(&series["loss/total"]),
            [(10, 2.25), (20, 1.5), (1 << 40, -0.5)]
        );
        assert_eq!(values(&series["loss/policy"]), [(20, 0.75)]);
        assert!(series["loss/total"].iter().all(|p| p.wall_time > 1.0e9));
    }

    #[test]
    fn a_step_logged_again_in_a_later_file_keeps_the_later_value() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = EventWriter::create(dir.path()).unwrap();
        first.add_scalar("arena/elo", 10.0, 100).unwrap();
        first.add_scalar("arena/elo", 20.0, 200).unwrap();
        drop(first);
        let mut second = EventWriter::create(dir.path()).unwrap();
        second.add_scalar("arena/elo", 12.0, 100).unwrap();
        drop(second);
        let series = read_scalars(dir.path()).unwrap();
        assert_eq!(values(&series["arena/elo"]), [(100, 12.0), (200, 20.0)]);
    }

    #[test]
    fn a_corrupted_file_is_rejected_and_a_torn_tail_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = EventWriter::create(dir.path()).unwrap();
        writer.add_scalar("loss/total", 1.0, 1).unwrap();
        writer.add_scalar("loss/total", 2.0, 2).unwrap();
        let path = writer.path().to_path_buf();
        drop(writer);
        let clean = std::fs::read(&path).unwrap();

        // A writer killed mid-append: the last record is cut short and ignored.
        std::fs::write(&path, &clean[..clean.len() - 5]).unwrap();
        let series = read_scalars(dir.path()).unwrap();
        assert_eq!(values(&series["loss/total"]), [(1, 1.0)]);

        // One flipped bit in the last record's payload fails its data CRC.
        let mut corrupted = clean.clone();
        let index = corrupted.len() - 8;
        corrupted[index] ^= 0x10;
        std::fs::write(&path, &corrupted).unwrap();
        let err = read_scalars(dir.path()).unwrap_err();
        assert!(matches!(err, MetricsError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("CRC"), "{err}");
    }

    #[test]
    fn runs_are_the_directories_with_event_files_and_a_missing_root_is_empty() {
        let root = tempfile::tempdir().unwrap();
        let mut trainer = EventWriter::create(root.path()).unwrap();
        trainer.add_scalar("loss/total", 3.0, 5).unwrap();
        let mut arena = EventWriter::create(&root.path().join("arena")).unwrap();
        arena.add_scalar("arena/elo", 42.0, 5).unwrap();
        std::fs::create_dir(root.path().join("empty")).unwrap();
        drop((trainer, arena));
        let runs = read_scalar_runs(root.path()).unwrap();
        assert_eq!(runs.keys().collect::<Vec<_>>(), ["", "arena"]);
        assert_eq!(values(&runs["arena"]["arena/elo"]), [(5, 42.0)]);
        assert!(read_scalar_runs(&root.path().join("missing"))
            .unwrap()
            .is_empty());
    }
}
