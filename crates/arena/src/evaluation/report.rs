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

use koshogi_run_store::layout::RunLayout;

use super::{progress_path, EvalConditions, EvalRow, Evaluation, Section};
use crate::statistics::{format_elo, MeanEstimate, Z_95};

/// The table's columns, in order.
pub const COLUMNS: [&str; 16] = [
    "player",
    "opponent",
    "row",
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
    "player's material at ply 100 / 200",
    "how the player's games ended",
];

/// Columns of text (left-aligned); the others are numbers.
const TEXT_COLUMNS: [usize; 4] = [0, 1, 2, 15];

/// What the columns mean, printed under the tables.
pub const DEFINITIONS: &str = "\
Score and Elo are the player's, with 95 % intervals (trinomial variance; Elo by the delta \
method, `inf` after a sweep; docs/arena.md). Rows: `checkpoint` is the evaluated checkpoint; \
the controls play the same opponents — `no network` is the same search with uniform priors and \
counted material instead of a network (`material:<sims>`), `first checkpoint` is the run's \
first (normally untrained) network playing the same way, `value only` is the checkpoint's \
search on the network's value alone (`utility=0`: no counted material in the value; \
`forced=off`: no forced capture or threat-answer candidates at the root, no capture-first \
replies). How games ended: the player's wins (W), draws (D) and losses (L) by kind — \
`command`: the loser's command destroyed (won outright); `material`: the piece count at the \
cap; `cap`: drawn at the cap; `repetition`, `no moves`, `forfeit`, `other`. A pass is a move \
after which every point holds the same piece as before (a lion-like piece stepping out and \
back); a capture is a move after which the opponent has fewer pieces (displacement, igui, \
shots and burning). Rates are over each side's own moves in all games of the row; the random \
opening plies are nobody's. Mean plies include the opening. Material: the player's mean \
material balance (its pieces minus the opponent's on the baselines' scale, general 50, pawn 1) \
after ply 100 and after ply 200, over the games that lasted so long, with its 95 % interval: \
how far ahead or behind the player was along the way, where the score alone may sit at 0 % or \
100 %.";

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "–".to_string(), |r| format!("{:.1}", 100.0 * r))
}

/// `+1.5 ± 0.8` (no game count: the row's games and lengths say it), or `–`.
fn material_cell(estimates: &[Option<MeanEstimate>; 2]) -> String {
    let one = |m: &Option<MeanEstimate>| m.map_or_else(|| "–".to_string(), |m| m.interval_text());
    format!("{} / {}", one(&estimates[0]), one(&estimates[1]))
}

/// The cells of one row, as [`COLUMNS`] names them.
pub fn row_cells(row: &EvalRow) -> [String; 16] {
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
        row.role.label().to_string(),
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
        material_cell(&row.player_material),
        row.endings.summary(),
    ]
}

