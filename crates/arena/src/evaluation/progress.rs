//! A partly played evaluation on disk, `<run>/eval/eval-<checkpoint>.partial.json`, so that
//! `koshogi eval` stopped by Ctrl-C, a crash or the machine going away resumes at its first
//! unplayed row when the same command runs again.
//!
//! Why: a full table (controls, both adjudication settings, equal time) takes hours on two cores;
//! losing every finished row to one interruption made long evaluations a gamble. The file is
//! rewritten atomically after every row and holds the evaluation's conditions: a later start
//! reuses its rows only under the same conditions and the same rows in the same order, and the
//! finished report removes it. Rows are stored without their Elo estimate, which is recomputed
//! from the counts (its infinite bounds do not survive JSON).

use std::path::{Path, PathBuf};

use koshogi_files::atomic::write_atomic;
use koshogi_files::small_file::read_small_text;
use koshogi_run_store::layout::RunLayout;
use serde::{Deserialize, Serialize};

use super::move_stats::MoveStats;
use super::run::{EvalConditions, EvalRow, Role, RowPlan, Section};
use crate::matches::EndingCounts;
use crate::statistics::{EloEstimate, WinDrawLoss};

const FORMAT: &str = "koshogi-eval-progress";
const VERSION: u32 = 1;

/// The largest progress file read: a row is well under a kilobyte.
const MAX_PROGRESS_BYTES: u64 = 4 << 20;

/// `<run>/eval/eval-<checkpoint>.partial.json`.
pub fn progress_path(run_dir: &Path, checkpoint: &str) -> PathBuf {
    RunLayout::new(run_dir)
        .eval_dir()
        .join(format!("eval-{checkpoint}.partial.json"))
}

#[derive(Serialize, Deserialize)]
struct StoredRow {
    player: String,
    opponent: String,
    role: Role,
    section: Section,
    endings: EndingCounts,
    wdl: WinDrawLoss,
    player_moves: MoveStats,
    opponent_moves: MoveStats,
    mean_plies: f64,
}

impl StoredRow {
    fn from_row(row: &EvalRow) -> Self {
        Self {
            player: row.player.clone(),
            opponent: row.opponent.clone(),
            role: row.role,
            section: row.section,
            endings: row.endings.clone(),
            wdl: row.wdl,
            player_moves: row.player_moves,
            opponent_moves: row.opponent_moves,
            mean_plies: row.mean_plies,
        }
    }

    fn into_row(self) -> EvalRow {
        EvalRow {
            elo: EloEstimate::from_wdl(self.wdl),
            player: self.player,
            opponent: self.opponent,
            role: self.role,
            section: self.section,
            endings: self.endings,
            wdl: self.wdl,
            player_moves: self.player_moves,
            opponent_moves: self.opponent_moves,
            mean_plies: self.mean_plies,
        }
    }

    /// The row of `plan` this result belongs to, with every game of it played.
    fn answers(&self, plan: &RowPlan) -> bool {
        let games = self.wdl.games();
        self.player == plan.player
            && self.opponent == plan.opponent
            && self.role == plan.role
            && self.section == plan.section
            && games >= plan.games as u64
            && games <= plan.games as u64 + 1
            && self.mean_plies.is_finite()
    }
}

#[derive(Serialize, Deserialize)]
struct Stored {
    format: String,
    version: u32,
    checkpoint: String,
    conditions: serde_json::Value,
    rows: Vec<StoredRow>,
}

/// What an earlier start left: the rows to reuse, and what to tell the user.
pub struct Resumed {
    pub rows: Vec<EvalRow>,
    /// Why nothing was reused, when a file was there but did not fit.
    pub discarded: Option<String>,
}

fn conditions_value(conditions: &EvalConditions) -> serde_json::Value {
    serde_json::to_value(conditions).expect("evaluation conditions serialise")
}

/// The rows of an earlier start of the same evaluation at `path`: the longest prefix of `plan`
/// that the file answers. A missing file is a fresh start; an unreadable one, or one made under
/// other conditions, is set aside with the reason (and overwritten by the first new row).
pub fn load_progress(
    path: &Path,
    checkpoint: &str,
    conditions: &EvalConditions,
    plan: &[RowPlan],
) -> Resumed {
    let fresh = |discarded: Option<String>| Resumed {
        rows: Vec::new(),
        discarded,
    };
    if !path.exists() {
        return fresh(None);
    }
    let text = match read_small_text(path, MAX_PROGRESS_BYTES) {
        Ok(text) => text,
        Err(error) => return fresh(Some(format!("{}: {error}", path.display()))),
    };
    let stored: Stored = match serde_json::from_str(&text) {
        Ok(stored) => stored,
        Err(error) => {
            return fresh(Some(format!(
                "{} is not an evaluation in progress: {error}",
                path.display()
            )))
        }
    };
    if stored.format != FORMAT || stored.version != VERSION {
        return fresh(Some(format!(
            "{} is format {} version {}, this build reads {FORMAT} version {VERSION}",
            path.display(),
            stored.format,
            stored.version
        )));
    }
    if stored.checkpoint != checkpoint || stored.conditions != conditions_value(conditions) {
        return fresh(Some(format!(
            "{} was played under other settings: starting over",
            path.display()
        )));
    }
    let rows = stored
        .rows
        .into_iter()
        .zip(plan)
        .take_while(|(row, planned)| row.answers(planned))
        .map(|(row, _)| row.into_row())
        .collect();
    Resumed {
        rows,
        discarded: None,
    }
}

/// Writes the finished rows so far (atomically).
pub fn save_progress(
    path: &Path,
    checkpoint: &str,
    conditions: &EvalConditions,
    rows: &[EvalRow],
) -> std::io::Result<()> {
    let stored = Stored {
        format: FORMAT.into(),
        version: VERSION,
        checkpoint: checkpoint.into(),
        conditions: conditions_value(conditions),
        rows: rows.iter().map(StoredRow::from_row).collect(),
    };
    let text = serde_json::to_string_pretty(&stored).expect("rows serialise") + "\n";
    write_atomic(path, text.as_bytes())
}
