//! Input features: one position, seen from the side to move, as [`INPUT_PLANES`] planes of
//! 19×19 values (layout and meaning in `docs/input-features.md`).
//!
//! The board is turned 180° for White (see [`crate::geometry`]) and pieces are split by owner
//! *relative to the mover*, so a position and its colour-flipped twin produce identical
//! features: the network never has to learn the same thing twice. Encoding writes into a
//! caller-provided buffer; the optional attack planes reuse one move buffer per thread.

use std::cell::RefCell;

use koshogi_rules::{Color, Move, PieceKind, Position, RulesOptions, Square};

use crate::error::EncodingError;
use crate::geometry::{to_mover_frame, BOARD_SIZE, POINTS};

/// Version of the plane layout; bump on any change (checkpoints record it).
pub const FEATURE_VERSION: u32 = 2;

/// Piece states per owner: 34 initial types unpromoted, 7 initial types promoted, 23
/// promoted-only types.
pub const PIECE_STATES: usize = 34 + 7 + 23;
/// First plane of the mover's own pieces (one plane per piece state).
pub const OWN_PIECES: usize = 0;
/// First plane of the opponent's pieces.
pub const OPPONENT_PIECES: usize = PIECE_STATES;
/// Own pieces frozen by an enemy net (§4.9).
pub const OWN_IMMOBILIZED: usize = 2 * PIECE_STATES;
/// Opponent's pieces frozen by one of our nets.
pub const OPPONENT_IMMOBILIZED: usize = OWN_IMMOBILIZED + 1;
/// Points from which our artillery may not shoot (an enemy five-li fog within reach, §4.7.5).
pub const OWN_FOG_SUPPRESSED: usize = OWN_IMMOBILIZED + 2;
/// Points from which the opponent's artillery may not shoot (our fog).
pub const OPPONENT_FOG_SUPPRESSED: usize = OWN_IMMOBILIZED + 3;
/// Constant planes: 1 when our Taoist priest is gone (§8.6).
pub const OWN_PRIEST_LOST: usize = OWN_IMMOBILIZED + 4;
pub const OPPONENT_PRIEST_LOST: usize = OWN_IMMOBILIZED + 5;
/// Constant planes: 1 when our drum is gone (§8.7).
pub const OWN_DRUM_LOST: usize = OWN_IMMOBILIZED + 6;
pub const OPPONENT_DRUM_LOST: usize = OWN_IMMOBILIZED + 7;
/// Constant planes: this position has occurred at least 2 (resp. 3) times (a 4th ends the game).
pub const REPEATED_TWICE: usize = OWN_IMMOBILIZED + 8;
pub const REPEATED_THRICE: usize = OWN_IMMOBILIZED + 9;
/// Constant plane: plies played / max_plies, clamped to [0, 1]; 0 without a ply limit.
pub const PLY_FRACTION: usize = OWN_IMMOBILIZED + 10;
/// Constant plane of ones: lets the first convolution tell the board edge from zero padding.
pub const ON_BOARD: usize = OWN_IMMOBILIZED + 11;
/// The mover's pieces the opponent could capture if it were its turn (attack planes only).
/// Why: a trunk of a few 3×3 blocks sees 9 points each way, and Ko shogi's chariots, shooters
/// and jumpers strike from across the board, so a network cannot see what hangs without help.
pub const OWN_ATTACKED: usize = OWN_IMMOBILIZED + 12;
/// The opponent's pieces the mover could capture now (attack planes only).
pub const OPPONENT_ATTACKED: usize = OWN_IMMOBILIZED + 13;
/// Number of input planes.
pub const INPUT_PLANES: usize = OPPONENT_ATTACKED + 1;
/// Version 1 of the layout: planes 0 to [`ON_BOARD`], before the attack planes. Its networks
/// read the same planes with the attack planes 0, so their checkpoints still load.
pub const FEATURE_VERSION_1: u32 = 1;
/// Input planes of version 1.
pub const FEATURE_VERSION_1_PLANES: usize = ON_BOARD + 1;
/// Values per encoded position.
pub const FEATURE_LEN: usize = INPUT_PLANES * POINTS;

