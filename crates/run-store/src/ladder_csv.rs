//! The ladder's ratings table, `<run>/arena/ladder.csv`: written by the arena after each
//! re-rating, read by the viewer's training page. Its format lives here, with the run's other
//! names, so that a reader needs neither the arena nor what the arena depends on.
//!
//! ```text
//! name,step,elo,stderr,games,points
//! step-000000000,0,0.0,0.0,60,28.5
//! greedy,,-150.0,45.0,16,1.5
//! ```
//!
//! The step is empty for a baseline (`greedy`, `ab:2`), which is no checkpoint.

use std::path::{Path, PathBuf};

use koshogi_files::atomic::write_atomic;
use koshogi_files::small_file::read_small_text;

/// The first line of `ladder.csv`.
const LADDER_CSV_HEADER: &str = "name,step,elo,stderr,games,points";

/// Reading or writing `ladder.csv` failed.
#[derive(Debug, thiserror::Error)]
pub enum LadderCsvError {
    #[error("{path}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: line {line} is malformed")]
    Malformed { path: PathBuf, line: usize },
}

/// One row of `ladder.csv`: a player's rating.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LadderRow {
    pub name: String,
    /// The checkpoint's training step; `None` for a baseline, which is no checkpoint.
    pub step: Option<u64>,
    /// Elo relative to the ladder's anchor.
    pub elo: f64,
    /// Standard error of `elo`.
    pub stderr: f64,
    /// Real games played.
    pub games: u64,
    /// Real points scored.
    pub points: f64,
}

/// Writes `ladder.csv` (atomically): checkpoints by step first, then the baselines, each group
/// by name; Elo and its error with one decimal.
pub fn write_ladder_csv(path: &Path, rows: &[LadderRow]) -> Result<(), LadderCsvError> {
    let mut text = format!("{LADDER_CSV_HEADER}\n");
    let mut sorted: Vec<&LadderRow> = rows.iter().collect();
    sorted.sort_by_key(|r| (r.step.unwrap_or(u64::MAX), r.name.clone()));
    for r in sorted {
        let step = r.step.map(|s| s.to_string()).unwrap_or_default();
        text.push_str(&format!(
            "{},{},{:.1},{:.1},{},{}\n",
            r.name, step, r.elo, r.stderr, r.games, r.points
        ));
    }
    write_atomic(path, text.as_bytes()).map_err(|source| LadderCsvError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads `ladder.csv`, checkpoints by step then the rows without a step (baselines) in file
/// order; `None` when the run has no ladder yet.
pub fn read_ladder_csv(path: &Path) -> Result<Option<Vec<LadderRow>>, LadderCsvError> {
    // A row per checkpoint and baseline, ~50 bytes each: a larger file is not read whole.
    const MAX_LADDER_CSV_BYTES: u64 = 16 << 20;
    let text = match read_small_text(path, MAX_LADDER_CSV_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(LadderCsvError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let bad = |index: usize| LadderCsvError::Malformed {
        path: path.to_path_buf(),
        line: index + 1,
    };
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [name, step, elo, stderr, games, points] = fields[..] else {
            return Err(bad(index));
        };
        rows.push(LadderRow {
            name: name.to_string(),
            step: if step.is_empty() {
                None
            } else {
                Some(step.parse().map_err(|_| bad(index))?)
            },
            elo: elo.parse().map_err(|_| bad(index))?,
            stderr: stderr.parse().map_err(|_| bad(index))?,
            games: games.parse().map_err(|_| bad(index))?,
            points: points.parse().map_err(|_| bad(index))?,
        });
    }
    rows.sort_by_key(|r| (r.step.is_none(), r.step));
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_table_is_read_by_step_and_a_malformed_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ladder.csv");
        assert_eq!(read_ladder_csv(&path).unwrap(), None);
        std::fs::write(
            &path,
            "name,step,elo,stderr,games,points\nstep-000000200,200,29.0,53.7,60,32\nstep-000000000,0,0.0,0.0,60,28.5\n",
        )
        .unwrap();
        let rows = read_ladder_csv(&path).unwrap().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].step, rows[0].elo), (Some(0), 0.0));
        assert_eq!(
            (rows[1].name.as_str(), rows[1].elo, rows[1].stderr),
            ("step-000000200", 29.0, 53.7)
        );
        assert_eq!(rows[1].points, 32.0);
        for malformed in ["x,1,2", "x,one,0.0,0.0,4,2", "x,1,0.0,0.0,4"] {
            std::fs::write(
                &path,
                format!("name,step,elo,stderr,games,points\n{malformed}\n"),
            )
            .unwrap();
            assert!(
                matches!(
                    read_ladder_csv(&path).unwrap_err(),
                    LadderCsvError::Malformed { line: 2, .. }
                ),
                "{malformed}"
            );
        }
    }

    #[test]
    fn a_ladder_table_over_its_bound_is_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ladder.csv");
        let mut text = String::from("name,step,elo,stderr,games,points\n");
        text.push_str(&"\n".repeat(16 << 20));
        text.push_str("step-000000000,0,0.0,0.0,60,28.5\n");
        std::fs::write(&path, text).unwrap();
        let error = read_ladder_csv(&path).unwrap_err();
        assert!(matches!(error, LadderCsvError::Io { .. }), "{error}");
    }

    #[test]
    fn the_ladder_table_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ladder.csv");
        let row = |name: &str, step, elo, stderr, games, points| LadderRow {
            name: name.to_string(),
            step,
            elo,
            stderr,
            games,
            points,
        };
        // Baselines are no checkpoints: they have no step and come after the checkpoints.
        let rows = [
            row("greedy", None, -150.0, 45.0, 16, 1.5),
            row("step-000000400", Some(400), 35.0, 60.0, 8, 5.0),
            row("ab:2", None, 310.5, 80.0, 16, 14.0),
            row("step-000000000", Some(0), 0.0, 0.0, 8, 3.5),
        ];
        write_ladder_csv(&path, &rows).unwrap();
        assert_eq!(
            read_ladder_csv(&path).unwrap().unwrap(),
            [
                rows[3].clone(),
                rows[1].clone(),
                rows[2].clone(),
                rows[0].clone()
            ]
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\nab:2,,310.5,80.0,16,14\n"), "{text}");
    }
}
