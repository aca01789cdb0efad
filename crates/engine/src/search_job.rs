//! One `go`: a deterministic PUCT search (no root noise, most-visited move) run batch by batch
//! against the evaluation thread by the search driver (`SearchDriver::run_until`, one batch in
//! flight), so that it can stop between batches on a visit limit, its deadline (`movetime` or
//! the clock's budget) or `stop`. PUCT rather than Gumbel because it is
//! an anytime search: stopping it early still gives a sensible move, whereas Gumbel's
//! sequential halving plans for a fixed budget.

use std::sync::Arc;
use std::time::{Duration, Instant};

use koshogi_baselines::greedy::greedy_move;
use koshogi_mcts::{
    Algorithm, DriverConfig, EvalThread, Phase, Search, SearchConfig, SearchDriver,
};
use koshogi_rules::{Game, Move};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::info::info_lines;
use crate::output::Output;
use crate::search_control::SearchControl;

/// How often a running search reports progress.
pub const INFO_INTERVAL: Duration = Duration::from_secs(1);
/// Leaves of the tree evaluated per batch (virtual loss spreads them). Small, so the deadline
/// and `stop` are checked often: a batch takes well under a millisecond with the material
/// evaluator and a few milliseconds with a CPU network.
pub const LEAVES_PER_BATCH: u32 = 4;
/// Slots of the evaluation cache of one search.
const CACHE_ENTRIES: usize = 1 << 14;

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

/// A move chosen without any evaluation: the greedy baseline's one ply (the largest immediate
/// material gain), its ties broken by a generator seeded with the position's hash, so the same
/// position gets the same move and quiet positions do not all get the first one. `None` when
/// the side to move has no legal move. About a millisecond: what the engine plays when its
/// clock leaves no time to search, or when the search cannot answer.
pub fn instant_move(game: &Game) -> Option<Move> {
    let mut rng = SmallRng::seed_from_u64(game.position().hash());
    greedy_move(game, &mut rng)
}

/// The `bestmove` word of a move chosen without a search ([`instant_move`]), or `resign` when
/// the side to move has none: a `go` always answers, so a match runner is never left waiting.
pub fn fallback_bestmove(game: &Game) -> String {
    instant_move(game).map_or_else(|| "resign".to_string(), |mv| mv.to_string())
}

/// Runs the search, prints `info` lines and then `bestmove` (after `stop`/`ponderhit` if it is
/// held back): the search's move, or [`fallback_bestmove`] after an error line when it fails.
/// Returns the evaluation thread if it is still usable (it is dropped after an evaluation
/// error).
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
    let fail = |what: String, fallback: &str| {
        control.wait_until_released();
        output.error(&format!("{what}; bestmove {fallback}"));
        output.line(&format!("bestmove {fallback}"));
        control.answered(Instant::now());
    };
    let fallback = fallback_bestmove(&game);
    let mut searches = [Search::new(game, engine_search_config(visits), 0)];
    if let Err(err) = searches[0].start() {
        fail(format!("cannot search: {err}"), &fallback);
        return Some(eval);
    }
    // One search: one batch at a time, so it stops between batches.
    let config = DriverConfig {
        cache_entries: CACHE_ENTRIES,
        pipelined: false,
    };
    let mut driver = SearchDriver::new(eval, config);
    let mut next_info = Instant::now() + INFO_INTERVAL;
    let keep_going = |searches: &mut [Search<Game>]| {
        let search = &mut searches[0];
        if search.phase() == Phase::Finished {
            return false;
        }
        let now = Instant::now();
        if control.should_stop(now) {
            return false;
        }
        if now >= next_info {
            if let Ok(result) = search.result() {
                report(info_lines(search, &result, started.elapsed(), multipv));
            }
            next_info = now + INFO_INTERVAL;
        }
        true
    };
    if let Err(err) = driver.run_until(&mut searches, |_, _| {}, keep_going) {
        fail(format!("evaluation failed: {err}"), &fallback);
        return None;
    }
    let [mut search] = searches;
    // `go infinite` / `go ponder`: the answer waits for `stop` or `ponderhit`.
    control.wait_until_released();
    match search.result() {
        Ok(result) => {
            report(info_lines(&search, &result, started.elapsed(), multipv));
            output.line(&format!("bestmove {}", result.chosen_move));
            control.answered(Instant::now());
        }
        Err(err) => fail(format!("search produced no move: {err}"), &fallback),
    }
    Some(driver.into_eval_thread())
}
