//! `koshogi eval`: one fixed evaluation of a checkpoint of a training run — against the run's
//! first checkpoint and fixed opponents, as the raw policy and with tree search, each beside
//! controls that show what training added (no network, the first network, the network's value
//! alone), optionally without adjudication and at equal time per move — as tables anyone can
//! rerun and compare with another run's.
//!
//! * `run.rs`: which rows, and playing them ([`plan_evaluation`], [`run_evaluation`]);
//! * [`report`]: the table as Markdown and JSON in `<run>/eval/`;
//! * `move_stats.rs`: how each side moves, the share of passes and captures ([`MoveStats`]);
//! * `progress.rs`: the finished rows of an interrupted evaluation, which a rerun resumes from.

mod move_stats;
mod progress;
pub mod report;
mod run;

pub use move_stats::{classify_move, CountingPlayer, MoveClass, MoveStats};
pub use progress::{load_progress, progress_path, save_progress, Resumed};
pub use run::{
    plan_evaluation, run_evaluation, EqualTime, EvalConditions, EvalError, EvalObserver, EvalPlan,
    EvalRow, EvalSettings, Evaluation, Role, RowPlan, Section,
};
