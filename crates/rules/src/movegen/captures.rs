//! Captures-only ("noisy moves") generation: the legal moves that remove at least one enemy
//! piece ([`Move::is_capture`]: displacement, igui, shots), and nothing else.
//!
//! Why: a search's quiescence and static exchange evaluation look at captures only, and a
//! middle-game position has some 250 legal moves of which a handful capture. Generating them
//! all to keep a few costs most of such a search's time.
//!
//! How: the full generator ([`super::Gen`]) with one flag. It still walks every ray (a slider
//! must pass the empty points to reach the piece it takes, a lion-like piece's second leg may
//! start from an empty point, a shooter may shoot after a move to an empty point), but it skips
//! the emission of every move that removes nothing, and the walk to empty points of pieces that
//! cannot shoot after moving. Because paths are enumerated in the same order as in full
//! generation, each capture keeps its canonical path: the result is exactly the capturing subset
//! of [`Position::generate_moves`], in the same order (property-tested below).
//!
//! The captures of one point ([`generate_captures_removing`], an exchange's "who retakes
//! there?") walk only the pieces whose reach bound ([`super::reach`]) includes the point.
//!
//! Not captures in this sense (as in [`Move::is_capture`]): a poison flame's burning, which is a
//! consequence of a move, and promotions without a capture.

use super::Selection;
use crate::{Move, Position, RulesOptions, Square};

/// Appends every legal capture of the side to move to `out`, in the order and form of full
/// generation. Nothing when either side no longer survives (§14.2).
pub(crate) fn generate_captures(pos: &Position, opts: &RulesOptions, out: &mut Vec<Move>) {
    super::generate_filtered(pos, opts, out, Selection::Captures);
}

/// Appends the legal captures of the side to move that remove the piece on `target`
/// ([`Move::removes`]), in the order and form of full generation: the exchange evaluation's
/// question "who retakes there?". Only the pieces whose [`super::reach::Reach`] includes
/// `target` are walked.
pub(crate) fn generate_captures_removing(
    pos: &Position,
    opts: &RulesOptions,
    target: Square,
    out: &mut Vec<Move>,
) {
    let start = out.len();
    let cell = crate::mailbox::to_mb(target.index());
    super::generate_filtered(pos, opts, out, Selection::CapturesNear(cell));
    // `retain` visits the moves in order: the caller's first `start` stay.
    let mut index = 0;
    out.retain(|mv| {
        index += 1;
        index <= start || mv.removes(target)
    });
}

#[cfg(test)]
mod tests {
    use super::generate_captures_removing;
    use crate::options::{FortressMove, ShootMode, ShotAfterCapture, ShotRange};
    use crate::{Color, Move, Piece, PieceKind, Position, RulesOptions, Square};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn captures_of(position: &Position, opts: &RulesOptions) -> Vec<Move> {
        let mut out = Vec::new();
        position.generate_captures(opts, &mut out);
        out
    }

    fn full_captures(position: &Position, opts: &RulesOptions) -> Vec<Move> {
        position
            .legal_moves(opts)
            .into_iter()
            .filter(Move::is_capture)
            .collect()
    }

    /// A board of `pieces` random pieces of every kind (promoted kinds, shooters, lion-like
    /// pieces, the poison flame, nets and priests included) and both generals.
    fn random_position(rng: &mut ChaCha8Rng, pieces: usize) -> Position {
        let side = if rng.random_bool(0.5) {
            Color::Black
        } else {
            Color::White
        };
        let mut position = Position::empty(side);
        let place = |position: &mut Position, piece: Piece, rng: &mut ChaCha8Rng| loop {
            let square = Square::from_index(rng.random_range(0..Square::COUNT)).unwrap();
            if position.piece_at(square).is_none() {
                position.set_piece(square, Some(piece));
                break;
            }
        };
        for color in Color::ALL {
            place(&mut position, Piece::new(color, PieceKind::General), rng);
        }
        for _ in 0..pieces {
            let kind = PieceKind::ALL[rng.random_range(0..PieceKind::COUNT)];
            let color = if rng.random_bool(0.5) {
                Color::Black
            } else {
                Color::White
            };
            place(&mut position, Piece::new(color, kind), rng);
        }
        position
    }

    fn option_variants() -> Vec<RulesOptions> {
        let mut variants = vec![RulesOptions::default()];
        for shoot_mode in [ShootMode::StationaryOnly, ShootMode::Either] {
            variants.push(RulesOptions {
                shoot_mode,
                ..RulesOptions::default()
            });
        }
        for shot_after_capture in [ShotAfterCapture::Never, ShotAfterCapture::Always] {
            variants.push(RulesOptions {
                shot_after_capture,
                artillery_displacement: true,
                ..RulesOptions::default()
            });
        }
        variants
    }

