//! The table of a `koshogi eval` ([`run_evaluation`](super::run_evaluation)) as Markdown for
//! people and JSON for programs, written atomically next to each other in `<run>/eval/`.
//!
//! Why a file of its own: the table is the evaluation's product, read by people comparing runs,
//! so its columns, rounding and wording are kept in one place and pinned by tests. The Markdown
//! states everything needed to play the same games again (the equivalent command line) and
//! defines its columns; the JSON holds the exact counts (W/D/L, moves, passes, captures), the
//! Elo estimate in full and the same conditions.

use std::path::{Path, PathBuf};

use koshogi_files::atomic::write_atomic;

use super::{eval_dir, EvalConditions, EvalRow, Evaluation};
use crate::statistics::{format_elo, Z_95};

/// The table's columns, in order.
pub const COLUMNS: [&str; 13] = [
    "player",
    "opponent",
    "games",
    "W",
    "D",
    "L",
    "score ± 95 % CI",
    "Elo ±",
    "player's pass %",
    "player's capture %",
    "opponent's pass %",
    "opponent's capture %",
    "mean plies",
];

/// What the columns mean, printed under the table.
pub const DEFINITIONS: &str = "\
Score and Elo are the player's, with 95 % intervals (trinomial variance; Elo by the delta \
method, `inf` after a sweep; docs/arena.md). A pass is a move after which every point holds the \
same piece as before (a lion-like piece stepping out and back); a capture is a move after which \
the opponent has fewer pieces (displacement, igui, shots and burning). Rates are over each \
side's own moves in all games of the row; the random opening plies are nobody's. Mean plies \
include the opening.";

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "–".to_string(), |r| format!("{:.1}", 100.0 * r))
}

/// The 13 cells of one row, as [`COLUMNS`] names them.
pub fn row_cells(row: &EvalRow) -> [String; 13] {
    let (score, elo) = match &row.elo {
        Some(e) => (
            format!(
                "{:.1} % ± {:.1} %",
                100.0 * e.score,
                100.0 * Z_95 * e.score_stderr
            ),
            format!(
                "{} ± {}",
                format_elo(e.elo),
                format_elo(e.elo_error_95).trim_start_matches('+')
            ),
        ),
        None => ("–".to_string(), "–".to_string()),
    };
    [
        row.player.clone(),
        row.opponent.clone(),
        row.wdl.games().to_string(),
        row.wdl.wins.to_string(),
        row.wdl.draws.to_string(),
        row.wdl.losses.to_string(),
        score,
        elo,
        percent(row.player_moves.pass_rate()),
        percent(row.player_moves.capture_rate()),
        percent(row.opponent_moves.pass_rate()),
        percent(row.opponent_moves.capture_rate()),
        format!("{:.1}", row.mean_plies),
    ]
}

/// A Markdown table with padded columns (readable as plain text too): names left-aligned,
/// numbers right-aligned.
pub fn markdown_table(rows: &[EvalRow]) -> String {
    let cells: Vec<[String; 13]> = rows.iter().map(row_cells).collect();
    let width = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .chain([COLUMNS[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..COLUMNS.len()).map(width).collect();
    let left = |i: usize| i < 2;
    let line = |texts: &[String]| -> String {
        let padded: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if left(i) {
                    format!("{t:<w$}", w = widths[i])
                } else {
                    format!("{t:>w$}", w = widths[i])
                }
            })
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let header: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    let mut text = line(&header);
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            if left(i) {
                format!(":{}", "-".repeat(w - 1))
            } else {
                format!("{}:", "-".repeat(w - 1))
            }
        })
        .collect();
    text.push_str(&line(&rule));
    for row in &cells {
        text.push_str(&line(row));
    }
    text
}

/// The `koshogi eval` command that plays the same games again.
pub fn rerun_command(run_dir: &Path, step: u64, conditions: &EvalConditions) -> String {
    let mut command = format!(
        "koshogi eval --run {} --checkpoint {step} --games {} --mcts-games {} --sims {} \
         --max-plies {} --cap-material {} --opening-plies {} --seed {}",
        run_dir.display(),
        conditions.policy_games,
        conditions.mcts_games,
        conditions.simulations,
        conditions.max_plies,
        conditions.cap_material.unwrap_or(0),
        conditions.opening_plies,
        conditions.seed,
    );
    command.push_str(&format!(
        " --opponents '{}'",
        conditions.opponents.join(",")
    ));
    if !conditions.avoid_repetition {
        command.push_str(" --allow-repetition");
    }
    command
}

impl Evaluation {
    /// The whole Markdown document: title, conditions, table, definitions.
    pub fn markdown(&self) -> String {
        let c = &self.conditions;
        let cap = match c.cap_material {
            Some(n) => format!("then the side with {n}+ more pieces wins, else a draw"),
            None => "then a draw".to_string(),
        };
        let baseline = match &self.baseline {
            Some(b) => format!("; the run's first checkpoint is {b}"),
            None => String::new(),
        };
        format!(
            "# koshogi eval: {checkpoint} of {run}\n\n\
             Checkpoint {checkpoint} (step {step}){baseline}. Each opening ({opening} random \
             plies) is played with both colours; games stop at {max_plies} plies, {cap}. \
             Search rows use {sims} simulations per move.\n\n\
             Rerun: `{command}`\n\n\
             {table}\n\
             {DEFINITIONS}\n",
            checkpoint = self.checkpoint,
            run = self.run_dir.display(),
            step = self.step,
            opening = c.opening_plies,
            max_plies = c.max_plies,
            sims = c.simulations,
            command = rerun_command(&self.run_dir, self.step, c),
            table = markdown_table(&self.rows),
        )
    }

