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
use crate::statistics::{EloEstimate, MeanEstimate, WinDrawLoss};

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
    /// Absent in files of binaries before the material samples.
    #[serde(default)]
    player_material: [Option<MeanEstimate>; 2],
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
            player_material: row.player_material,
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
            player_material: self.player_material,
        }
    }

    /// The row of `plan` this result belongs to, with every game of it played.
    fn answers(&self, plan: &RowPlan) -> bool {
        let Some(games) = self.consistent_games() else {
            return false;
        };
        self.player == plan.player
            && self.opponent == plan.opponent
            && self.role == plan.role
            && self.section == plan.section
            && games >= plan.games as u64
            && games <= plan.games as u64 + 1
    }

    /// The row's game count if its figures could come from real games: no count overflows, the
    /// endings add up to the result, no side passes or captures more often than it moves, the
    /// mean length is a length. A hand-edited or damaged file fails here instead of showing
    /// impossible figures (or overflowing) in the table.
    fn consistent_games(&self) -> Option<u64> {
        let add = |a: WinDrawLoss, b: &WinDrawLoss| -> Option<WinDrawLoss> {
            Some(WinDrawLoss::new(
                a.wins.checked_add(b.wins)?,
                a.draws.checked_add(b.draws)?,
                a.losses.checked_add(b.losses)?,
            ))
        };
        let by_ending = self
            .endings
            .0
            .values()
            .try_fold(WinDrawLoss::default(), add)?;
        let games = self
            .wdl
            .wins
            .checked_add(self.wdl.draws)?
            .checked_add(self.wdl.losses)?;
        let moves_ok = |m: &MoveStats| m.passes <= m.moves && m.captures <= m.moves;
        let material_ok = |m: &Option<MeanEstimate>| {
            m.is_none_or(|m| {
                m.mean.is_finite()
                    && m.half_width_95.is_finite()
                    && m.half_width_95 >= 0.0
                    && m.count as u64 <= games
            })
        };
        (by_ending == self.wdl
            && moves_ok(&self.player_moves)
            && moves_ok(&self.opponent_moves)
            && self.player_material.iter().all(material_ok)
            && self.mean_plies.is_finite()
            && self.mean_plies >= 0.0)
            .then_some(games)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::damaged_bytes::damage;
    use crate::matches::Ending;
    use proptest::prelude::*;

    fn conditions() -> EvalConditions {
        EvalConditions {
            policy_games: 4,
            mcts_games: 4,
            simulations: 16,
            max_plies: 300,
            cap_material: Some(2),
            opening_plies: 4,
            seed: 1,
            opponents: vec!["greedy".into()],
            avoid_repetition: true,
            controls: true,
            outright_max_plies: None,
            equal_time: None,
        }
    }

    fn plan() -> Vec<RowPlan> {
        super::super::run::baseline_rows(4)
    }

    /// The finished result of `plan`'s row with 3 wins (2 outright) and a draw.
    fn row(plan: &RowPlan) -> EvalRow {
        let mut endings = EndingCounts::default();
        endings.record(Ending::Command, crate::statistics::GameScore::Win);
        endings.record(Ending::Command, crate::statistics::GameScore::Win);
        endings.record(Ending::Material, crate::statistics::GameScore::Win);
        endings.record(Ending::Cap, crate::statistics::GameScore::Draw);
        let wdl = WinDrawLoss::new(3, 1, 0);
        EvalRow {
            player: plan.player.clone(),
            opponent: plan.opponent.clone(),
            role: plan.role,
            section: plan.section,
            endings,
            wdl,
            elo: EloEstimate::from_wdl(wdl),
            player_moves: MoveStats {
                moves: 400,
                passes: 3,
                captures: 40,
            },
            opponent_moves: MoveStats {
                moves: 398,
                passes: 0,
                captures: 35,
            },
            mean_plies: 199.5,
            player_material: [
                Some(MeanEstimate {
                    mean: -2.5,
                    half_width_95: 1.25,
                    count: 4,
                }),
                None,
            ],
        }
    }

    /// A progress file with the first two rows of [`plan`] finished.
    fn saved() -> (tempfile::TempDir, PathBuf, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("eval-step-000000100.partial.json");
        let rows: Vec<EvalRow> = plan()[..2].iter().map(row).collect();
        save_progress(&path, "step-000000100", &conditions(), &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        (dir, path, text)
    }

    fn load(path: &Path) -> Resumed {
        load_progress(path, "step-000000100", &conditions(), &plan())
    }

    fn as_json(rows: &[EvalRow]) -> Vec<String> {
        rows.iter()
            .map(|r| serde_json::to_string(&StoredRow::from_row(r)).unwrap())
            .collect()
    }

    #[test]
    fn impossible_counts_end_the_reuse_at_their_row() {
        let (_dir, path, text) = saved();
        assert_eq!(load(&path).rows.len(), 2);
        // Counts that overflow when added (an overflow panic in a debug build, a wrapped count
        // that could pass for the planned games in a release build).
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        stored["rows"][1]["wdl"] = serde_json::json!({"wins": u64::MAX, "draws": 5, "losses": 0});
        std::fs::write(&path, stored.to_string()).unwrap();
        assert_eq!(load(&path).rows.len(), 1);
        // Endings that do not add up to the result.
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        stored["rows"][0]["wdl"] = serde_json::json!({"wins": 2, "draws": 1, "losses": 1});
        std::fs::write(&path, stored.to_string()).unwrap();
        assert_eq!(load(&path).rows.len(), 0);
        // More passes than moves.
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        stored["rows"][1]["player_moves"]["passes"] = serde_json::json!(401);
        std::fs::write(&path, stored.to_string()).unwrap();
        assert_eq!(load(&path).rows.len(), 1);
        // A negative mean length.
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        stored["rows"][0]["mean_plies"] = serde_json::json!(-3.0);
        std::fs::write(&path, stored.to_string()).unwrap();
        assert_eq!(load(&path).rows.len(), 0);
        // A material mean over more games than the row played (4).
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        stored["rows"][1]["player_material"][0]["count"] = serde_json::json!(5);
        std::fs::write(&path, stored.to_string()).unwrap();
        assert_eq!(load(&path).rows.len(), 1);
        // A negative interval.
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        stored["rows"][0]["player_material"][0]["half_width_95"] = serde_json::json!(-1.0);
        std::fs::write(&path, stored.to_string()).unwrap();
        assert_eq!(load(&path).rows.len(), 0);
    }

    #[test]
    fn rows_kept_before_the_material_column_still_resume() {
        let (_dir, path, text) = saved();
        let mut stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        for row in stored["rows"].as_array_mut().unwrap() {
            row.as_object_mut()
                .unwrap()
                .remove("player_material")
                .unwrap();
        }
        std::fs::write(&path, stored.to_string()).unwrap();
        let resumed = load(&path);
        assert_eq!(resumed.rows.len(), 2);
        assert!(resumed
            .rows
            .iter()
            .all(|r| r.player_material == [None, None]));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// A damaged progress file (bytes changed, inserted, removed, cut) never panics: it is
        /// set aside with a reason or gives a prefix of the plan whose rows answer their planned
        /// rows with consistent counts, and those rows write back and read again the same.
        #[test]
        fn a_damaged_progress_file_gives_a_consistent_prefix_or_nothing(
            damage in damage(),
        ) {
            let (_dir, path, text) = saved();
            let bytes = damage.apply(text.into_bytes());
            std::fs::write(&path, &bytes).unwrap();
            let resumed = load(&path);
            let plan = plan();
            prop_assert!(resumed.rows.len() <= 2);
            prop_assert!(resumed.rows.is_empty() || resumed.discarded.is_none());
            for (row, planned) in resumed.rows.iter().zip(&plan) {
                let stored = StoredRow::from_row(row);
                prop_assert!(stored.answers(planned));
                prop_assert_eq!(row.endings.0.values().map(|w| w.games()).sum::<u64>(), row.wdl.games());
            }
            save_progress(&path, "step-000000100", &conditions(), &resumed.rows).unwrap();
            let again = load(&path);
            prop_assert_eq!(as_json(&again.rows), as_json(&resumed.rows));
        }
    }
}
