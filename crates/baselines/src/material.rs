//! The greedy and alpha-beta baselines' material balance, on the rules crate's baseline scale
//! ([`baseline_piece_value`]: general 50, pawn 1; the scale and why it is not the search's
//! are documented there).

use koshogi_rules::piece_values::baseline_piece_value;
use koshogi_rules::{Color, PieceKind, Position};

/// Material of `color` minus material of its opponent.
///
/// Read from the per-type piece counts the position keeps, not from a scan of the 361 points, so
/// that a search can afford it at every node.
pub fn material_balance(position: &Position, color: Color) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_is_balanced() {
        assert_eq!(material_balance(&Position::startpos(), Color::Black), 0.0);
    }

    #[test]
    fn the_balance_from_counts_equals_a_scan_of_the_board() {
        // A lopsided position after the start position loses some pieces of each side.
        let mut position = Position::startpos();
        let squares: Vec<_> = position.pieces().map(|(sq, _)| sq).collect();
        for sq in squares.iter().step_by(7) {
            position.set_piece(*sq, None);
        }
        for color in Color::ALL {
            let scanned: f64 = position
                .pieces()
                .map(|(_, piece)| {
                    let value = baseline_piece_value(piece.kind);
                    if piece.color == color {
                        value
                    } else {
                        -value
                    }
                })
                .sum();
            assert_eq!(material_balance(&position, color), scanned);
            assert_ne!(scanned, 0.0);
        }
    }
}
