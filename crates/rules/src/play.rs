//! Making and unmaking moves on a [`Position`] (the resolution order of §9, steps 2–7).
//!
//! `play` trusts that the move is legal (generated for this position); `undo` restores the
//! position, including its hash, exactly. Search and perft use these directly; [`crate::Game`]
//! adds history and game-end logic on top.

use crate::mailbox::{self, EMPTY};
use crate::options::{BurnExempt, FlameMode, Reach};
use crate::{Color, Move, Piece, PieceKind, Position, Promotion, RulesOptions};

/// Inline capacity of an undo record; rarer, larger changes spill to the heap.
const INLINE_CHANGES: usize = 40;

/// Everything needed to take a move back.
#[derive(Clone, Debug)]
pub struct Undo {
    changes: [(u16, u8); INLINE_CHANGES],
    len: u8,
    spill: Vec<(u16, u8)>,
    hash: u64,
    ply: u32,
}

impl Undo {
    fn new(pos: &Position) -> Undo {
        Undo {
            changes: [(0, 0); INLINE_CHANGES],
            len: 0,
            spill: Vec::new(),
            hash: pos.hash,
            ply: pos.ply,
        }
    }

    #[inline]
    fn record(&mut self, mb: usize, old: u8) {
        if (self.len as usize) < INLINE_CHANGES {
            self.changes[self.len as usize] = (mb as u16, old);
            self.len += 1;
        } else {
            self.spill.push((mb as u16, old));
        }
    }
}

const NEIGHBOURS: [i32; 8] = [
    mailbox::offset(0, -1),
    mailbox::offset(0, 1),
    mailbox::offset(1, 0),
    mailbox::offset(-1, 0),
    mailbox::offset(1, -1),
    mailbox::offset(-1, -1),
    mailbox::offset(1, 1),
    mailbox::offset(-1, 1),
];

/// Whether burning spares a piece of this type (AMB-06).
fn burn_spares(exempt: BurnExempt, kind: PieceKind) -> bool {
    match exempt {
        BurnExempt::None => false,
        BurnExempt::PriestMonk => {
            matches!(kind, PieceKind::TaoistPriest | PieceKind::SpiritualMonk)
        }
        BurnExempt::PriestFamily => matches!(
            kind,
            PieceKind::TaoistPriest
                | PieceKind::SpiritualMonk
                | PieceKind::FiveLiFog
                | PieceKind::HolyLamp
        ),
    }
}

impl Position {
    #[inline]
    fn change(&mut self, undo: &mut Undo, mb: usize, new: u8) {
        let old = self.board[mb];
        if old != new {
            undo.record(mb, old);
            self.set_cell(mb, new);
        }
    }