/// A Markdown table with padded columns (readable as plain text too): names left-aligned,
/// numbers right-aligned.
pub fn markdown_table(rows: &[EvalRow]) -> String {
    let cells: Vec<[String; 16]> = rows.iter().map(row_cells).collect();
    let width = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .chain([COLUMNS[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..COLUMNS.len()).map(width).collect();
    let left = |i: usize| TEXT_COLUMNS.contains(&i);
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
    if !conditions.controls {
        command.push_str(" --no-controls");
    }
    if let Some(plies) = conditions.outright_max_plies {
        command.push_str(&format!(" --outright --outright-max-plies {plies}"));
    }
    if let Some(equal) = &conditions.equal_time {
        command.push_str(&format!(
            " --movetime {} --movetime-games {} --movetime-opponent '{}'",
            equal.movetime_ms, equal.games, equal.opponent
        ));
    }
    if !conditions.avoid_repetition {
        command.push_str(" --allow-repetition");
    }
    command
}

fn section_title(section: Section, c: &EvalConditions) -> String {
    match section {
        Section::Adjudicated => format!("Adjudicated at {} plies", c.max_plies),
        Section::Outright => format!(
            "Outright: to {} plies, capped games drawn",
            c.outright_max_plies.unwrap_or(c.max_plies)
        ),
        Section::EqualTime => match &c.equal_time {
            Some(e) => format!("Equal time: {} ms per move", e.movetime_ms),
            None => "Equal time".to_string(),
        },
    }
}

fn section_text(section: Section, c: &EvalConditions) -> String {
    let cap = match c.cap_material {
        Some(n) => format!("then the side with {n}+ more pieces wins, else a draw"),
        None => "then a draw".to_string(),
    };
    match section {
        Section::Adjudicated => format!("Games stop at {} plies, {cap}.", c.max_plies),
        Section::Outright => format!(
            "The same rows, played on to {} plies; a game still going then is a draw, so a \
             win is a game won on the board.",
            c.outright_max_plies.unwrap_or(c.max_plies)
        ),
        Section::EqualTime => match &c.equal_time {
            Some(e) => format!(
                "Both sides think {} ms per move ({} games at once: one per core, so a \
                 classical opponent searches each game on a core of its own while the search \
                 player batches its games); games stop at {} plies, {cap}.",
                e.movetime_ms, e.parallel_games, c.max_plies
            ),
            None => String::new(),
        },
    }
}

impl Evaluation {
    /// The whole Markdown document: title, conditions, one table per section, definitions.
    pub fn markdown(&self) -> String {
        let c = &self.conditions;
        let baseline = match &self.baseline {
            Some(b) => format!("; the run's first checkpoint is {b}"),
            None => String::new(),
        };
        let mut tables = String::new();
        for section in [Section::Adjudicated, Section::Outright, Section::EqualTime] {
            let rows: Vec<EvalRow> = self
                .rows
                .iter()
                .filter(|r| r.section == section)
                .cloned()
                .collect();
            if rows.is_empty() {
                continue;
            }
            tables.push_str(&format!(
                "## {}\n\n{}\n\n{}\n",
                section_title(section, c),
                section_text(section, c),
                markdown_table(&rows)
            ));
        }
        format!(
            "# koshogi eval: {checkpoint} of {run}\n\n\
             Checkpoint {checkpoint} (step {step}){baseline}. Each opening ({opening} random \
             plies) is played with both colours. Search rows use {sims} simulations per move \
             unless they have a time per move.\n\n\
             Rerun: `{command}`\n\n\
             {tables}\n\
             {DEFINITIONS}\n",
            checkpoint = self.checkpoint,
            run = self.run_dir.display(),
            step = self.step,
            opening = c.opening_plies,
            sims = c.simulations,
            command = rerun_command(&self.run_dir, self.step, c),
        )
    }

    pub fn json(&self) -> String {
        // Infinite Elo bounds (a sweep) become `null`.
        serde_json::to_string_pretty(self).expect("an evaluation serialises") + "\n"
    }

    /// `<run>/eval/eval-<checkpoint>.md` and `.json`.
    pub fn file_paths(&self) -> (PathBuf, PathBuf) {
        let dir = RunLayout::new(&self.run_dir).eval_dir();
        let stem = format!("eval-{}", self.checkpoint);
        (
            dir.join(format!("{stem}.md")),
            dir.join(format!("{stem}.json")),
        )
    }

    /// Writes both files atomically (an earlier evaluation of the same checkpoint is replaced),
    /// then removes the rows kept for a resume, and returns their paths.
    pub fn write(&self) -> std::io::Result<(PathBuf, PathBuf)> {
        let (markdown, json) = self.file_paths();
        write_atomic(&markdown, self.markdown().as_bytes())?;
        write_atomic(&json, self.json().as_bytes())?;
        match std::fs::remove_file(progress_path(&self.run_dir, &self.checkpoint)) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
            _ => {}
        }
        Ok((markdown, json))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::{EqualTime, MoveStats, Role};
    use crate::matches::{Ending, EndingCounts};
    use crate::statistics::{EloEstimate, GameScore, WinDrawLoss};

    fn row(player: &str, opponent: &str, wdl: WinDrawLoss) -> EvalRow {
        let mut endings = EndingCounts::default();
        for (ending, score, count) in [
            (Ending::Command, GameScore::Win, wdl.wins / 2),
            (Ending::Material, GameScore::Win, wdl.wins - wdl.wins / 2),
            (Ending::Cap, GameScore::Draw, wdl.draws),
            (Ending::Material, GameScore::Loss, wdl.losses),
        ] {
            for _ in 0..count {
                endings.record(ending, score);
            }
        }
        EvalRow {
            player: player.into(),
            opponent: opponent.into(),
            role: Role::Checkpoint,
            section: Section::Adjudicated,
            endings,
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
            player_material: [
                Some(MeanEstimate {
                    mean: 3.26,
                    half_width_95: 1.04,
                    count: 100,
                }),
                None,
            ],
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
                controls: true,
                outright_max_plies: None,
                equal_time: None,
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
        // Run R3 of docs/results.md: +54 =42 −4 is 75.0 % ± 5.6 %, Elo +190.8 ± 52.2.
        assert_eq!(
            row_cells(&e.rows[0]),
            [
                "policy:step-000001161",
                "policy:step-000000000",
                "checkpoint",
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
                "+3.3 ± 1.0 / –",
                "W 27 command, 27 material; D 42 cap; L 4 material",
            ]
        );
        // A sweep: no spread, unbounded Elo.
        let cells = row_cells(&e.rows[1]);
        assert_eq!(cells[7], "0.0 % ± 0.0 %");
        assert_eq!(cells[8], "-inf ± inf");
        assert_eq!(cells[15], "L 40 material");
        // No moves, no rates.
        let mut quiet = e.rows[1].clone();
        quiet.player_moves = MoveStats::default();
        assert_eq!(row_cells(&quiet)[9], "–");
        quiet.role = Role::ValueOnly;
        assert_eq!(row_cells(&quiet)[2], "control: value only");
    }

    #[test]
    fn the_table_is_aligned_markdown_with_one_line_per_row() {
        let table = markdown_table(&evaluation().rows);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0].split('|').map(str::trim).collect::<Vec<_>>()[1..17],
            COLUMNS
        );
        assert!(
            lines[1].starts_with("| :---")
                && lines[1].contains("-: | :")
                && lines[1].ends_with("- |"),
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
        assert!(text.contains("## Adjudicated at 300 plies"));
        assert!(!text.contains("## Outright"), "{text}");
        assert!(text.contains("side with 2+ more pieces wins"));
        let json: serde_json::Value = serde_json::from_str(&e.json()).unwrap();
        assert_eq!(json["step"], 1161);
        assert_eq!(json["rows"][0]["wdl"]["wins"], 54);
        assert_eq!(json["rows"][0]["player_moves"]["passes"], 820);
        assert_eq!(json["rows"][1]["elo"]["elo"], serde_json::Value::Null);
        assert_eq!(json["conditions"]["opponents"][1], "ab:2");
        assert_eq!(json["rows"][0]["role"], "checkpoint");
        assert_eq!(json["rows"][0]["section"], "adjudicated");
        assert_eq!(json["rows"][0]["endings"]["command"]["wins"], 27);
        assert_eq!(json["rows"][0]["player_material"][0]["mean"], 3.26);
        assert_eq!(json["rows"][0]["player_material"][0]["count"], 100);
        assert_eq!(
            json["rows"][0]["player_material"][1],
            serde_json::Value::Null
        );
    }

    #[test]
    fn each_section_has_its_own_table_and_the_rerun_names_it() {
        let mut e = evaluation();
        e.conditions.outright_max_plies = Some(1000);
        e.conditions.controls = false;
        e.conditions.equal_time = Some(EqualTime {
            movetime_ms: 500,
            games: 10,
            opponent: "classic@movetime=500".parse().unwrap(),
            parallel_games: 2,
        });
        let mut outright = e.rows[1].clone();
        outright.section = Section::Outright;
        let mut timed = e.rows[1].clone();
        timed.section = Section::EqualTime;
        timed.player = "mcts:step-000001161@movetime=500".into();
        e.rows.extend([outright.clone(), timed.clone()]);
        let text = e.markdown();
        let adjudicated = text.find("## Adjudicated at 300 plies").unwrap();
        let outright_at = text
            .find("## Outright: to 1000 plies, capped games drawn")
            .unwrap();
        let equal_at = text.find("## Equal time: 500 ms per move").unwrap();
        assert!(
            adjudicated < outright_at && outright_at < equal_at,
            "{text}"
        );
        assert!(text[equal_at..].contains(&markdown_table(&[timed])));
        assert!(text[outright_at..equal_at].contains(&markdown_table(&[outright])));
        assert!(text.contains(
            "--no-controls --outright --outright-max-plies 1000 --movetime 500 \
             --movetime-games 10 --movetime-opponent 'classic@movetime=500'`"
        ));
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
