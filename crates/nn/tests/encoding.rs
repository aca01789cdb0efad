//! The move encoding and input features on real positions: every legal move gets its own leg
//! list, a position and its colour-flipped twin encode identically, and the mirror of a move's
//! legs is the encoding of the mirrored move in the mirrored position.
//!
//! Positions come from seeded random playouts from the start (realistic) and from seeded random
//! placements of all 64 piece states (exotic: fogs, lamps, nets, thunderclaps, flag wavers,
//! chariots of the gods … that random play from the start rarely reaches).

use std::collections::HashSet;

use koshogi_nn::features::{encode_position, FeatureInput, FEATURE_LEN};
use koshogi_nn::move_encoding::{encode_moves, MoveLegs};
use koshogi_rules::{Color, Game, Piece, PieceKind, Position, RulesOptions, Square};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Positions reached by random play from the start.
fn playout_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut game = Game::new(RulesOptions::default());
        for _ in 0..400 {
            if game.outcome().is_some() || positions.len() == count {
                break;
            }
            positions.push(game.position().clone());
            let moves = game.legal_moves();
            let Some(&mv) = moves.choose(&mut rng) else {
                break;
            };
            game.play(mv);
        }
    }
    positions
}

/// Random boards with both generals and `pieces` other random pieces of random states.
fn random_placements(count: usize, pieces: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let side = if rng.random_bool(0.5) {
                Color::Black
            } else {
                Color::White
            };
            let mut position = Position::empty(side);
            let mut squares: Vec<usize> = (0..Square::COUNT).collect();
            for i in 0..pieces + 2 {
                let j = rng.random_range(i..squares.len());
                squares.swap(i, j);
                let square = Square::from_index(squares[i]).unwrap();
                let (color, kind) = match i {
                    0 => (Color::Black, PieceKind::General),
                    1 => (Color::White, PieceKind::General),
                    _ => (
                        if rng.random_bool(0.5) {
                            Color::Black
                        } else {
                            Color::White
                        },
                        PieceKind::ALL[rng.random_range(0..PieceKind::COUNT)],
                    ),
                };
                let promoted = kind.is_promoted_only()
                    || (kind.can_carry_promoted_flag() && rng.random_bool(0.5));
                position.set_piece(
                    square,
                    Some(Piece {
                        color,
                        kind,
                        promoted,
                    }),
                );
            }
            position
        })
        .collect()
}

