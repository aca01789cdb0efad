//! Board sums for hand-written evaluations: a value for every piece (owner, type, promoted flag)
//! on every rank, summed over the pieces on the board in one pass over the occupancy bits.
//!
//! Why here and not in the evaluation: a search evaluates at every quiescence node, and reading
//! each piece back as a ([`Square`], [`Piece`]) pair to look its terms up costs most of such an
//! evaluation (some 90 instructions a piece over 180 pieces). The board's own encoding reaches
//! the value with a load per piece. Terms that depend on the rank alone (advance, promotion zone,
//! a commander's exposure) fit; terms over neighbourhoods do not, and [`Position::squares_of`]
//! finds the pieces they are about.

use crate::mailbox::{self, CELLS};
use crate::{Color, Piece, PieceKind, Position, Square};

/// Board codes of pieces: 1 ..= 4 × [`PieceKind::COUNT`] (see `Piece::to_cell`); 0 is empty.
const CODES: usize = 4 * PieceKind::COUNT + 1;
/// Ranks 1 ..= 19, indexed directly (index 0 unused).
const RANKS: usize = 20;

/// A value for each piece state and rank; [`Position::sum_piece_ranks`] adds it up.
#[derive(Clone)]
pub struct PieceRankTable {
    values: Box<[[i32; RANKS]; CODES]>,
}

impl PieceRankTable {
    /// The table of `value(piece, rank)` (rank 1 = `a` … 19 = `s`), for every piece state.
    pub fn from_fn(value: impl Fn(Piece, u8) -> i32) -> PieceRankTable {
        let mut values = Box::new([[0; RANKS]; CODES]);
        for color in Color::ALL {
            for kind in PieceKind::ALL {
                for promoted in [false, true] {
                    let piece = Piece {
                        color,
                        kind,
                        promoted,
                    };
                    let row = &mut values[usize::from(piece.to_cell())];
                    for rank in 1..=19u8 {
                        row[usize::from(rank)] = value(piece, rank);
                    }
                }
            }
        }
        PieceRankTable { values }
    }
}

/// Rank (1..=19) of each on-board mailbox cell.
static CELL_RANK: [u8; CELLS] = {
    let mut ranks = [0u8; CELLS];
    let mut index = 0;
    while index < Square::COUNT {
        ranks[mailbox::to_mb(index)] = (index / 19) as u8 + 1;
        index += 1;
    }
    ranks
};

impl Position {
    /// The sum of `table`'s value of every piece on the board at its rank.
    pub fn sum_piece_ranks(&self, table: &PieceRankTable) -> i32 {
        let mut sum = 0;
        for color_words in &self.occ {
            for (word_index, &word) in color_words.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let cell = word_index * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let code = usize::from(self.board[cell]);
                    sum += table.values[code][usize::from(CELL_RANK[cell])];
                }
            }
        }
        sum
    }

    /// The points of `color`'s pieces of type `kind`, in ascending order.
    pub fn squares_of(&self, color: Color, kind: PieceKind) -> impl Iterator<Item = Square> + '_ {
        // Board codes of one type differ only in the promoted and colour bits.
        let kind_bits = kind as u8;
        self.occupied(color)
            .filter(move |&cell| (self.board[cell] - 1) >> 2 == kind_bits)
            // The counts are kept per type: no need to look on once all are found.
            .take(self.count(color, kind) as usize)
            .map(mailbox::to_sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RulesOptions;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A value that tells the owner, type, promoted flag and rank apart.
    fn value(piece: Piece, rank: u8) -> i32 {
        let sign = if piece.color == Color::Black { 1 } else { -1 };
        sign * (1_000 * (piece.kind.index() as i32 + 1)
            + 100 * i32::from(piece.promoted)
            + i32::from(rank))
    }

    #[test]
    fn the_sum_is_the_value_of_every_piece_read_back_from_the_board() {
        let table = PieceRankTable::from_fn(value);
        let opts = RulesOptions::default();
        let mut rng = ChaCha8Rng::seed_from_u64(40);
        let mut position = Position::startpos();
        let mut moves = Vec::new();
        for ply in 0..400 {
            let expected: i32 = position
                .pieces()
                .map(|(square, piece)| value(piece, square.rank()))
                .sum();
            assert_eq!(position.sum_piece_ranks(&table), expected, "ply {ply}");
            for color in Color::ALL {
                for kind in [PieceKind::General, PieceKind::Pawn, PieceKind::Governor] {
                    let expected: Vec<Square> = position
                        .pieces()
                        .filter(|(_, piece)| piece.color == color && piece.kind == kind)
                        .map(|(square, _)| square)
                        .collect();
                    assert_eq!(
                        position.squares_of(color, kind).collect::<Vec<_>>(),
                        expected
                    );
                }
            }
            moves.clear();
            position.generate_moves(&opts, &mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            position.play(&mv, &opts);
        }
    }
}
