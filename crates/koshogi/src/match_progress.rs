//! The progress display of games being played: a bar and its one-line standing (W/D/L, Elo,
//! SPRT), as `koshogi arena`'s match observer ([`MatchProgress`]) and `koshogi eval`'s, a bar a
//! row ([`RowProgress`]); here so that the commands keep to their arguments and neither imports
//! the other.

use indicatif::{ProgressBar, ProgressStyle};

use koshogi_arena::evaluation::{EvalObserver, EvalRow, RowPlan};
use koshogi_arena::{GameSummary, MatchObserver, MatchReport};

/// A running match in one line: A's results, Elo so far, the SPRT's state.
pub fn progress_message(report: &MatchReport) -> String {
    let mut message = format!("{} {}", report.player_a, report.wdl);
    if let Some(elo) = report.elo() {
        message.push_str(&format!(
            " Elo {} ± {}",
            koshogi_arena::statistics::format_elo(elo.elo),
            koshogi_arena::statistics::format_elo(elo.elo_error_95).trim_start_matches('+')
        ));
    }
    if let Some(sprt) = &report.sprt {
        message.push_str(&format!(
            " LLR {:.2} [{:.2}, {:.2}]",
            sprt.llr, sprt.lower, sprt.upper
        ));
    }
    message
}

/// A bar of `len` games in the process's display ([`crate::progress`]).
pub fn progress_bar(len: u64) -> ProgressBar {
    let bar = crate::progress::add(ProgressBar::new(len));
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// A bar that advances with each finished game, its message the standing (`koshogi arena`).
pub struct MatchProgress {
    pub bar: ProgressBar,
}

impl MatchObserver for MatchProgress {
    fn game_finished(&mut self, _game: &GameSummary, report: &MatchReport) {
        self.bar.inc(1);
        self.bar.set_message(progress_message(report));
    }
}

/// One progress bar per row, and a line on stderr when a row is done.
pub struct RowProgress {
    rows: usize,
    bar: Option<indicatif::ProgressBar>,
}

impl RowProgress {
    /// The display of an evaluation of `rows` rows.
    pub fn new(rows: usize) -> Self {
        Self { rows, bar: None }
    }
}

impl EvalObserver for RowProgress {
    fn row_started(&mut self, index: usize, row: &RowPlan) {
        let bar = progress_bar(row.games.div_ceil(2) as u64 * 2);
        bar.set_message(format!("row {}/{}: {}", index + 1, self.rows, row.title()));
        self.bar = Some(bar);
    }

    fn game_finished(&mut self, _game: &GameSummary, report: &MatchReport) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(format!(
                "vs {}: {}",
                report.player_b,
                progress_message(report)
            ));
        }
    }

    fn row_finished(&mut self, index: usize, row: &EvalRow) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        eprintln!(
            "row {}/{}: {} vs {}: {} ({})",
            index + 1,
            self.rows,
            row.player,
            row.opponent,
            row.wdl,
            row.endings.summary()
        );
    }
}
