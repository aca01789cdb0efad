//! The training page's data: every scalar the run logged to TensorBoard (`<run>/tb`: the
//! trainer's losses at the top, `selfplay/`, `arena/`), read with
//! [`koshogi_metrics::read_scalar_runs`], and the ladder's current ratings (`arena/ladder.csv`,
//! which is re-rated as a whole after each new checkpoint and so is the Elo curve to show; read
//! with the run-store's [`read_ladder_csv`], the one owner of its format).
//!
//! `GET /api/training` → `{runs: {"<subdir>": {"<tag>": [[step, value]…]}}, ladder: [{name, step,
//! elo, stderr, games, points}…] | null}`; `step` is null for a baseline of the ladder (`greedy`,
//! `ab:2`, …), which is no checkpoint.

use std::collections::BTreeMap;

use koshogi_run_store::ladder_csv::read_ladder_csv;
use serde_json::{json, Value};

use crate::app::App;
use crate::error::ApiError;

pub fn training(app: &App) -> Result<Value, ApiError> {
    let runs = koshogi_metrics::read_scalar_runs(&app.run.tensorboard_dir())
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let runs: BTreeMap<String, BTreeMap<String, Vec<(i64, f64)>>> = runs
        .into_iter()
        .map(|(run, series)| {
            let series = series
                .into_iter()
                .map(|(tag, points)| {
                    let points = points
                        .iter()
                        .filter(|p| p.value.is_finite())
                        .map(|p| (p.step, p.value))
                        .collect();
                    (tag, points)
                })
                .collect();
            (run, series)
        })
        .collect();
    let ladder = read_ladder_csv(&app.run.ladder_csv()).map_err(|e| {
        // An I/O error's cause (not found, permission…) is its source.
        let cause = std::error::Error::source(&e)
            .map(|s| format!(": {s}"))
            .unwrap_or_default();
        ApiError::internal(format!("{e}{cause}"))
    })?;
    Ok(json!({ "runs": runs, "ladder": ladder }))
}
