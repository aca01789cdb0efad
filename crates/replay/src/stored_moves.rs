//! A stored row's position and legal moves. A row's policy target and played move index its
//! legal moves in move-generation order, so every reader of a row (the trainer's sampler, the
//! shard export, the target diagnosis) rebuilds the position, regenerates its moves, and must
//! refuse a row whose stored move count disagrees (other rules options, or rules changed since
//! the row was written). One owner for that check, so the readers cannot drift apart.

use koshogi_rules::{Move, Position, RulesOptions};

use crate::board::{decode_position, BoardDecodeError};
use crate::training_positions::Record;

/// Why a stored row's position or moves cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoredMovesError {
    #[error("bad stored position: {0}")]
    Board(#[from] BoardDecodeError),
    #[error("stored {stored} legal moves, the rules generate {generated}")]
    MoveCount { stored: u32, generated: usize },
}

/// The position of `record`, with its legal moves under `rules` in `moves` (cleared first);
/// an error if its board bytes are invalid or the rules generate another number of moves than
/// the row's `legal_move_count`.
pub fn position_and_moves(
    record: &Record<'_>,
    rules: &RulesOptions,
    moves: &mut Vec<Move>,
) -> Result<Position, StoredMovesError> {
    let position = decode_position(record.board, record.ply)?;
    moves.clear();
    position.generate_moves(rules, moves);
    if moves.len() != record.legal_move_count as usize {
        return Err(StoredMovesError::MoveCount {
            stored: record.legal_move_count,
            generated: moves.len(),
        });
    }
    Ok(position)
}