    pub fn json(&self) -> String {
        // Infinite Elo bounds (a sweep) become `null`.
        serde_json::to_string_pretty(self).expect("an evaluation serialises") + "\n"
    }

    /// `<run>/eval/eval-<checkpoint>.md` and `.json`.
    pub fn file_paths(&self) -> (PathBuf, PathBuf) {
        let dir = eval_dir(&self.run_dir);
        let stem = format!("eval-{}", self.checkpoint);
        (
            dir.join(format!("{stem}.md")),
            dir.join(format!("{stem}.json")),
        )
    }

    /// Writes both files atomically (an earlier evaluation of the same checkpoint is replaced)
    /// and returns their paths.
    pub fn write(&self) -> std::io::Result<(PathBuf, PathBuf)> {
        let (markdown, json) = self.file_paths();
        write_atomic(&markdown, self.markdown().as_bytes())?;
        write_atomic(&json, self.json().as_bytes())?;
        Ok((markdown, json))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::MoveStats;
    use crate::statistics::{EloEstimate, WinDrawLoss};

    fn row(player: &str, opponent: &str, wdl: WinDrawLoss) -> EvalRow {
        EvalRow {
            player: player.into(),
            opponent: opponent.into(),
            wdl,
            elo: EloEstimate::from_wdl(wdl),
            player_moves: MoveStats {
                moves: 1000,
                passes: 820,
                captures: 66,
            },
            opponent_moves: MoveStats {
                moves: 1000,
                passes: 7,
                captures: 52,
            },
            mean_plies: 282.04,
        }
    }

    fn evaluation() -> Evaluation {
        Evaluation {
            run_dir: PathBuf::from("runs/R"),
            checkpoint: "step-000001161".into(),
            step: 1161,
            baseline: Some("step-000000000".into()),
            conditions: EvalConditions {
                policy_games: 100,
                mcts_games: 40,
                simulations: 16,
                max_plies: 300,
                cap_material: Some(2),
                opening_plies: 4,
                seed: 1,
                opponents: vec!["greedy".into(), "ab:2".into()],
                avoid_repetition: true,
            },
            rows: vec![
                row(
                    "policy:step-000001161",
                    "policy:step-000000000",
                    WinDrawLoss::new(54, 42, 4),
                ),
                row(
                    "mcts:step-000001161:16",
                    "greedy",
                    WinDrawLoss::new(0, 0, 40),
                ),
            ],
        }
    }

    #[test]
    fn a_row_has_every_column_rounded_as_documented() {
        let e = evaluation();
        // The README's run: +54 =42 −4 is 75.0 % ± 5.6 %, Elo +190.8 ± 52.2.
        assert_eq!(
            row_cells(&e.rows[0]),
            [
                "policy:step-000001161",
                "policy:step-000000000",
                "100",
                "54",
                "42",
                "4",
                "75.0 % ± 5.6 %",
                "+190.8 ± 52.2",
                "82.0",
                "6.6",
                "0.7",
                "5.2",
                "282.0",
            ]
        );
        // A sweep: no spread, unbounded Elo.
        let cells = row_cells(&e.rows[1]);
        assert_eq!(cells[6], "0.0 % ± 0.0 %");
        assert_eq!(cells[7], "-inf ± inf");
        // No moves, no rates.
        let mut quiet = e.rows[1].clone();
        quiet.player_moves = MoveStats::default();
        assert_eq!(row_cells(&quiet)[8], "–");
    }

    #[test]
    fn the_table_is_aligned_markdown_with_one_line_per_row() {
        let table = markdown_table(&evaluation().rows);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0].split('|').map(str::trim).collect::<Vec<_>>()[1..14],
            COLUMNS
        );
        assert!(
            lines[1].starts_with("| :---") && lines[1].ends_with(": |"),
            "{}",
            lines[1]
        );
        let widths: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
        assert!(widths.iter().all(|&w| w == widths[0]), "{table}");
        assert!(lines[3].starts_with("| mcts:step-000001161:16 "), "{table}");
    }

    #[test]
    fn the_document_says_how_to_rerun_and_the_json_has_the_counts() {
        let e = evaluation();
        let text = e.markdown();
        assert!(text.starts_with("# koshogi eval: step-000001161 of runs/R\n"));
        assert!(text.contains(
            "Rerun: `koshogi eval --run runs/R --checkpoint 1161 --games 100 --mcts-games 40 \
             --sims 16 --max-plies 300 --cap-material 2 --opening-plies 4 --seed 1 \
             --opponents 'greedy,ab:2'`"
        ));
        assert!(text.contains(&markdown_table(&e.rows)));
        assert!(text.contains("side with 2+ more pieces wins"));
        let json: serde_json::Value = serde_json::from_str(&e.json()).unwrap();
        assert_eq!(json["step"], 1161);
        assert_eq!(json["rows"][0]["wdl"]["wins"], 54);
        assert_eq!(json["rows"][0]["player_moves"]["passes"], 820);
        assert_eq!(json["rows"][1]["elo"]["elo"], serde_json::Value::Null);
        assert_eq!(json["conditions"]["opponents"][1], "ab:2");
    }

    #[test]
    fn both_files_are_written_under_the_runs_eval_directory() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = evaluation();
        e.run_dir = dir.path().to_path_buf();
        let (markdown, json) = e.write().unwrap();
        assert_eq!(markdown, dir.path().join("eval/eval-step-000001161.md"));
        assert_eq!(json, dir.path().join("eval/eval-step-000001161.json"));
        assert_eq!(std::fs::read_to_string(markdown).unwrap(), e.markdown());
        assert_eq!(std::fs::read_to_string(json).unwrap(), e.json());
    }
}
