//! The training page's data: every scalar the run logged to TensorBoard (`<run>/tb`: the
//! trainer's losses at the top, `selfplay/`, `arena/`), read with
//! [`koshogi_metrics::read_scalar_runs`], and the ladder's current ratings (`arena/ladder.csv`,
//! which is re-rated as a whole after each new checkpoint and so is the Elo curve to show).
//!
//! `GET /api/training` → `{runs: {"<subdir>": {"<tag>": [[step, value]…]}}, ladder: [{name, step,
//! elo, stderr, games, points}…] | null}`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use crate::api::App;
use crate::error::ApiError;

/// One row of `ladder.csv` (`name,step,elo,stderr,games,points`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LadderRow {
    pub name: String,
    pub step: u64,
    pub elo: f64,
    pub stderr: f64,
    pub games: u64,
    pub points: f64,
}

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
    let ladder = read_ladder(&app.run.ladder_csv())?;
    Ok(json!({ "runs": runs, "ladder": ladder }))
}

/// The ladder table, or `None` when the run has none yet.
pub fn read_ladder(path: &Path) -> Result<Option<Vec<LadderRow>>, ApiError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ApiError::internal(format!("{}: {e}", path.display()))),
    };
    let bad =
        |line: usize| ApiError::internal(format!("{}: line {line} is malformed", path.display()));
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [name, step, elo, stderr, games, points] = fields[..] else {
            return Err(bad(index + 1));
        };
        rows.push(LadderRow {
            name: name.to_string(),
            step: step.parse().map_err(|_| bad(index + 1))?,
            elo: elo.parse().map_err(|_| bad(index + 1))?,
            stderr: stderr.parse().map_err(|_| bad(index + 1))?,
            games: games.parse().map_err(|_| bad(index + 1))?,
            points: points.parse().map_err(|_| bad(index + 1))?,
        });
    }
    rows.sort_by_key(|r| r.step);
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_table_is_read_by_step_and_a_malformed_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ladder.csv");
        assert_eq!(read_ladder(&path).unwrap(), None);
        std::fs::write(
            &path,
            "name,step,elo,stderr,games,points\nstep-000000200,200,29.0,53.7,60,32\nstep-000000000,0,0.0,0.0,60,28.5\n",
        )
        .unwrap();
        let rows = read_ladder(&path).unwrap().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].step, rows[0].elo), (0, 0.0));
        assert_eq!(
            (rows[1].name.as_str(), rows[1].elo, rows[1].stderr),
            ("step-000000200", 29.0, 53.7)
        );
        assert_eq!(rows[1].points, 32.0);
        std::fs::write(&path, "name,step,elo,stderr,games,points\nx,1,2\n").unwrap();
        assert_eq!(read_ladder(&path).unwrap_err().status, 500);
    }
}