/// The seven initial types that can also be reached by promotion, in piece-state order.
const PROMOTED_INITIAL: [PieceKind; 7] = [
    PieceKind::Millenary,
    PieceKind::Quartermaster,
    PieceKind::Centuria,
    PieceKind::Cavalry,
    PieceKind::PatrolUnit,
    PieceKind::ShieldUnit,
    PieceKind::ChariotUnit,
];

/// Piece-state index 0..64 of a (current type, promoted flag).
pub fn piece_state(kind: PieceKind, promoted: bool) -> usize {
    let index = kind.index();
    if kind.is_promoted_only() {
        PieceKind::INITIAL_COUNT + PROMOTED_INITIAL.len() + (index - PieceKind::INITIAL_COUNT)
    } else if promoted {
        match PROMOTED_INITIAL.iter().position(|&k| k == kind) {
            Some(i) => PieceKind::INITIAL_COUNT + i,
            None => index, // a flag the rules never set on this type: ignore it
        }
    } else {
        index
    }
}

/// Everything besides the board that the features depend on.
#[derive(Clone, Copy)]
pub struct FeatureInput<'a> {
    pub position: &'a Position,
    /// The rule options (immobilisation and fog reach depend on them).
    pub options: &'a RulesOptions,
    /// How many times the current position has occurred, this time included (1 = first).
    pub repetition_count: u32,
    /// Plies played so far in the game (what `max_plies` counts).
    pub ply: u32,
    /// The game's ply limit, if any (adjudicated as a draw when reached).
    pub max_plies: Option<u32>,
    /// Whether to fill [`OWN_ATTACKED`] and [`OPPONENT_ATTACKED`] (a network's
    /// `attack_planes`); when false they stay 0, which a network without them ignores.
    pub attack_planes: bool,
}

impl<'a> FeatureInput<'a> {
    /// A position without game history: first occurrence, its own ply counter, no ply limit.
    pub fn from_position(position: &'a Position, options: &'a RulesOptions) -> Self {
        FeatureInput {
            position,
            options,
            repetition_count: 1,
            ply: position.ply(),
            max_plies: None,
            attack_planes: false,
        }
    }

    /// The current position of a game, with its repetition count and ply limit.
    pub fn from_game(game: &'a koshogi_rules::Game) -> Self {
        FeatureInput {
            position: game.position(),
            options: game.options(),
            repetition_count: game.repetition_count(),
            ply: game.plies_played(),
            max_plies: game.max_plies(),
            attack_planes: false,
        }
    }

    /// The same input with the attack planes filled or not (what the network reading the
    /// features was built with).
    pub fn with_attack_planes(self, attack_planes: bool) -> Self {
        FeatureInput {
            attack_planes,
            ..self
        }
    }
}

/// A number type the features can be written in (float32 for training, bfloat16 to feed a
/// bfloat16 network without a conversion pass).
pub trait FeatureValue: Copy + Send + Sync + 'static {
    const ZERO: Self;
    const ONE: Self;
    fn from_f32(value: f32) -> Self;
}

impl FeatureValue for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn from_f32(value: f32) -> f32 {
        value
    }
}

impl FeatureValue for half::bf16 {
    const ZERO: half::bf16 = half::bf16::ZERO;
    const ONE: half::bf16 = half::bf16::ONE;
    fn from_f32(value: f32) -> half::bf16 {
        half::bf16::from_f32(value)
    }
}