    /// Plays a legal move and returns the record that [`Position::undo`] needs.
    pub fn play(&mut self, mv: &Move, opts: &RulesOptions) -> Undo {
        let mut undo = Undo::new(self);
        let us = self.side;
        let o = mailbox::to_mb(mv.origin().index());
        let mover_cell = self.board[o];
        debug_assert!(mover_cell != EMPTY, "no piece on the origin of {mv}");
        let mover = Piece::from_cell(mover_cell);
        let was_flame = mover.kind == PieceKind::PoisonFlame;
        // §9.2: legs, then shots.
        self.change(&mut undo, o, EMPTY);
        for leg in mv.legs() {
            let t = mailbox::to_mb(leg.index());
            self.change(&mut undo, t, EMPTY);
        }
        let dest = mailbox::to_mb(mv.destination().index());
        for shot in mv.shots() {
            self.change(&mut undo, mailbox::to_mb(shot.index()), EMPTY);
        }
        // §9.4: promotion of the mover.
        let promotes = mv.promotion() == Promotion::Promote;
        let final_piece = match (promotes, mover.kind.promotes_to()) {
            (true, Some(k)) => Piece {
                color: us,
                kind: k,
                promoted: true,
            },
            _ => mover,
        };
        self.change(&mut undo, dest, final_piece.to_cell());
        // §9.3: burning (a flame at the start of the move; AMB-08 optionally the new flame).
        let burns =
            was_flame || (opts.burn_on_promotion && final_piece.kind == PieceKind::PoisonFlame);
        // AMB-07 alternative: a stationary enemy flame burns the piece that ends next to it.
        let enemy_flame = Piece::new(us.opposite(), PieceKind::PoisonFlame).to_cell();
        let burned_by_enemy_flame = opts.flame_mode == FlameMode::TenjikuLike
            && self.count(us.opposite(), PieceKind::PoisonFlame) > 0
            && !burn_spares(opts.burn_exempt, final_piece.kind)
            && NEIGHBOURS
                .iter()
                .any(|&n| self.board[(dest as i32 + n) as usize] == enemy_flame);
        if burns {
            for n in NEIGHBOURS {
                let t = (dest as i32 + n) as usize;
                let cell = self.board[t];
                if cell == EMPTY || cell == mailbox::OFF_BOARD {
                    continue;
                }
                let victim = Piece::from_cell(cell);
                if victim.color == us && !opts.burn_friendly {
                    continue;
                }
                if !burn_spares(opts.burn_exempt, victim.kind) {
                    self.change(&mut undo, t, EMPTY);
                }
            }
        }
        if burned_by_enemy_flame {
            self.change(&mut undo, dest, EMPTY);
        }
        // §9.5: clerk cascade.
        if promotes && mover.kind == PieceKind::Clerk && !burned_by_enemy_flame {
            self.clerk_cascade(&mut undo, us);
        }
        // §9.6: priest consequences.
        for color in Color::ALL {
            if self.taoist_priest_lost(color)
                && self.count(color, PieceKind::Thunderclap)
                    + self.count(color, PieceKind::FlagWaver)
                    > 0
            {
                self.revert_all(&mut undo, color, PieceKind::Thunderclap, PieceKind::Drum);
                self.revert_all(&mut undo, color, PieceKind::FlagWaver, PieceKind::Banner);
            }
        }
        // §9.7: lamp dispels fog.
        self.lamp_dispels_fog(&mut undo, opts);
        self.side = us.opposite();
        self.hash ^= crate::zobrist::WHITE_TO_MOVE;
        // Wrapping: a KSFEN may set the counter near its top (move numbers up to 2^31), and a
        // counter that only numbers moves must not abort the game it numbers.
        self.ply = self.ply.wrapping_add(1);
        undo
    }

    /// Takes back the move that produced `undo`.
    pub fn undo(&mut self, undo: Undo) {
        for &(mb, old) in undo.spill.iter().rev() {
            self.set_cell(mb as usize, old);
        }
        for &(mb, old) in undo.changes[..undo.len as usize].iter().rev() {
            self.set_cell(mb as usize, old);
        }
        self.side = self.side.opposite();
        self.hash ^= crate::zobrist::WHITE_TO_MOVE;
        debug_assert_eq!(self.hash, undo.hash);
        self.hash = undo.hash;
        self.ply = undo.ply;
    }

    /// The position after `mv` (convenience; allocates a copy).
    pub fn after(&self, mv: &Move, opts: &RulesOptions) -> Position {
        let mut p = self.clone();
        p.play(mv, opts);
        p
    }

    fn clerk_cascade(&mut self, undo: &mut Undo, us: Color) {
        let them = us.opposite();
        let own: Vec<usize> = self.occupied(us).collect();
        for mb in own {
            let p = Piece::from_cell(self.board[mb]);
            let promoted = match p.kind {
                PieceKind::AdvanceGuard => PieceKind::SkywardNet,
                PieceKind::RearGuard => PieceKind::EarthwardNet,
                _ => continue,
            };
            self.change(
                undo,
                mb,
                Piece {
                    color: us,
                    kind: promoted,
                    promoted: true,
                }
                .to_cell(),
            );
        }
        if self.count(them, PieceKind::PoisonFlame) > 0 {
            let flame = Piece::new(them, PieceKind::PoisonFlame).to_cell();
            let theirs: Vec<usize> = self
                .occupied(them)
                .filter(|&mb| self.board[mb] == flame)
                .collect();
            for mb in theirs {
                self.change(undo, mb, EMPTY);
            }
        }
    }

