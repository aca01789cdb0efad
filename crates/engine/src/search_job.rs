//! One `go`: a deterministic PUCT search (no root noise, most-visited move) run batch by batch
//! against the evaluation thread, so that it can stop between batches on a visit limit, a time
//! limit or `stop`. PUCT rather than Gumbel because it is an anytime search: stopping it early
//! still gives a sensible move, whereas Gumbel's sequential halving plans for a fixed budget.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use koshogi_mcts::eval_thread::EvalJob;
use koshogi_mcts::tree::{NodeId, NO_NODE, ROOT};
use koshogi_mcts::{Algorithm, EvalCache, EvalThread, Search, SearchConfig, SearchResult};
use koshogi_rules::{Game, Move};

use crate::output::Output;

/// How often a running search reports progress.
pub const INFO_INTERVAL: Duration = Duration::from_secs(1);
/// Leaves of the tree evaluated per batch (virtual loss spreads them).
pub const LEAVES_PER_BATCH: u32 = 4;
/// Longest principal variation printed.
pub const MAX_PV: usize = 24;

/// What one search is asked to do.
pub struct SearchRequest {
    pub game: Game,
    /// New simulations to run (the root's own evaluation is extra).
    pub visits: u32,
    pub deadline: Option<Instant>,
    pub stop: Arc<AtomicBool>,
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

/// Runs the search, prints `info` lines and then `bestmove`. Returns the evaluation thread if
/// it is still usable (it is dropped after an evaluation error).
pub fn run(request: SearchRequest, eval: EvalThread<Game>) -> Option<EvalThread<Game>> {
    let SearchRequest {
        game,
        visits,
        deadline,
        stop,
        output,
    } = request;
    let started = Instant::now();
    let mut search = Search::new(game, engine_search_config(visits), 0);
    if let Err(err) = search.start() {
        output.error(&format!("cannot search: {err}"));
        output.line("bestmove none");
        return Some(eval);
    }
    let mut cache = EvalCache::new(1 << 14);
    let mut job = EvalJob::new(0);
    let mut next_info = started + INFO_INTERVAL;
    let mut eval = Some(eval);
    loop {
        search.collect(0, &mut cache, &mut job.batch);
        if !job.batch.is_empty() {
            let thread = eval.as_ref().expect("present until an error");
            let answered = thread
                .submit(job)
                .and_then(|()| thread.receive())
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
                        cache.insert(ticket.hash, &evaluation.priors, evaluation.wdl);
                        search.apply(ticket.slot, &request.moves, evaluation);
                    }
                    job.batch.recycle();
                    job.evaluations.clear();
                }
                Err(err) => {
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
        if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d) {
            break;
        }
        if now >= next_info {
            if let Ok(result) = search.result() {
                output.line(&info_line(&search, &result, started.elapsed()));
            }
            next_info = now + INFO_INTERVAL;
        }
    }
    match search.result() {
        Ok(result) => {
            output.line(&info_line(&search, &result, started.elapsed()));
            output.line(&format!("bestmove {}", result.chosen_move));
        }
        Err(err) => {
            output.error(&format!("search produced no move: {err}"));
            output.line("bestmove none");
        }
    }
    eval.take()
}

/// `info visits … time … nps … value … wdl … pv …`.
fn info_line(search: &Search<Game>, result: &SearchResult<Move>, elapsed: Duration) -> String {
    let visits = search.tree().node(ROOT).visits;
    let ms = elapsed.as_millis();
    let nps = (visits as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
    let wdl = result.root_wdl;
    let pv: Vec<String> = principal_variation(search, result.chosen_move)
        .iter()
        .map(Move::to_string)
        .collect();
    format!(
        "info visits {visits} time {ms} nps {nps} value {:.4} wdl {:.4} {:.4} {:.4} pv {}",
        wdl.scalar(),
        wdl.win,
        wdl.draw,
        wdl.loss,
        pv.join(" ")
    )
}

/// The line the search expects: the chosen move, then at each node the most visited child
/// (higher prior, then generation order, on ties — as the move choice itself).
pub fn principal_variation(search: &Search<Game>, chosen: Move) -> Vec<Move> {
    let tree = search.tree();
    let mut line = Vec::new();
    let mut node: NodeId = ROOT;
    while line.len() < MAX_PV {
        let edges = tree.edges_of(node);
        let visited = |e: &&koshogi_mcts::tree::Edge<Move>| {
            e.child != NO_NODE && tree.node(e.child).visits > 0
        };
        let best = if node == ROOT {
            edges.iter().find(|e| e.mv == chosen)
        } else {
            edges.iter().filter(visited).reduce(|best, e| {
                let key = |e: &koshogi_mcts::tree::Edge<Move>| (tree.node(e.child).visits, e.prior);
                let (bv, bp) = key(best);
                let (ev, ep) = key(e);
                if ev > bv || (ev == bv && ep > bp) {
                    e
                } else {
                    best
                }
            })
        };
        let Some(edge) = best else { break };
        line.push(edge.mv);
        if edge.child == NO_NODE || tree.node(edge.child).visits == 0 {
            break;
        }
        node = edge.child;
    }
    line
}