/// Writes the features of one position into `out` (exactly [`FEATURE_LEN`] values, plane-major:
/// `out[plane * 361 + point]`, points in the mover's frame).
pub fn encode_position<T: FeatureValue>(
    input: &FeatureInput<'_>,
    out: &mut [T],
) -> Result<(), EncodingError> {
    if out.len() != FEATURE_LEN {
        return Err(EncodingError::BadBatch(format!(
            "feature buffer holds {} values, need {FEATURE_LEN}",
            out.len()
        )));
    }
    out.fill(T::ZERO);
    let position = input.position;
    let mover = position.side_to_move();
    let opponent = mover.opposite();
    let mut set = |plane: usize, point: u16| out[plane * POINTS + point as usize] = T::ONE;

    let any_nets = Color::ALL.iter().any(|&c| {
        position.count(c, PieceKind::SkywardNet) + position.count(c, PieceKind::EarthwardNet) > 0
    });
    for (square, piece) in position.pieces() {
        let point = to_mover_frame(square, mover);
        let own = piece.color == mover;
        let base = if own { OWN_PIECES } else { OPPONENT_PIECES };
        set(base + piece_state(piece.kind, piece.promoted), point);
        if any_nets && position.is_immobilized_with(square, input.options) {
            set(
                if own {
                    OWN_IMMOBILIZED
                } else {
                    OPPONENT_IMMOBILIZED
                },
                point,
            );
        }
    }
    for (shooter, plane) in [
        (mover, OWN_FOG_SUPPRESSED),
        (opponent, OPPONENT_FOG_SUPPRESSED),
    ] {
        if position.count(shooter.opposite(), PieceKind::FiveLiFog) == 0 {
            continue;
        }
        for square in Square::all() {
            if position.is_fog_suppressed_with(square, shooter, input.options) {
                set(plane, to_mover_frame(square, mover));
            }
        }
    }

    let mut fill = |plane: usize, value: f32| {
        if value != 0.0 {
            out[plane * POINTS..(plane + 1) * POINTS].fill(T::from_f32(value));
        }
    };
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    fill(OWN_PRIEST_LOST, flag(position.taoist_priest_lost(mover)));
    fill(
        OPPONENT_PRIEST_LOST,
        flag(position.taoist_priest_lost(opponent)),
    );
    fill(OWN_DRUM_LOST, flag(position.drum_lost(mover)));
    fill(OPPONENT_DRUM_LOST, flag(position.drum_lost(opponent)));
    fill(REPEATED_TWICE, flag(input.repetition_count >= 2));
    fill(REPEATED_THRICE, flag(input.repetition_count >= 3));
    let fraction = match input.max_plies {
        Some(max) if max > 0 => (input.ply as f32 / max as f32).clamp(0.0, 1.0),
        _ => 0.0,
    };
    fill(PLY_FRACTION, fraction);
    fill(ON_BOARD, 1.0);
    if input.attack_planes {
        mark_attacked(position, input.options, |plane, square| {
            out[plane * POINTS + to_mover_frame(square, mover) as usize] = T::ONE
        });
    }
    Ok(())
}

thread_local! {
    /// Scratch space for the captures the attack planes are read from.
    static CAPTURES: RefCell<Vec<Move>> = const { RefCell::new(Vec::new()) };
}

/// Calls `mark(plane, square)` for every piece a legal capture of either side would remove
/// now: [`OPPONENT_ATTACKED`] for the mover's captures, [`OWN_ATTACKED`] for the opponent's
/// (generated as if it were the opponent's turn). A point may be marked more than once.
fn mark_attacked(position: &Position, options: &RulesOptions, mut mark: impl FnMut(usize, Square)) {
    let mover = position.side_to_move();
    CAPTURES.with(|buffer| {
        let mut captures = buffer.borrow_mut();
        for (side, plane) in [(mover, OPPONENT_ATTACKED), (mover.opposite(), OWN_ATTACKED)] {
            captures.clear();
            position.generate_captures_for(side, options, &mut captures);
            for point in captures.iter().flat_map(Move::removals) {
                if position.piece_at(point).is_some_and(|p| p.color != side) {
                    mark(plane, point);
                }
            }
        }
    });
}

