//! The compact board code of a stored position: one byte per point plus one for the side to move.
//!
//! A position is 361 point bytes (square index order of `koshogi_rules::Square`, i.e.
//! `(rank - 1) * 19 + (file - 1)`) followed by the side to move (0 = Black, 1 = White). A point
//! byte is 0 when empty, else `1 + (colour * 57 + kind) * 2 + promoted` with colour 0 = Black,
//! 1 = White, `kind` the `PieceKind::index()` (0..57, §2 table order) and `promoted` 0 or 1 —
//! at most 228. Consecutive positions of a game differ in a few bytes, so deflate stores a
//! position in a few bytes; the code is also exactly what is needed to rebuild the `Position`.

/// Bytes per stored position: 361 points and the side to move.
pub const BOARD_BYTES: usize = POINTS + 1;

/// Points on the board.
pub const POINTS: usize = Square::COUNT;

/// Version of this byte code (recorded in each shard's meta).
pub const BOARD_ENCODING_VERSION: u32 = 1;

/// Number of piece kinds the code reserves room for (`PieceKind::ALL.len()`).
pub const KIND_COUNT: u8 = 57;

/// The byte of an empty point.
pub const EMPTY: u8 = 0;

/// The largest valid point byte.
pub const MAX_POINT_CODE: u8 = 1 + (2 * KIND_COUNT - 1) * 2 + 1;

/// The first byte of `board` that no position can have (a point byte above
/// [`MAX_POINT_CODE`] or a side-to-move byte other than 0/1), as `(index, byte)`.
pub fn first_invalid_byte(board: &[u8; BOARD_BYTES]) -> Option<(usize, u8)> {
    board[..POINTS]
        .iter()
        .position(|&b| b > MAX_POINT_CODE)
        .or_else(|| (board[POINTS] > 1).then_some(POINTS))
        .map(|index| (index, board[index]))
}

/// A decoded point byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointCode {
    /// 0 = Black, 1 = White (`Color::index()`).
    pub color: u8,
    /// `PieceKind::index()`.
    pub kind: u8,
    pub promoted: bool,
}

impl PointCode {
    /// The byte for this piece, or `None` if a field is out of range.
    pub fn encode(self) -> Option<u8> {
        (self.color < 2 && self.kind < KIND_COUNT)
            .then(|| 1 + (self.color * KIND_COUNT + self.kind) * 2 + self.promoted as u8)
    }

    /// The piece on a point byte: `Ok(None)` for empty, `Err(byte)` for a byte no piece has.
    pub fn decode(byte: u8) -> Result<Option<PointCode>, u8> {
        match byte {
            EMPTY => Ok(None),
            1..=MAX_POINT_CODE => {
                let index = byte - 1;
                let piece = index / 2;
                Ok(Some(PointCode {
                    color: piece / KIND_COUNT,
                    kind: piece % KIND_COUNT,
                    promoted: index % 2 == 1,
                }))
            }
            _ => Err(byte),
        }
    }
}

use koshogi_rules::{Color, Piece, PieceKind, Position, Square};

/// Why stored board bytes do not describe a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardDecodeError {
    #[error("point {point}: byte {byte} is not a piece code")]
    BadPointCode { point: usize, byte: u8 },
    #[error("point {point}: {kind} cannot be {state}")]
    BadPromotedFlag {
        point: usize,
        kind: &'static str,
        state: &'static str,
    },
    #[error("side-to-move byte {0} is neither 0 (Black) nor 1 (White)")]
    BadSideToMove(u8),
}

/// The point byte of a piece.
pub fn piece_code(piece: Piece) -> u8 {
    PointCode {
        color: piece.color.index() as u8,
        kind: piece.kind.index() as u8,
        promoted: piece.promoted,
    }
    .encode()
    .expect("colour index < 2 and kind index < 57")
}

/// The stored bytes of a position (its ply is stored in its own column).
pub fn encode_position(position: &Position) -> [u8; BOARD_BYTES] {
    let mut bytes = [EMPTY; BOARD_BYTES];
    for (square, piece) in position.pieces() {
        bytes[square.index()] = piece_code(piece);
    }
    bytes[POINTS] = position.side_to_move().index() as u8;
    bytes
}

/// The side to move stored in `bytes` (without decoding the points).
pub fn side_to_move(bytes: &[u8; BOARD_BYTES]) -> Result<Color, BoardDecodeError> {
    match bytes[POINTS] {
        0 => Ok(Color::Black),
        1 => Ok(Color::White),
        other => Err(BoardDecodeError::BadSideToMove(other)),
    }
}