    #[test]
    fn captures_are_the_capturing_subset_of_all_moves_on_random_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(30);
        let variants = option_variants();
        let mut seen_kinds = [false; PieceKind::COUNT];
        let mut total = 0;
        for round in 0..600 {
            let pieces = rng.random_range(10..120);
            let position = random_position(&mut rng, pieces);
            let opts = &variants[round % variants.len()];
            let captures = captures_of(&position, opts);
            assert_eq!(
                captures,
                full_captures(&position, opts),
                "round {round}: {}",
                position.to_ksfen(true)
            );
            for mv in &captures {
                let kind = position.piece_at(mv.origin()).unwrap().kind;
                seen_kinds[kind.index()] = true;
            }
            total += captures.len();
            // The other side's captures, were it its turn: those of the turned board.
            let other = position.side_to_move().opposite();
            let mut turned = position.clone();
            turned.set_side_to_move(other);
            let mut theirs = Vec::new();
            position.generate_captures_for(other, opts, &mut theirs);
            assert_eq!(theirs, full_captures(&turned, opts), "round {round}");
            let mut ours = Vec::new();
            position.generate_captures_for(position.side_to_move(), opts, &mut ours);
            assert_eq!(ours, captures, "round {round}");
        }
        assert!(
            total > 5_000,
            "only {total} captures: the boards are too sparse"
        );
        for kind in PieceKind::ALL {
            assert!(
                seen_kinds[kind.index()],
                "no capture by {kind:?} was checked"
            );
        }
    }

    #[test]
    fn captures_match_along_random_games_from_the_start() {
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let opts = RulesOptions::default();
        let mut checked = 0;
        for _ in 0..6 {
            let mut position = Position::startpos();
            for _ in 0..250 {
                let moves = position.legal_moves(&opts);
                if moves.is_empty() {
                    break;
                }
                assert_eq!(
                    captures_of(&position, &opts),
                    full_captures(&position, &opts),
                    "{}",
                    position.to_ksfen(true)
                );
                checked += 1;
                // Prefer captures, so that the armies meet and thin out.
                let captures: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
                let mv = if !captures.is_empty() && rng.random_bool(0.5) {
                    *captures[rng.random_range(0..captures.len())]
                } else {
                    moves[rng.random_range(0..moves.len())]
                };
                position.play(&mv, &opts);
            }
        }
        assert!(checked > 1_000);
    }

    /// The captures removing each point that holds an enemy piece, against full generation's
    /// captures that remove it: the reach bound skips no piece that can take there.
    #[test]
    fn captures_of_a_point_are_the_full_captures_that_remove_it_on_random_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(32);
        let mut variants = option_variants();
        variants.push(RulesOptions {
            shot_range: ShotRange::FreePoints,
            fortress_move: FortressMove::FlyingOx,
            shoot_mode: ShootMode::Either,
            ..RulesOptions::default()
        });
        let mut seen_kinds = [false; PieceKind::COUNT];
        let (mut points, mut captures, mut skipped_pieces) = (0, 0, 0usize);
        let mut out = Vec::new();
        for round in 0..300 {
            let pieces = rng.random_range(10..120);
            let position = random_position(&mut rng, pieces);
            let opts = &variants[round % variants.len()];
            let all = full_captures(&position, opts);
            for target in Square::all() {
                match position.piece_at(target) {
                    Some(piece) if piece.color != position.side_to_move() => {}
                    _ => continue,
                }
                out.clear();
                generate_captures_removing(&position, opts, target, &mut out);
                let expected: Vec<Move> =
                    all.iter().filter(|m| m.removes(target)).copied().collect();
                assert_eq!(
                    out,
                    expected,
                    "round {round}, point {target}: {}",
                    position.to_ksfen(true)
                );
                for mv in &out {
                    seen_kinds[position.piece_at(mv.origin()).unwrap().kind.index()] = true;
                    assert_eq!(mv.removes(target), mv.removed_points().contains(&target));
                }
                let walked = position
                    .pieces()
                    .filter(|(from, piece)| {
                        piece.color == position.side_to_move()
                            && super::super::reach::REACH[piece.color.index()][piece.kind.index()]
                                .may_remove(
                                    crate::mailbox::to_mb(from.index()),
                                    crate::mailbox::file_rank(crate::mailbox::to_mb(
                                        target.index(),
                                    )),
                                )
                    })
                    .count();
                skipped_pieces += position.piece_count(position.side_to_move()) as usize - walked;
                points += 1;
                captures += out.len();
            }
        }
        assert!(
            captures > 5_000,
            "only {captures} captures of {points} points"
        );
        for kind in PieceKind::ALL {
            assert!(
                seen_kinds[kind.index()],
                "no capture by {kind:?} was checked"
            );
        }
        assert!(
            skipped_pieces > points * 5,
            "the reach bound skips only {skipped_pieces} pieces over {points} points"
        );
    }

    #[test]
    fn a_lone_general_with_nothing_to_take_has_no_captures() {
        let position = crate::testutil::setup(&[], Color::Black);
        let opts = RulesOptions::default();
        assert!(!position.legal_moves(&opts).is_empty());
        assert!(captures_of(&position, &opts).is_empty());
    }
}
