//! One side's material minus the other's, read from the per-type piece counts the position
//! keeps (not from a scan of the 361 points), so a search can afford it at every node.
//!
//! Three readings of one idea: on the search's scale (the material evaluator, threat values,
//! the training targets), on the baselines' scale (greedy, `ab:N`), and as a bare count of
//! pieces (the shards' auxiliary `final_material` target, docs/replay-format.md).

use super::piece_values::{baseline_piece_value, search_piece_value};
use crate::{Color, PieceKind, Position};

/// [`search_piece_value`] by [`PieceKind::index`] (read at every node of the search).
const SEARCH_VALUES: [f32; PieceKind::COUNT] = {
    let mut table = [0.0; PieceKind::COUNT];
    let mut i = 0;
    while i < PieceKind::COUNT {
        table[i] = search_piece_value(PieceKind::ALL[i]);
        i += 1;
    }
    table
};

/// Material of the side to move minus the opponent's, in pawns on the search's scale.
pub fn search_balance(position: &Position) -> f32 {
    let us = position.side_to_move();
    let side = |color: Color| -> f32 {
        PieceKind::ALL
            .iter()
            .map(|&k| position.count(color, k) as f32 * SEARCH_VALUES[k.index()])
            .sum()
    };
    side(us) - side(us.opposite())
}

/// Material of `color` minus material of its opponent, in pawns on the baselines' scale.
pub fn baseline_balance(position: &Position, color: Color) -> f64 {
    let them = color.opposite();
    PieceKind::ALL
        .iter()
        .map(|&kind| {
            let difference =
                f64::from(position.count(color, kind)) - f64::from(position.count(them, kind));
            difference * baseline_piece_value(kind)
        })
        .sum()
}

/// `color`'s pieces minus the opponent's pieces, each piece counting one (the shards'
/// `final_material`).
pub fn piece_count_balance(position: &Position, color: Color) -> i16 {
    let own = position.piece_count(color) as i32;
    let theirs = position.piece_count(color.opposite()) as i32;
    (own - theirs) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start position with every seventh piece removed (some of each side).
    fn lopsided() -> Position {
        let mut position = Position::startpos();
        let squares: Vec<_> = position.pieces().map(|(sq, _)| sq).collect();
        for sq in squares.iter().step_by(7) {
            position.set_piece(*sq, None);
        }
        position
    }

    #[test]
    fn the_start_position_is_balanced_on_every_scale() {
        let start = Position::startpos();
        assert_eq!(search_balance(&start), 0.0);
        assert_eq!(baseline_balance(&start, Color::Black), 0.0);
        assert_eq!(piece_count_balance(&start, Color::Black), 0);
    }

    #[test]
    fn the_table_is_the_search_scale_in_index_order() {
        for kind in PieceKind::ALL {
            assert_eq!(
                SEARCH_VALUES[kind.index()],
                search_piece_value(kind),
                "{kind:?}"
            );
        }
    }

    /// `color`'s pieces minus the opponent's, each valued by `value`, by a scan of the board.
    fn scan(position: &Position, color: Color, value: impl Fn(PieceKind) -> f64) -> f64 {
        position
            .pieces()
            .map(|(_, piece)| {
                let v = value(piece.kind);
                if piece.color == color {
                    v
                } else {
                    -v
                }
            })
            .sum()
    }

    #[test]
    fn the_balances_from_counts_equal_a_scan_of_the_board() {
        let mut position = lopsided();
        for color in Color::ALL {
            let baseline = scan(&position, color, baseline_piece_value);
            assert_eq!(baseline_balance(&position, color), baseline);
            assert_ne!(baseline, 0.0);
            let count = scan(&position, color, |_| 1.0);
            assert_eq!(f64::from(piece_count_balance(&position, color)), count);
            position.set_side_to_move(color);
            let search = scan(&position, color, |kind| f64::from(search_piece_value(kind)));
            assert_eq!(f64::from(search_balance(&position)), search);
            assert_ne!(search, 0.0);
        }
    }

    #[test]
    fn a_missing_piece_counts_for_the_side_to_move() {
        let (position, kind) = crate::fixtures::start_without_a_white_piece();
        assert_eq!(search_balance(&position), search_piece_value(kind));
        assert_eq!(piece_count_balance(&position, Color::Black), 1);
        assert_eq!(piece_count_balance(&position, Color::White), -1);
    }
}
