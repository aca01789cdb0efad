//! The training page's data: every scalar the run logged to TensorBoard (`<run>/tb`: the
//! trainer's losses at the top, `selfplay/`, `arena/`), read with
//! [`koshogi_metrics::read_scalar_runs`], and the ladder's current ratings (`arena/ladder.csv`,
//! which is re-rated as a whole after each new checkpoint and so is the Elo curve to show; read
//! with the run-store's [`read_ladder_csv`], the one owner of its format).
//!
//! `GET /api/training` → `{runs: {"<subdir>": {"<tag>": [[step, value]…]}}, ladder: [{name, step,
//! elo, stderr, games, points}…] | null, picture: "/api/training/elo.svg" | null}`; `step` is null
//! for a baseline of the ladder (`greedy`, `ab:2`, …), which is no checkpoint; `picture` is where
//! the ladder's picture of progress is, when the run has one.
//!
//! `GET /api/training/elo.svg` → the ladder's picture of progress (`arena/elo.svg`, drawn by
//! `koshogi arena --ladder`: Elo against training hours and steps, the baselines as levels), as
//! `image/svg+xml`; 404 when the ladder has not drawn one.

use std::collections::BTreeMap;

use koshogi_files::small_file::read_small_text;
use koshogi_run_store::ladder_csv::read_ladder_csv;
use serde_json::{json, Value};

use crate::app::App;
use crate::error::ApiError;
use crate::request::ApiResponse;

/// Where the page finds the picture of progress.
pub const PICTURE_ROUTE: &str = "/api/training/elo.svg";
/// The content type of the picture.
pub const SVG_CONTENT_TYPE: &str = "image/svg+xml";
/// The largest picture served (about 1 kB a checkpoint: far above any run's ladder).
const MAX_PICTURE_BYTES: u64 = 16 << 20;

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
    let picture = app.run.elo_svg().is_file().then_some(PICTURE_ROUTE);
    Ok(json!({ "runs": runs, "ladder": ladder, "picture": picture }))
}

/// `arena/elo.svg` as it is on disk.
pub fn picture(app: &App) -> Result<ApiResponse, ApiError> {
    let path = app.run.elo_svg();
    let text = read_small_text(&path, MAX_PICTURE_BYTES).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ApiError::not_found(
            "this run has no picture of progress yet (koshogi arena --ladder draws arena/elo.svg)",
        ),
        _ => ApiError::internal(format!("{}: {e}", path.display())),
    })?;
    Ok(ApiResponse {
        status: 200,
        content_type: SVG_CONTENT_TYPE,
        body: text.into_bytes(),
    })
}