/// Encodes a batch into `out` (exactly `inputs.len() * FEATURE_LEN` values, sample-major).
pub fn encode_batch<T: FeatureValue>(
    inputs: &[FeatureInput<'_>],
    out: &mut [T],
) -> Result<(), EncodingError> {
    if out.len() != inputs.len() * FEATURE_LEN {
        return Err(EncodingError::BadBatch(format!(
            "feature buffer holds {} values, need {} for {} positions",
            out.len(),
            inputs.len() * FEATURE_LEN,
            inputs.len()
        )));
    }
    for (input, chunk) in inputs.iter().zip(out.chunks_exact_mut(FEATURE_LEN)) {
        encode_position(input, chunk)?;
    }
    Ok(())
}

/// Mirrors encoded features left–right in place (file f ↔ 20 − f in every plane), the input half
/// of mirror augmentation (the other half is [`crate::move_encoding::MoveLegs::mirrored`]).
/// Works on one position or a whole batch.
pub fn mirror_features<T: FeatureValue>(features: &mut [T]) {
    for row in features.chunks_exact_mut(BOARD_SIZE) {
        row.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_states_are_a_bijection_onto_0_to_64() {
        let mut seen = [false; PIECE_STATES];
        for kind in PieceKind::ALL {
            let mut flags = vec![kind.is_promoted_only()];
            if kind.can_carry_promoted_flag() {
                flags.push(true);
            }
            for promoted in flags {
                let s = piece_state(kind, promoted);
                assert!(!seen[s], "state {s} used twice ({kind:?}, {promoted})");
                seen[s] = true;
            }
        }
        assert!(seen.iter().all(|&b| b), "every state reachable");
        assert_eq!(INPUT_PLANES, 142);
    }

    #[test]
    fn start_position_has_ninety_pieces_a_side_with_own_army_at_the_bottom() {
        let position = Position::startpos();
        let options = RulesOptions::default();
        let mut buf = vec![0f32; FEATURE_LEN];
        encode_position(&FeatureInput::from_position(&position, &options), &mut buf).unwrap();
        let count = |planes: std::ops::Range<usize>| {
            buf[planes.start * POINTS..planes.end * POINTS]
                .iter()
                .sum::<f32>()
        };
        assert_eq!(count(OWN_PIECES..OWN_PIECES + PIECE_STATES), 90.0);
        assert_eq!(count(OPPONENT_PIECES..OPPONENT_PIECES + PIECE_STATES), 90.0);
        // Black's general stands on 10s (file 10, rank 19): mover-frame point 18*19 + 9.
        let general = piece_state(PieceKind::General, false);
        assert_eq!(buf[(OWN_PIECES + general) * POINTS + 18 * 19 + 9], 1.0);
        assert_eq!(buf[(OPPONENT_PIECES + general) * POINTS + 9], 1.0);
        assert_eq!(count(ON_BOARD..ON_BOARD + 1), POINTS as f32);
        assert_eq!(count(OWN_IMMOBILIZED..ON_BOARD), 0.0);
    }

    #[test]
    fn attack_planes_mark_the_pieces_each_side_could_take_and_only_when_asked() {
        use koshogi_rules::Piece;
        let options = RulesOptions::default();
        let sq = |f, r| Square::new(f, r).unwrap();
        let mut position = Position::empty(Color::White);
        for (file, rank, color, kind) in [
            (1, 19, Color::Black, PieceKind::General),
            (19, 1, Color::White, PieceKind::General),
            // Side by side: without their drums pawns step sideways and back, not forward.
            (10, 10, Color::Black, PieceKind::Pawn),
            (11, 10, Color::White, PieceKind::Pawn),
            (3, 12, Color::Black, PieceKind::Pawn), // nobody can reach it
        ] {
            position.set_piece(sq(file, rank), Some(Piece::new(color, kind)));
        }
        let mut buf = vec![0f32; FEATURE_LEN];
        let input = FeatureInput::from_position(&position, &options);
        encode_position(&input, &mut buf).unwrap();
        let attacked = |buf: &[f32]| buf[OWN_ATTACKED * POINTS..].iter().sum::<f32>();
        assert_eq!(attacked(&buf), 0.0, "off unless asked");

        encode_position(&input.with_attack_planes(true), &mut buf).unwrap();
        assert_eq!(attacked(&buf), 2.0);
        // White moves: the board is turned, so the mover-frame point of (f, r) is (20-f, 20-r).
        assert_eq!(
            plane_value(&buf, OWN_ATTACKED, 9, 10),
            1.0,
            "White's pawn hangs"
        );
        assert_eq!(
            plane_value(&buf, OPPONENT_ATTACKED, 10, 10),
            1.0,
            "Black's pawn too"
        );
        assert_eq!(plane_value(&buf, OPPONENT_ATTACKED, 17, 8), 0.0);
    }

    fn plane_value(buf: &[f32], plane: usize, file: u8, rank: u8) -> f32 {
        buf[plane * POINTS + crate::geometry::point(file, rank) as usize]
    }

    #[test]
    fn nets_and_fogs_mark_the_points_the_rules_name() {
        use koshogi_rules::Piece;
        let options = RulesOptions::default();
        let sq = |f, r| Square::new(f, r).unwrap();
        let mut position = Position::empty(Color::Black);
        position.set_piece(
            sq(10, 10),
            Some(Piece::new(Color::Black, PieceKind::SkywardNet)),
        );
        position.set_piece(sq(13, 10), Some(Piece::new(Color::White, PieceKind::Pawn)));
        position.set_piece(
            sq(10, 5),
            Some(Piece::new(Color::White, PieceKind::FiveLiFog)),
        );
        assert!(position.is_immobilized(sq(13, 10)));
        let mut buf = vec![0f32; FEATURE_LEN];

        // Black to move: the frozen pawn is the opponent's; Black's artillery is suppressed.
        encode_position(&FeatureInput::from_position(&position, &options), &mut buf).unwrap();
        assert_eq!(plane_value(&buf, OPPONENT_IMMOBILIZED, 13, 10), 1.0);
        assert_eq!(
            buf[OWN_IMMOBILIZED * POINTS..(OWN_IMMOBILIZED + 2) * POINTS]
                .iter()
                .sum::<f32>(),
            1.0
        );
        for square in Square::all() {
            let expected = position.is_fog_suppressed(square, Color::Black) as u8 as f32;
            assert_eq!(
                plane_value(&buf, OWN_FOG_SUPPRESSED, square.file(), square.rank()),
                expected
            );
        }
        assert_eq!(
            plane_value(&buf, OWN_FOG_SUPPRESSED, 10, 10),
            1.0,
            "fog at distance 5"
        );
        assert_eq!(
            plane_value(&buf, OWN_FOG_SUPPRESSED, 10, 11),
            0.0,
            "fog at distance 6"
        );
        assert_eq!(
            buf[OPPONENT_FOG_SUPPRESSED * POINTS..(OPPONENT_FOG_SUPPRESSED + 1) * POINTS]
                .iter()
                .sum::<f32>(),
            0.0
        );

        // White to move: the same facts seen from White, board turned 180°.
        position.set_side_to_move(Color::White);
        encode_position(&FeatureInput::from_position(&position, &options), &mut buf).unwrap();
        assert_eq!(plane_value(&buf, OWN_IMMOBILIZED, 20 - 13, 20 - 10), 1.0);
        assert_eq!(
            plane_value(&buf, OPPONENT_FOG_SUPPRESSED, 20 - 10, 20 - 10),
            1.0
        );
        assert_eq!(
            plane_value(
                &buf,
                OWN_PIECES + piece_state(PieceKind::FiveLiFog, true),
                10,
                15
            ),
            1.0
        );
    }

    #[test]
    fn priest_and_drum_flags_belong_to_the_right_side() {
        let options = RulesOptions::default();
        let mut position = Position::startpos();
        position.set_piece(Square::new(2, 19).unwrap(), None); // Black's Taoist priest
        position.set_piece(Square::new(9, 2).unwrap(), None); // White's drum
        let mut buf = vec![0f32; FEATURE_LEN];
        let total = |buf: &[f32], plane: usize| {
            buf[plane * POINTS..(plane + 1) * POINTS]
                .iter()
                .sum::<f32>()
        };
        encode_position(&FeatureInput::from_position(&position, &options), &mut buf).unwrap();
        let flags = [
            OWN_PRIEST_LOST,
            OPPONENT_PRIEST_LOST,
            OWN_DRUM_LOST,
            OPPONENT_DRUM_LOST,
        ]
        .map(|p| total(&buf, p));
        let all = POINTS as f32;
        assert_eq!(flags, [all, 0.0, 0.0, all]);
        position.set_side_to_move(Color::White);
        encode_position(&FeatureInput::from_position(&position, &options), &mut buf).unwrap();
        let flags = [
            OWN_PRIEST_LOST,
            OPPONENT_PRIEST_LOST,
            OWN_DRUM_LOST,
            OPPONENT_DRUM_LOST,
        ]
        .map(|p| total(&buf, p));
        assert_eq!(flags, [0.0, all, all, 0.0]);
    }

    #[test]
    fn game_state_planes_follow_the_game() {
        let position = Position::startpos();
        let options = RulesOptions::default();
        let input = FeatureInput {
            position: &position,
            options: &options,
            repetition_count: 3,
            ply: 250,
            max_plies: Some(1000),
            attack_planes: false,
        };
        let mut buf = vec![0f32; FEATURE_LEN];
        encode_position(&input, &mut buf).unwrap();
        assert_eq!(plane_value(&buf, REPEATED_TWICE, 1, 1), 1.0);
        assert_eq!(plane_value(&buf, REPEATED_THRICE, 19, 19), 1.0);
        assert_eq!(plane_value(&buf, PLY_FRACTION, 7, 3), 0.25);
        let first = FeatureInput {
            repetition_count: 1,
            max_plies: None,
            ..input
        };
        encode_position(&first, &mut buf).unwrap();
        assert_eq!(
            buf[REPEATED_TWICE * POINTS..(PLY_FRACTION + 1) * POINTS]
                .iter()
                .sum::<f32>(),
            0.0
        );
    }

    #[test]
    fn mirroring_twice_is_the_identity() {
        let mut buf: Vec<f32> = (0..FEATURE_LEN).map(|i| (i % 977) as f32).collect();
        let original = buf.clone();
        mirror_features(&mut buf);
        assert_ne!(buf, original);
        assert_eq!(buf[5], original[13]);
        mirror_features(&mut buf);
        assert_eq!(buf, original);
    }

    #[test]
    fn bfloat16_batches_hold_the_same_values() {
        let options = RulesOptions::default();
        let start = Position::startpos();
        let mut white = start.clone();
        white.set_side_to_move(Color::White);
        let inputs = [&start, &white].map(|p| FeatureInput {
            max_plies: Some(3),
            ply: 1,
            ..FeatureInput::from_position(p, &options)
        });
        let mut batch = vec![half::bf16::ZERO; 2 * FEATURE_LEN];
        encode_batch(&inputs, &mut batch).unwrap();
        let mut single = vec![0f32; FEATURE_LEN];
        for (input, chunk) in inputs.iter().zip(batch.chunks_exact(FEATURE_LEN)) {
            encode_position(input, &mut single).unwrap();
            // 1/3 is not exact in bfloat16; everything else is 0 or 1.
            assert!(single
                .iter()
                .zip(chunk)
                .all(|(a, b)| (a - b.to_f32()).abs() < 2e-3));
        }
        assert!(encode_batch(&inputs, &mut batch[..FEATURE_LEN]).is_err());
    }

    #[test]
    fn wrong_buffer_size_is_an_error() {
        let position = Position::startpos();
        let options = RulesOptions::default();
        let mut buf = vec![0f32; FEATURE_LEN - 1];
        assert!(
            encode_position(&FeatureInput::from_position(&position, &options), &mut buf).is_err()
        );
    }
}