/// Rebuilds the position stored in `bytes`, at ply `ply`; rejects bytes no legal piece state has
/// (the same states KSFEN rejects: a promoted flag on a type that cannot carry one, or a
/// promoted-only type without it).
pub fn decode_position(bytes: &[u8; BOARD_BYTES], ply: u32) -> Result<Position, BoardDecodeError> {
    let side = side_to_move(bytes)?;
    let mut position = Position::empty(side);
    for (point, &byte) in bytes[..POINTS].iter().enumerate() {
        let code = PointCode::decode(byte)
            .map_err(|byte| BoardDecodeError::BadPointCode { point, byte })?;
        let Some(code) = code else { continue };
        let kind = PieceKind::from_index(code.kind.into()).expect("kind < 57 by construction");
        let allowed = if kind.is_promoted_only() {
            code.promoted
        } else {
            !code.promoted || kind.can_carry_promoted_flag()
        };
        if !allowed {
            return Err(BoardDecodeError::BadPromotedFlag {
                point,
                kind: kind.code(),
                state: if code.promoted {
                    "promoted"
                } else {
                    "unpromoted"
                },
            });
        }
        let color = if code.color == 0 {
            Color::Black
        } else {
            Color::White
        };
        let square = Square::from_index(point).expect("point < 361");
        position.set_piece(
            square,
            Some(Piece {
                color,
                kind,
                promoted: code.promoted,
            }),
        );
    }
    position.set_ply(ply);
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    use koshogi_rules::{Game, RulesOptions};
    use rand::{Rng, SeedableRng};

    #[test]
    fn start_position_round_trips_and_has_the_documented_bytes() {
        let start = Position::startpos();
        let bytes = encode_position(&start);
        assert_eq!(
            bytes.iter().take(POINTS).filter(|&&b| b != EMPTY).count(),
            180
        );
        assert_eq!(bytes[POINTS], 0, "Black moves first");
        // §3: Black's general stands on 10s = file 10, rank 19.
        let general = Square::new(10, 19).unwrap();
        // Black = colour 0, unpromoted: 1 + kind * 2.
        let expected = 1 + PieceKind::from_code("G").unwrap().index() as u8 * 2;
        assert_eq!(bytes[general.index()], expected);
        let decoded = decode_position(&bytes, 0).unwrap();
        assert_eq!(decoded.to_ksfen(false), start.to_ksfen(false));
        assert_eq!(decoded.hash(), start.hash());
    }

    #[test]
    fn random_playout_positions_round_trip() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut game = Game::new(RulesOptions::default());
        for _ in 0..60 {
            let position = game.position().clone();
            let decoded = decode_position(&encode_position(&position), position.ply()).unwrap();
            assert_eq!(decoded.to_ksfen(true), position.to_ksfen(true));
            assert_eq!(decoded.hash(), position.hash());
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            game.play(moves[rng.random_range(0..moves.len())]);
        }
    }

    #[test]
    fn impossible_bytes_are_rejected() {
        let start = encode_position(&Position::startpos());
        let general = PieceKind::from_code("G").unwrap().index() as u8;
        let governor = PieceKind::from_code("GV").unwrap().index() as u8;
        let quartermaster = PieceKind::from_code("Q").unwrap().index() as u8;
        let code = |kind, promoted| {
            PointCode {
                color: 1,
                kind,
                promoted,
            }
            .encode()
            .unwrap()
        };
        let with = |point: usize, byte: u8| {
            let mut bytes = start;
            bytes[point] = byte;
            decode_position(&bytes, 0).err()
        };
        assert_eq!(with(POINTS, 2), Some(BoardDecodeError::BadSideToMove(2)));
        assert_eq!(
            with(200, 229),
            Some(BoardDecodeError::BadPointCode {
                point: 200,
                byte: 229
            })
        );
        assert!(matches!(
            with(200, code(general, true)),
            Some(BoardDecodeError::BadPromotedFlag { point: 200, .. })
        ));
        assert!(matches!(
            with(200, code(governor, false)),
            Some(BoardDecodeError::BadPromotedFlag { .. })
        ));
        assert_eq!(
            with(200, code(quartermaster, true)),
            None,
            "+Q is a legal piece state"
        );
        assert_eq!(with(200, code(governor, true)), None);
    }

    #[test]
    fn every_piece_has_a_distinct_nonzero_byte_that_decodes_back() {
        let mut seen = std::collections::HashSet::new();
        for color in 0..2 {
            for kind in 0..KIND_COUNT {
                for promoted in [false, true] {
                    let code = PointCode {
                        color,
                        kind,
                        promoted,
                    };
                    let byte = code.encode().unwrap();
                    assert_ne!(byte, EMPTY);
                    assert!(byte <= MAX_POINT_CODE);
                    assert!(seen.insert(byte));
                    assert_eq!(PointCode::decode(byte), Ok(Some(code)));
                }
            }
        }
        assert_eq!(seen.len(), 228);
        assert_eq!(PointCode::decode(EMPTY), Ok(None));
        assert_eq!(
            PointCode::decode(MAX_POINT_CODE + 1),
            Err(MAX_POINT_CODE + 1)
        );
        assert_eq!(
            PointCode {
                color: 2,
                kind: 0,
                promoted: false
            }
            .encode(),
            None
        );
        assert_eq!(
            PointCode {
                color: 0,
                kind: 57,
                promoted: false
            }
            .encode(),
            None
        );
    }
}
