//! The ladder table `arena/ladder.csv` as the viewer's training page reads it
//! (`koshogi_run_store::ladder_csv::read_ladder_csv`). Accepted rows are in order (checkpoints by
//! step, then the baselines), serialise to JSON (the API's answer), and written again as CSV
//! (every number in full) read back the same.
#![no_main]

use std::fmt::Write;

use koshogi_run_store::ladder_csv::{read_ladder_csv, LadderRow};
use libfuzzer_sys::fuzz_target;

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn same_rows(a: &[LadderRow], b: &[LadderRow]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.name == b.name
                && a.step == b.step
                && same(a.elo, b.elo)
                && same(a.stderr, b.stderr)
                && a.games == b.games
                && same(a.points, b.points)
        })
}

fuzz_target!(|data: &[u8]| {
    let path = koshogi_fuzz::scratch_file("ladder.csv", data);
    let Ok(Some(rows)) = read_ladder_csv(&path) else {
        return;
    };
    let first_baseline = rows.iter().position(|r| r.step.is_none());
    let checkpoints = &rows[..first_baseline.unwrap_or(rows.len())];
    assert!(checkpoints.windows(2).all(|w| w[0].step <= w[1].step));
    assert!(rows[checkpoints.len()..].iter().all(|r| r.step.is_none()));
    for row in &rows {
        assert!(!row.name.contains(',') && row.name.trim() == row.name);
    }
    let _ = serde_json::to_string(&rows).expect("ladder rows serialise");

    let mut text = String::from("name,step,elo,stderr,games,points\n");
    for r in &rows {
        let step = r.step.map(|s| s.to_string()).unwrap_or_default();
        writeln!(
            text,
            "{},{step},{},{},{},{}",
            r.name, r.elo, r.stderr, r.games, r.points
        )
        .unwrap();
    }
    let path = koshogi_fuzz::scratch_file("ladder.csv", text.as_bytes());
    let again = read_ladder_csv(&path)
        .expect("rows written again read back")
        .expect("the file is there");
    assert!(same_rows(&rows, &again), "{rows:?} read back as {again:?}");
});
