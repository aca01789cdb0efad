//! Perft: the number of legal move sequences of a given length from a position, moves counted by
//! effect (§4.10). Used to compare this generator against independent implementations (§14.2)
//! and as a regression and speed check of move generation.
//!
//! Game-end states follow the move generator: a position in which a side no longer survives has
//! no legal moves (§14.2), so such lines stop there; repetition is ignored by move generation
//! (§10.5) and therefore by perft.

use crate::{Move, Position, RulesOptions};

/// Number of leaf nodes `depth` plies below `position` (1 for depth 0).
pub fn perft(position: &Position, depth: u32, options: &RulesOptions) -> u64 {
    let mut pos = position.clone();
    let mut buffers = vec![Vec::new(); depth as usize + 1];
    count(&mut pos, options, depth, &mut buffers)
}

/// Per-move leaf counts at `depth` (each entry counts the leaves below one legal move, so the
/// entries sum to `perft(position, depth)`), sorted by canonical notation. Empty for depth 0.
pub fn perft_divide(position: &Position, depth: u32, options: &RulesOptions) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut pos = position.clone();
    let mut buffers = vec![Vec::new(); depth as usize + 1];
    let moves = pos.legal_moves(options);
    let mut out: Vec<(Move, u64)> = moves
        .into_iter()
        .map(|mv| {
            let undo = pos.play(&mv, options);
            let n = count(&mut pos, options, depth - 1, &mut buffers);
            pos.undo(undo);
            (mv, n)
        })
        .collect();
    out.sort_by_cached_key(|(mv, _)| mv.to_string());
    out
}

/// Recursive counter; `buffers[d]` holds the move list at remaining depth `d` (no allocation per
/// node after warm-up). Depth 1 is counted in bulk (the number of legal moves).
fn count(pos: &mut Position, options: &RulesOptions, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = std::mem::take(&mut buffers[depth as usize]);
    moves.clear();
    pos.generate_moves(options, &mut moves);
    let total = if depth == 1 {
        moves.len() as u64
    } else {
        let mut sum = 0;
        for mv in &moves {
            let undo = pos.play(mv, options);
            sum += count(pos, options, depth - 1, buffers);
            pos.undo(undo);
        }
        sum
    };
    buffers[depth as usize] = moves;
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_zero_is_one_leaf() {
        assert_eq!(perft(&Position::startpos(), 0, &RulesOptions::default()), 1);
        assert!(perft_divide(&Position::startpos(), 0, &RulesOptions::default()).is_empty());
    }
}
