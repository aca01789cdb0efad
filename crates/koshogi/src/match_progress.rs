//! The progress bar of games being played and its one-line standing (W/D/L, Elo, SPRT), shared
//! by `koshogi arena` and `koshogi eval` so that neither command imports the other.

use indicatif::{ProgressBar, ProgressStyle};

use koshogi_arena::MatchReport;

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
