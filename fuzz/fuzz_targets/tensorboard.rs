//! TensorBoard event files as the viewer's training page reads them
//! (`koshogi_metrics::event_reader::read_scalars` on a directory holding one events file).
//! The first byte picks how the rest is used:
//!
//! * even: the rest is the file as found on disk (record framing, both CRCs, torn tails);
//! * odd: the rest is a list of records (`[length u16 LE][bytes]`…) that the harness frames
//!   with the right CRCs, so the fuzzer gets past the checksums it cannot compute and
//!   exercises the protobuf decoding of events, summaries and values.
//!
//! What is read is in step order without repeated steps, and written again with the
//! `EventWriter` it reads back the same (tags, steps and values; scalars are 32-bit floats).
#![no_main]

use koshogi_metrics::tfrecord::frame_record;
use koshogi_metrics::{read_scalars, EventWriter, ScalarSeries};
use libfuzzer_sys::fuzz_target;

fn framed(mut data: &[u8]) -> Vec<u8> {
    let mut file = Vec::new();
    while !data.is_empty() {
        let len = match data {
            [a, b, rest @ ..] => {
                data = rest;
                usize::from(u16::from_le_bytes([*a, *b]))
            }
            _ => return file,
        };
        let len = len.min(data.len());
        file.extend(frame_record(&data[..len]));
        data = &data[len..];
    }
    file
}

fn same_points(a: &ScalarSeries, b: &ScalarSeries) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((tag_a, a), (tag_b, b))| {
            tag_a == tag_b
                && a.len() == b.len()
                && a.iter().zip(b).all(|(a, b)| {
                    a.step == b.step
                        && (a.value == b.value || (a.value.is_nan() && b.value.is_nan()))
                })
        })
}

fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = koshogi_fuzz::scratch_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a scratch log directory");
    dir
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        framed(rest)
    };
    let dir = fresh_dir("tensorboard");
    std::fs::write(dir.join("events.out.tfevents.0000000000.fuzz"), &file)
        .expect("writing the scratch events file");
    let Ok(series) = read_scalars(&dir) else {
        return;
    };
    for points in series.values() {
        assert!(points.windows(2).all(|w| w[0].step < w[1].step));
    }

    let again_dir = fresh_dir("tensorboard-again");
    let mut writer = EventWriter::create(&again_dir).expect("creating an event file");
    for (tag, points) in &series {
        for point in points {
            writer
                .add_scalar(tag, point.value, point.step)
                .expect("writing a scalar");
        }
    }
    drop(writer);
    let again = read_scalars(&again_dir).expect("the writer's file reads back");
    assert!(
        same_points(&series, &again),
        "{series:?} read back as {again:?}"
    );
});