    fn revert_all(&mut self, undo: &mut Undo, color: Color, from: PieceKind, to: PieceKind) {
        if self.count(color, from) == 0 {
            return;
        }
        let cell = Piece::new(color, from).to_cell();
        let found: Vec<usize> = self
            .occupied(color)
            .filter(|&mb| self.board[mb] == cell)
            .collect();
        for mb in found {
            self.change(
                undo,
                mb,
                Piece {
                    color,
                    kind: to,
                    promoted: false,
                }
                .to_cell(),
            );
        }
    }

    fn lamp_dispels_fog(&mut self, undo: &mut Undo, opts: &RulesOptions) {
        let fogs = self.count(Color::Black, PieceKind::FiveLiFog)
            + self.count(Color::White, PieceKind::FiveLiFog);
        let lamps = self.count(Color::Black, PieceKind::HolyLamp)
            + self.count(Color::White, PieceKind::HolyLamp);
        if fogs == 0 || lamps == 0 {
            return;
        }
        let mut fog_list = Vec::new();
        let mut lamp_list = Vec::new();
        for color in Color::ALL {
            for mb in self.occupied(color) {
                match Piece::from_cell(self.board[mb]).kind {
                    PieceKind::FiveLiFog => fog_list.push((mb, color)),
                    PieceKind::HolyLamp => lamp_list.push((mb, color)),
                    _ => {}
                }
            }
        }
        let reach: Reach = opts.lamp_reach;
        // Decide on the position at the end of the move, then revert (a reverted fog does not
        // change which other fogs are dispelled, except through line of sight — none: reverting
        // keeps the point occupied).
        let dispelled: Vec<(usize, Color)> = fog_list
            .into_iter()
            .filter(|&(f, fc)| {
                lamp_list.iter().any(|&(l, lc)| {
                    (opts.lamp_affects_own_fog || lc != fc)
                        && self.within_aura(f, l, reach, usize::MAX)
                })
            })
            .collect();
        for (mb, color) in dispelled {
            self.change(
                undo,
                mb,
                Piece {
                    color,
                    kind: PieceKind::TaoistPriest,
                    promoted: false,
                }
                .to_cell(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::{Color::*, PieceKind::*, *};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashSet;

    fn play_named(p: &mut Position, name: &str) -> Undo {
        let mv = p
            .legal_moves(&RulesOptions::default())
            .into_iter()
            .find(|m| m.to_string() == name)
            .unwrap_or_else(|| panic!("{name} not legal in {p:?}"));
        p.play(&mv, &RulesOptions::default())
    }

    #[test]
    fn poison_flame_burns_all_neighbours_of_either_colour() {
        let mut p = setup(
            &[
                ("10j", Black, PoisonFlame),
                ("9h", Black, Pawn),
                ("11h", White, Pawn),
                ("10g", White, Pawn),
                ("12j", White, Pawn),
            ],
            Black,
        );
        let before = p.clone();
        let u = play_named(&mut p, "10j-10i");
        assert_eq!(p.piece_at(sq("9h")), None);
        assert_eq!(p.piece_at(sq("11h")), None);
        assert!(p.piece_at(sq("10g")).is_some(), "not adjacent to 10i");
        assert!(p.piece_at(sq("12j")).is_some());
        assert_eq!(p.piece_at(sq("10i")).unwrap().kind, PoisonFlame);
        p.undo(u);
        assert_eq!(p, before);
        // burn_friendly = false spares the flame's own pieces
        let opts = RulesOptions {
            burn_friendly: false,
            ..Default::default()
        };
        let mv = p
            .legal_moves(&opts)
            .into_iter()
            .find(|m| m.to_string() == "10j-10i")
            .unwrap();
        p.play(&mv, &opts);
        assert!(p.piece_at(sq("9h")).is_some() && p.piece_at(sq("11h")).is_none());
    }

    #[test]
    fn engineer_promoting_to_a_flame_does_not_burn_by_default() {
        let mut p = setup(&[("10g", Black, Engineer), ("11e", White, Pawn)], Black);
        play_named(&mut p, "10g-10f+");
        assert_eq!(p.piece_at(sq("10f")).unwrap().kind, PoisonFlame);
        assert!(p.piece_at(sq("11e")).is_some());
        let mut p = setup(&[("10g", Black, Engineer), ("11e", White, Pawn)], Black);
        let opts = RulesOptions {
            burn_on_promotion: true,
            ..Default::default()
        };
        let mv = p
            .legal_moves(&opts)
            .into_iter()
            .find(|m| m.to_string() == "10g-10f+")
            .unwrap();
        p.play(&mv, &opts);
        assert!(p.piece_at(sq("11e")).is_none());
    }

    #[test]
    fn clerk_promotion_cascades_and_kills_enemy_flames() {
        let mut p = setup(
            &[
                ("10g", Black, Clerk),
                ("1s", Black, AdvanceGuard),
                ("19r", Black, RearGuard),
                ("5e", White, PoisonFlame),
                ("15m", Black, PoisonFlame),
            ],
            Black,
        );
        let before = p.clone();
        let u = play_named(&mut p, "10g-11f+");
        assert_eq!(p.piece_at(sq("11f")).unwrap().kind, MasterAtArms);
        assert_eq!(p.piece_at(sq("1s")).unwrap().kind, SkywardNet);
        assert_eq!(p.piece_at(sq("19r")).unwrap().kind, EarthwardNet);
        assert_eq!(p.piece_at(sq("5e")), None, "enemy flame dies");
        assert_eq!(
            p.piece_at(sq("15m")).unwrap().kind,
            PoisonFlame,
            "own flame lives"
        );
        p.undo(u);
        assert_eq!(p, before);
        assert_eq!(p.hash(), p.compute_hash());
    }

    #[test]
    fn losing_the_taoist_priest_reverts_thunderclap_and_flag_waver() {
        let mut p = setup(
            &[
                ("10j", Black, Chariot),
                ("10h", White, TaoistPriest),
                ("5e", White, Thunderclap),
                ("7c", White, FlagWaver),
            ],
            Black,
        );
        assert!(!p.taoist_priest_lost(White));
        play_named(&mut p, "10jx10h");
        assert!(p.taoist_priest_lost(White));
        assert_eq!(
            p.piece_at(sq("5e")).unwrap(),
            Piece {
                color: White,
                kind: Drum,
                promoted: false
            }
        );
        assert_eq!(
            p.piece_at(sq("7c")).unwrap(),
            Piece {
                color: White,
                kind: Banner,
                promoted: false
            }
        );
    }

    #[test]
    fn lamp_dispels_fog_and_both_promotion_choices_stay_legal() {
        // §14.2: a TB promoting within five of a holy lamp becomes a fog that reverts at once.
        let mut p = setup(
            &[("10h", Black, TaoistPriest), ("10b", White, HolyLamp)],
            Black,
        );
        let opts = RulesOptions::default();
        let moves: Vec<_> = p
            .legal_moves(&opts)
            .into_iter()
            .filter(|m| m.destination() == sq("10f"))
            .collect();
        assert_eq!(names(&moves), vec!["10h-10f+", "10h-10f="]);
        let a = p.after(&moves[0], &opts);
        let b = p.after(&moves[1], &opts);
        assert_eq!(a.to_ksfen(false), b.to_ksfen(false));
        assert_eq!(
            a.piece_at(sq("10f")).unwrap(),
            Piece::new(Black, TaoistPriest)
        );
        // own lamp too by default; not with lamp_affects_own_fog = false
        p = setup(
            &[("10h", Black, TaoistPriest), ("10b", Black, HolyLamp)],
            Black,
        );
        let own = RulesOptions {
            lamp_affects_own_fog: false,
            ..Default::default()
        };
        let mv = p
            .legal_moves(&own)
            .into_iter()
            .find(|m| m.to_string() == "10h-10f+")
            .unwrap();
        assert_eq!(
            p.after(&mv, &own).piece_at(sq("10f")).unwrap().kind,
            FiveLiFog
        );
        assert_eq!(
            p.after(&mv, &opts).piece_at(sq("10f")).unwrap().kind,
            TaoistPriest
        );
    }

    #[test]
    fn losing_the_drum_stops_pawns_forward_step() {
        let mut p = setup(
            &[
                ("10j", Black, Chariot),
                ("10h", White, Drum),
                ("5e", White, Pawn),
            ],
            Black,
        );
        play_named(&mut p, "10jx10h+");
        assert!(p.drum_lost(White));
        let n = names(&moves_from(&p, "5e"));
        assert!(!n.contains(&"5e-5f".to_string()));
        assert!(n.contains(&"5e-5d".to_string()));
    }

    #[test]
    fn igui_captures_without_moving() {
        let mut p = setup(&[("13s", Black, SumoWrestler), ("12r", White, Pawn)], Black);
        play_named(&mut p, "13sx12r-13s");
        assert_eq!(p.piece_at(sq("13s")).unwrap().kind, SumoWrestler);
        assert_eq!(p.piece_at(sq("12r")), None);
        assert_eq!(p.side_to_move(), White);
        assert_eq!(p.ply(), 1);
    }

    #[test]
    fn the_ply_counter_wraps_instead_of_overflowing() {
        let mut p = setup(&[("13s", Black, SumoWrestler), ("12r", White, Pawn)], White);
        p.set_ply(u32::MAX);
        let options = RulesOptions::default();
        let mv = p.legal_moves(&options)[0];
        let undo = p.play(&mv, &options);
        assert_eq!(p.ply(), 0);
        p.undo(undo);
        assert_eq!(p.ply(), u32::MAX);
    }

    /// Seeded random playouts, biased towards captures so that promotions, shots, burning and
    /// the end of the game are reached: apply/undo consistency, incremental hash = recomputed
    /// hash, KSFEN round trip, one move per effect, removed pieces really removed.
    #[test]
    fn random_playouts_keep_every_invariant() {
        let opts = RulesOptions::default();
        let mut rng = ChaCha8Rng::seed_from_u64(20261122);
        let mut moves = Vec::new();
        let mut total_plies = 0;
        let (mut shots, mut promotions, mut multi_leg, mut game_ends) = (0, 0, 0, 0);
        for _game in 0..300 {
            let mut p = Position::startpos();
            let mut stack: Vec<(Position, Undo)> = Vec::new();
            for _ply in 0..200 {
                moves.clear();
                p.generate_moves(&opts, &mut moves);
                if moves.is_empty() {
                    game_ends += 1;
                    break;
                }
                let mut seen = HashSet::new();
                for m in &moves {
                    assert!(
                        seen.insert((
                            m.origin(),
                            m.destination(),
                            m.removed_points(),
                            m.promotion()
                        )),
                        "duplicate {m} in {p:?}"
                    );
                }
                let captures: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
                let mv = if !captures.is_empty() && rng.random_bool(0.6) {
                    *captures[rng.random_range(0..captures.len())]
                } else {
                    moves[rng.random_range(0..moves.len())]
                };
                let before = p.clone();
                let mover = p.piece_at(mv.origin()).unwrap();
                let undo = p.play(&mv, &opts);
                total_plies += 1;
                shots += !mv.shots().is_empty() as usize;
                promotions += (mv.promotion() == Promotion::Promote) as usize;
                multi_leg += (mv.legs().len() > 1) as usize;
                assert_eq!(p.hash(), p.compute_hash(), "hash after {mv}");
                let text = p.to_ksfen(true);
                assert_eq!(Position::from_ksfen(&text).unwrap(), p, "{text}");
                let at_dest = p.piece_at(mv.destination()).unwrap();
                assert_eq!(at_dest.color, mover.color);
                for s in mv.removed_points() {
                    if s != mv.destination() {
                        assert_eq!(p.piece_at(s), None, "{mv} left a piece on {s}");
                    }
                }
                stack.push((before, undo));
            }
            while let Some((before, undo)) = stack.pop() {
                p.undo(undo);
                assert_eq!(p, before);
            }
        }
        assert!(total_plies > 10_000, "{total_plies}");
        // the playouts do reach the interesting parts of the rules
        assert!(
            shots > 100 && promotions > 100 && multi_leg > 100 && game_ends > 10,
            "{shots} {promotions} {multi_leg} {game_ends}"
        );
    }
}

#[cfg(test)]
mod random_position_tests {
    use crate::testutil::*;
    use crate::{Color, Piece, PieceKind, Position, RulesOptions, Square};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashSet;

    fn random_position(rng: &mut ChaCha8Rng) -> Position {
        let side = if rng.random_bool(0.5) {
            Color::Black
        } else {
            Color::White
        };
        let mut p = setup(&[], side);
        for _ in 0..rng.random_range(20..90) {
            let sq = Square::from_index(rng.random_range(0..Square::COUNT)).unwrap();
            let kind = PieceKind::ALL[rng.random_range(0..PieceKind::COUNT)];
            let color = if rng.random_bool(0.5) {
                Color::Black
            } else {
                Color::White
            };
            let promoted =
                kind.is_promoted_only() || (kind.can_carry_promoted_flag() && rng.random_bool(0.3));
            p.set_piece(
                sq,
                Some(Piece {
                    color,
                    kind,
                    promoted,
                }),
            );
        }
        p
    }

    /// Random positions with every piece type (nets, flames, fogs, lamps, thunderclaps …):
    /// every generated move has a distinct effect, its `x` legs and shots name enemy pieces, its
    /// `-` legs free points, and play/undo restores the position and hash exactly.
    #[test]
    fn every_move_of_random_positions_plays_and_undoes_exactly() {
        let opts = RulesOptions::default();
        let mut rng = ChaCha8Rng::seed_from_u64(314159);
        let mut checked = 0;
        for _ in 0..300 {
            let mut p = random_position(&mut rng);
            let moves = p.legal_moves(&opts);
            let mut seen = HashSet::new();
            let us = p.side_to_move();
            for mv in &moves {
                assert!(
                    seen.insert((
                        mv.origin(),
                        mv.destination(),
                        mv.removed_points(),
                        mv.promotion()
                    )),
                    "duplicate {mv} in {p:?}"
                );
                assert_eq!(p.piece_at(mv.origin()).unwrap().color, us);
                assert!(!p.is_immobilized(mv.origin()));
                for (i, leg) in mv.legs().iter().enumerate() {
                    let there = p.piece_at(*leg);
                    if mv.leg_captures(i) {
                        assert_eq!(there.map(|x| x.color), Some(us.opposite()), "{mv}");
                    } else if *leg != mv.origin() {
                        // a '-' leg lands on a free point, or on one freed earlier in the move
                        let freed = mv.legs()[..i]
                            .iter()
                            .enumerate()
                            .any(|(j, l)| l == leg && mv.leg_captures(j))
                            || mv.shots().contains(leg);
                        assert!(
                            there.is_none() || freed,
                            "{mv} lands on {leg} holding {there:?}"
                        );
                    }
                }
                for s in mv.shots() {
                    assert_eq!(p.piece_at(*s).map(|x| x.color), Some(us.opposite()), "{mv}");
                }
                let before = p.clone();
                let undo = p.play(mv, &opts);
                assert_eq!(p.hash(), p.compute_hash(), "{mv}");
                assert_eq!(Position::from_ksfen(&p.to_ksfen(true)).unwrap(), p);
                p.undo(undo);
                assert_eq!(p, before, "{mv}");
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}

#[cfg(test)]
mod flame_mode_tests {
    use crate::testutil::*;
    use crate::{Color::*, FlameMode, PieceKind::*, RulesOptions};

    #[test]
    fn tenjiku_like_flames_burn_pieces_that_end_next_to_them() {
        let tj = RulesOptions {
            flame_mode: FlameMode::TenjikuLike,
            ..Default::default()
        };
        // a chariot ending on 11i, next to White's flame on 12h
        let p = setup(
            &[("11k", Black, Chariot), ("12h", White, PoisonFlame)],
            Black,
        );
        let mv = p
            .legal_moves(&tj)
            .into_iter()
            .find(|m| m.to_string() == "11k-11i")
            .unwrap();
        assert!(p
            .after(&mv, &RulesOptions::default())
            .piece_at(sq("11i"))
            .is_some());
        assert!(p.after(&mv, &tj).piece_at(sq("11i")).is_none());
        // two flames meeting burn each other
        let p = setup(
            &[("11j", Black, PoisonFlame), ("12h", White, PoisonFlame)],
            Black,
        );
        let mv = p
            .legal_moves(&tj)
            .into_iter()
            .find(|m| m.to_string() == "11j-11i")
            .unwrap();
        let after = p.after(&mv, &tj);
        assert!(after.piece_at(sq("11i")).is_none() && after.piece_at(sq("12h")).is_none());
        let after = p.after(&mv, &RulesOptions::default());
        assert!(after.piece_at(sq("11i")).is_some() && after.piece_at(sq("12h")).is_none());
    }
}
