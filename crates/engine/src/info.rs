//! The `info` lines a search prints: progress, principal variations, MultiPV analysis.
//!
//! With MultiPV 1 one line, `info visits … time … nps … value … wdl … pv …`. With MultiPV K > 1
//! (analysis) up to K lines, `info multipv i visits … time … nps … movevisits n value … wdl …
//! pv …`, one per root move the search has visited, most visited first (the move the engine
//! would play is line 1); `visits`, `time` and `nps` are the whole search's, `movevisits`,
//! `value`/`wdl` (side to move at the root) and `pv` that move's.

use std::time::Duration;

use koshogi_mcts::tree::{Edge, NodeId, NO_NODE, ROOT};
use koshogi_mcts::wdl::Wdl;
use koshogi_mcts::{Search, SearchResult};
use koshogi_rules::{Game, Move};

/// Longest principal variation printed.
pub const MAX_PV: usize = 24;
/// Largest MultiPV setting: more lines than this are no analysis a person reads.
pub const MAX_MULTIPV: u32 = 64;

/// The `info` lines of the search so far (see the module docs).
pub fn info_lines(
    search: &Search<Game>,
    result: &SearchResult<Move>,
    elapsed: Duration,
    multipv: u32,
) -> Vec<String> {
    let visits = search.tree().node(ROOT).visits;
    let ms = elapsed.as_millis();
    let nps = (visits as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
    let head = format!("visits {visits} time {ms} nps {nps}");
    if multipv <= 1 {
        let pv = principal_variation(search, result.chosen_move);
        return vec![format!(
            "info {head} {} pv {}",
            wdl_words(result.root_wdl),
            moves_text(&pv)
        )];
    }
    ranked_root_moves(search, result)
        .into_iter()
        .take(multipv as usize)
        .enumerate()
        .map(|(i, (mv, move_visits, wdl))| {
            let pv = principal_variation(search, mv);
            format!(
                "info multipv {} {head} movevisits {move_visits} {} pv {}",
                i + 1,
                wdl_words(wdl),
                moves_text(&pv)
            )
        })
        .collect()
}

fn wdl_words(wdl: Wdl) -> String {
    format!(
        "value {:.4} wdl {:.4} {:.4} {:.4}",
        wdl.scalar(),
        wdl.win,
        wdl.draw,
        wdl.loss
    )
}

fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The visited root moves with their visits and mean value for the side to move at the root:
/// the chosen move first (always, with the root's value if a search stopped at once never
/// visited it), the rest by visits, then prior (the order the move choice uses).
fn ranked_root_moves(search: &Search<Game>, result: &SearchResult<Move>) -> Vec<(Move, u32, Wdl)> {
    let chosen = result.chosen_move;
    let tree = search.tree();
    let mut ranked: Vec<(&Edge<Move>, u32, Wdl)> = tree
        .edges_of(ROOT)
        .iter()
        .filter(|e| e.child != NO_NODE)
        .filter_map(|e| {
            let child = tree.node(e.child);
            // Child values are from the child's side to move: flip to the root's.
            child.mean_wdl().map(|wdl| (e, child.visits, wdl.flip()))
        })
        .collect();
    ranked.sort_by(|a, b| {
        (b.0.mv == chosen)
            .cmp(&(a.0.mv == chosen))
            .then(b.1.cmp(&a.1))
            .then(b.0.prior.total_cmp(&a.0.prior))
    });
    let mut moves: Vec<(Move, u32, Wdl)> = ranked
        .into_iter()
        .map(|(e, visits, wdl)| (e.mv, visits, wdl))
        .collect();
    if moves.first().is_none_or(|m| m.0 != chosen) {
        moves.insert(0, (chosen, 0, result.root_wdl));
    }
    moves
}

/// The line the search expects after root move `first`: at each node the most visited child
/// (higher prior, then generation order, on ties — as the move choice itself).
pub fn principal_variation(search: &Search<Game>, first: Move) -> Vec<Move> {
    let tree = search.tree();
    let mut line = Vec::new();
    let mut node: NodeId = ROOT;
    while line.len() < MAX_PV {
        let edges = tree.edges_of(node);
        let visited = |e: &&Edge<Move>| e.child != NO_NODE && tree.node(e.child).visits > 0;
        let best = if node == ROOT {
            edges.iter().find(|e| e.mv == first)
        } else {
            edges.iter().filter(visited).reduce(|best, e| {
                let key = |e: &Edge<Move>| (tree.node(e.child).visits, e.prior);
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