/// KSFEN of the board turned 180° with colours swapped and the other side to move.
fn colour_flipped_ksfen(ksfen: &str) -> String {
    let mut fields = ksfen.split(' ');
    let board = fields.next().unwrap();
    let side = fields.next().unwrap();
    let ranks: Vec<String> = board
        .split('/')
        .rev()
        .map(|rank| {
            rank.split(',')
                .rev()
                .map(|token| {
                    token
                        .chars()
                        .map(|c| {
                            if c.is_ascii_uppercase() {
                                c.to_ascii_lowercase()
                            } else {
                                c.to_ascii_uppercase()
                            }
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    format!(
        "{} {}",
        ranks.join("/"),
        if side == "b" { "w" } else { "b" }
    )
}

/// KSFEN of the left–right mirror image (same colours, same side to move).
fn mirrored_ksfen(ksfen: &str) -> String {
    let mut fields = ksfen.split(' ');
    let board = fields.next().unwrap();
    let side = fields.next().unwrap();
    let ranks: Vec<String> = board
        .split('/')
        .map(|rank| rank.split(',').rev().collect::<Vec<_>>().join(","))
        .collect();
    format!("{} {side}", ranks.join("/"))
}

fn legs_of(position: &Position, options: &RulesOptions) -> Vec<MoveLegs> {
    let moves = position.legal_moves(options);
    let mut legs = Vec::new();
    encode_moves(position, &moves, &mut legs)
        .unwrap_or_else(|e| panic!("{e} in {}", position.to_ksfen(false)));
    legs
}

fn features_of(position: &Position, options: &RulesOptions) -> Vec<f32> {
    let mut buffer = vec![0f32; FEATURE_LEN];
    let input = FeatureInput {
        position,
        options,
        repetition_count: 2,
        ply: 300,
        max_plies: Some(1000),
        attack_planes: true,
    };
    encode_position(&input, &mut buffer).unwrap();
    buffer
}

/// The attack planes against their definition, read off the full legal move list (not the
/// captures-only generation the encoder uses): a piece is marked exactly when one of the other
/// side's legal moves, that side to move, would remove it. Returns the number of marks.
fn check_attack_planes(position: &Position, options: &RulesOptions) -> usize {
    use koshogi_nn::features::{OPPONENT_ATTACKED, OWN_ATTACKED};
    let features = features_of(position, options);
    let mover = position.side_to_move();
    let mut marks = 0;
    for (side, plane) in [(mover, OPPONENT_ATTACKED), (mover.opposite(), OWN_ATTACKED)] {
        let mut turned = position.clone();
        turned.set_side_to_move(side);
        let moves = turned.legal_moves(options);
        for square in Square::all() {
            let expected = position.piece_at(square).is_some_and(|p| p.color != side)
                && moves.iter().any(|mv| mv.removes(square));
            let point = koshogi_nn::geometry::to_mover_frame(square, mover) as usize;
            let marked = features[plane * 361 + point] == 1.0;
            assert_eq!(
                marked,
                expected,
                "plane {plane} at {square:?} in {}",
                position.to_ksfen(false)
            );
            marks += usize::from(marked);
        }
    }
    marks
}

#[test]
fn attack_planes_mark_what_a_legal_move_of_the_other_side_removes() {
    let options = RulesOptions::default();
    let mut positions = playout_positions(150, 31);
    positions.extend(random_placements(100, 40, 11));
    let marks: usize = positions
        .iter()
        .map(|p| check_attack_planes(p, &options))
        .sum();
    assert!(marks > 500, "only {marks} attacked pieces in 250 positions");
}

/// Runs all checks on one position; returns its number of legal moves.
fn check_position(position: &Position, options: &RulesOptions) -> usize {
    let ksfen = position.to_ksfen(false);
    let legs = legs_of(position, options);
    let distinct: HashSet<MoveLegs> = legs.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        legs.len(),
        "two legal moves share a leg list in {ksfen}"
    );

    let twin = Position::from_ksfen(&colour_flipped_ksfen(&ksfen)).unwrap();
    let twin_legs: HashSet<MoveLegs> = legs_of(&twin, options).into_iter().collect();
    assert_eq!(
        twin_legs, distinct,
        "colour-flipped twin encodes its moves differently: {ksfen}"
    );
    assert!(
        features_of(&twin, options) == features_of(position, options),
        "twin features differ: {ksfen}"
    );

    let mirror = Position::from_ksfen(&mirrored_ksfen(&ksfen)).unwrap();
    let mirror_legs: HashSet<MoveLegs> = legs_of(&mirror, options).into_iter().collect();
    let mirrored: HashSet<MoveLegs> = legs.iter().map(MoveLegs::mirrored).collect();
    assert_eq!(
        mirror_legs, mirrored,
        "mirror of the legs is not the mirror position's encoding: {ksfen}"
    );
    let mut mirrored_features = features_of(position, options);
    koshogi_nn::features::mirror_features(&mut mirrored_features);
    assert!(
        mirrored_features == features_of(&mirror, options),
        "mirrored features differ: {ksfen}"
    );
    legs.len()
}

#[test]
fn random_playout_positions_encode_uniquely_and_symmetrically() {
    let options = RulesOptions::default();
    let positions = playout_positions(1000, 2024);
    assert_eq!(positions.len(), 1000);
    let moves: usize = positions.iter().map(|p| check_position(p, &options)).sum();
    assert!(
        moves > 50_000,
        "expected hundreds of moves per position, got {moves} in total"
    );
}

#[test]
fn random_placements_of_every_piece_state_encode_uniquely_and_symmetrically() {
    let options = RulesOptions::default();
    let positions = random_placements(400, 40, 7);
    let moves: usize = positions.iter().map(|p| check_position(p, &options)).sum();
    assert!(moves > 10_000, "got {moves} moves in total");
}

#[test]
fn every_leg_kind_occurs_in_random_placements() {
    // Guards against the previous tests passing vacuously: multi-removal moves, shots at a
    // distance and both promotion choices must all be exercised.
    use koshogi_nn::geometry::POINTS;
    use koshogi_nn::move_encoding::{plane_meaning, PlaneMeaning};
    let options = RulesOptions::default();
    let (mut removals, mut far_removals, mut promote, mut decline, mut max_legs) = (0, 0, 0, 0, 0);
    for position in random_placements(200, 60, 11) {
        for legs in legs_of(&position, &options) {
            max_legs = max_legs.max(legs.len());
            for entry in legs.iter() {
                match plane_meaning(entry as usize / POINTS).unwrap() {
                    PlaneMeaning::Removal(o) => {
                        removals += 1;
                        if o.file.abs().max(o.rank.abs()) > 4 {
                            far_removals += 1;
                        }
                    }
                    PlaneMeaning::Promote => promote += 1,
                    PlaneMeaning::Decline => decline += 1,
                    PlaneMeaning::Destination(_) => {}
                }
            }
        }
    }
    assert!(
        removals > 100 && far_removals > 0 && promote > 0 && decline > 0,
        "{removals} {far_removals} {promote} {decline}"
    );
    assert!(
        max_legs >= 3,
        "no move with several removed pieces (max legs {max_legs})"
    );
}
