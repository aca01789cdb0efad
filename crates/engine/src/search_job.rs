//! One `go`: a deterministic PUCT search (no root noise, most-visited move) run batch by batch
//! against the evaluation thread, so that it can stop between batches on a visit limit, its
//! deadline (`movetime` or the clock's budget) or `stop`. PUCT rather than Gumbel because it is
//! an anytime search: stopping it early still gives a sensible move, whereas Gumbel's
//! sequential halving plans for a fixed budget.

use std::sync::Arc;
use std::time::{Duration, Instant};

use koshogi_mcts::eval_thread::EvalJob;
use koshogi_mcts::{Algorithm, CachedEvaluator, EvalThread, Search, SearchConfig};
use koshogi_rules::Game;

use crate::info::info_lines;
use crate::output::Output;
use crate::search_control::SearchControl;

/// How often a running search reports progress.
pub const INFO_INTERVAL: Duration = Duration::from_secs(1);
/// Leaves of the tree evaluated per batch (virtual loss spreads them). Small, so the deadline
/// and `stop` are checked often: a batch takes well under a millisecond with the material
/// evaluator and a few milliseconds with a CPU network.
pub const LEAVES_PER_BATCH: u32 = 4;

/// What one search is asked to do.
pub struct SearchRequest {
    pub game: Game,
    /// New simulations to run (the root's own evaluation is extra).
    pub visits: u32,
    /// `stop`, `ponderhit`, the deadline, and whether `bestmove` is held back.
    pub control: Arc<SearchControl>,
    /// MultiPV lines per report.
    pub multipv: u32,
    /// When the `go` arrived (the `time` of info lines counts from here).
    pub started: Instant,
    pub output: Output,
}

/// The search settings of the engine: PUCT, deterministic, large enough trees for long thinks.
pub fn engine_search_config(visits: u32) -> SearchConfig {
    let mut config = SearchConfig {
        algorithm: Algorithm::Puct,
        simulations: visits,
        leaves_per_tree: LEAVES_PER_BATCH,
        max_nodes: 1 << 18,
        max_edges: 1 << 22,
        reuse_tree: false,
        ..SearchConfig::default()
    };
    config.puct.dirichlet_fraction = 0.0;
    config.puct.temperature = 0.0;
    config
}

/// Runs the search, prints `info` lines and then `bestmove` (after `stop`/`ponderhit` if it is
/// held back). Returns the evaluation thread if it is still usable (it is dropped after an
/// evaluation error).
pub fn run(request: SearchRequest, eval: EvalThread<Game>) -> Option<EvalThread<Game>> {
    let SearchRequest {
        game,
        visits,
        control,
        multipv,
        started,
        output,
    } = request;
    let report = |lines: Vec<String>| lines.iter().for_each(|l| output.line(l));
    let mut search = Search::new(game, engine_search_config(visits), 0);
    if let Err(err) = search.start() {
        control.wait_until_released();
        output.error(&format!("cannot search: {err}"));
        output.line("bestmove none");
        return Some(eval);
    }
    let mut eval = CachedEvaluator::new(eval, 1 << 14);
    let mut job = EvalJob::new(0);
    let mut next_info = Instant::now() + INFO_INTERVAL;
    loop {
        search.collect(0, eval.cache_mut(), &mut job.batch);
        if !job.batch.is_empty() {
            let answered = eval
                .submit(job)
                .and_then(|()| eval.receive())
                .and_then(|mut done| std::mem::replace(&mut done.outcome, Ok(())).map(|()| done));
            match answered {
                Ok(done) => {
                    job = done;
                    for ((ticket, request), evaluation) in job
                        .batch
                        .tickets
                        .iter()
                        .zip(&job.batch.requests)
                        .zip(&job.evaluations)
                    {
                        search.apply(ticket.slot, &request.moves, evaluation);
                    }
                    job.batch.recycle();
                    job.evaluations.clear();
                }
                Err(err) => {
                    control.wait_until_released();
                    output.error(&format!("evaluation failed: {err}"));
                    output.line("bestmove none");
                    return None;
                }
            }
        } else if search.phase() != koshogi_mcts::Phase::Finished {
            // Nothing to evaluate and not finished: the tree cannot grow further.
            break;
        }
        if search.phase() == koshogi_mcts::Phase::Finished {
            break;
        }
        let now = Instant::now();
        if control.should_stop(now) {
            break;
        }
        if now >= next_info {
            if let Ok(result) = search.result() {
                report(info_lines(&search, &result, started.elapsed(), multipv));
            }
            next_info = now + INFO_INTERVAL;
        }
    }
    // `go infinite` / `go ponder`: the answer waits for `stop` or `ponderhit`.
    control.wait_until_released();
    match search.result() {
        Ok(result) => {
            report(info_lines(&search, &result, started.elapsed(), multipv));
            output.line(&format!("bestmove {}", result.chosen_move));
        }
        Err(err) => {
            output.error(&format!("search produced no move: {err}"));
            output.line("bestmove none");
        }
    }
    Some(eval.into_inner())
}
