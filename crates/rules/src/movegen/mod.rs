//! Legal move generation (§4–§9, checklist §13.2): one canonical move per effect (§4.10, §11.2).
//!
//! Works on the padded mailbox. Effects of multi-leg moves are de-duplicated per piece: two-leg
//! lion moves with a stamp array over destinations (paths through an empty first landing point
//! are the only ones that can coincide), the thunderclap and the fog/lamp with a small hash set.
//! Paths are enumerated in ascending landing-point order, so the first path met for an effect is
//! the canonical (shortlex) one.

mod captures;
mod lion;
mod orthogonal_chains;
mod priests;
mod reach;
mod shots;
pub(crate) mod tables;

use crate::mailbox::{self, CELLS, EMPTY, OFF_BOARD};
use crate::options::{GuardsPromote, ShootMode, ShotAfterCapture, ZonePromotion, ZoneTrigger};
use crate::position::OCC_WORDS;
use crate::{Color, Move, Piece, PieceKind, Position, Promotion, RulesOptions, Square};
use reach::REACH;
use tables::{Displace, KindMoves, Shot, Special, FORTRESS_FLYING_OX, TABLES};

/// Capture-trigger classes (§8.4).
const TRIG_RULE1: u8 = 1;
const TRIG_RULE2: u8 = 2;
const TRIG_FW: u8 = 4;

pub(crate) use captures::{generate_captures, generate_captures_removing};

/// Appends every legal move of the side to move to `out`.
pub(crate) fn generate(pos: &Position, opts: &RulesOptions, out: &mut Vec<Move>) {
    generate_filtered(pos, opts, out, Selection::All);
}

/// Which of the legal moves a generation appends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Selection {
    All,
    /// Those that remove an enemy piece ([`Move::is_capture`]; see [`captures`]).
    Captures,
    /// The captures of pieces that may reach this mailbox cell ([`reach::Reach`]); the caller
    /// keeps those that remove the piece there.
    CapturesNear(usize),
}

/// Appends the legal moves of the side to move that `selection` asks for, in the order of full
/// generation.
fn generate_filtered(
    pos: &Position,
    opts: &RulesOptions,
    out: &mut Vec<Move>,
    selection: Selection,
) {
    let us = pos.side;
    if !pos.survives(us, opts) || !pos.survives(us.opposite(), opts) {
        return; // §14.2
    }
    STAMPS.with_borrow_mut(|stamps| {
        stamps.renew();
        let mut gen = Gen::new(pos, opts, out, stamps);
        gen.captures_only = selection != Selection::All;
        let frozen = pos.immobilized_set(us, opts.net_scope);
        let near = match selection {
            Selection::CapturesNear(target) => {
                Some((&REACH[us.index()], mailbox::file_rank(target)))
            }
            _ => None,
        };
        for o in pos.occupied(us) {
            if frozen[o / 64] & (1u64 << (o % 64)) != 0 {
                continue;
            }
            if let Some((reach, target)) = near {
                let index = gen.table_index(Piece::from_cell(gen.cell(o)).kind);
                if !reach[index].may_remove(o, target) {
                    continue;
                }
            }
            gen.piece(o);
        }
        let last = gen.stamp;
        stamps.last = last;
    });
}

/// The lion moves' destination stamps (see the module header), kept between generations so
/// that a generation does not clear 529 cells first: each lion-like piece takes the next
/// stamp, which no cell holds yet.
struct Stamps {
    seen: [u32; CELLS],
    /// The stamp the last generation ended with.
    last: u32,
}

impl Stamps {
    /// Clears the cells before the stamps could wrap around (no generation takes a million).
    fn renew(&mut self) {
        if self.last > u32::MAX - 1_000_000 {
            self.seen = [0; CELLS];
            self.last = 0;
        }
    }
}

thread_local! {
    static STAMPS: std::cell::RefCell<Stamps> = const {
        std::cell::RefCell::new(Stamps {
            seen: [0; CELLS],
            last: 0,
        })
    };
}

/// Per-piece facts used while emitting its moves.
#[derive(Clone, Copy)]
struct Mover {
    o: usize,
    kind: PieceKind,
    promotable: bool,
    step_mover: bool,
    displace: Displace,
    can_displace: bool,
}

struct Gen<'a> {
    pos: &'a Position,
    opts: &'a RulesOptions,
    out: &'a mut Vec<Move>,
    us_bit: u8,
    us: Color,
    table: &'a [KindMoves],
    drum_present: bool,
    priest_lost: bool,
    enemy_fog: bool,
    /// Lion destinations of the current piece: cells holding `stamp` ([`Stamps`]).
    seen: &'a mut [u32; CELLS],
    stamp: u32,
    /// Emit only moves that remove an enemy piece ([`captures`]).
    captures_only: bool,
}

#[inline]
fn sq(mb: usize) -> Square {
    mailbox::to_sq(mb)
}

impl<'a> Gen<'a> {
    fn new(
        pos: &'a Position,
        opts: &'a RulesOptions,
        out: &'a mut Vec<Move>,
        stamps: &'a mut Stamps,
    ) -> Gen<'a> {
        let us = pos.side;
        Gen {
            pos,
            opts,
            out,
            us_bit: us as u8,
            us,
            table: &TABLES[us.index()],
            drum_present: pos.drum_present(us, opts),
            priest_lost: pos.taoist_priest_lost(us),
            enemy_fog: pos.count(us.opposite(), PieceKind::FiveLiFog) > 0,
            seen: &mut stamps.seen,
            stamp: stamps.last,
            captures_only: false,
        }
    }

    #[inline]
    fn cell(&self, mb: usize) -> u8 {
        self.pos.board[mb]
    }

    #[inline]
    fn is_enemy(&self, cell: u8) -> bool {
        cell != EMPTY && cell != OFF_BOARD && (cell - 1) & 1 != self.us_bit
    }

    #[inline]
    fn kind_of(cell: u8) -> PieceKind {
        PieceKind::ALL[((cell - 1) >> 2) as usize]
    }

    /// May `m` end a leg on the enemy piece `cell` (§7.1)?
    #[inline]
    fn displaceable(&self, m: &Mover, cell: u8) -> bool {
        if !m.can_displace {
            return false;
        }
        match m.displace {
            Displace::Any => true,
            Displace::PriestFamilyOnly => is_priest_family(Self::kind_of(cell)),
            Displace::NotFortress => Self::kind_of(cell) != PieceKind::HeavenlyFortress,
        }
    }

    /// Capture-trigger bits of capturing the piece `cell` (§8.4, AMB-13, AMB-16).
    #[inline]
    fn trigger(&self, cell: u8) -> u8 {
        use PieceKind::*;
        match Self::kind_of(cell) {
            General | MiddleTroop | Banner | Drum => TRIG_RULE1,
            Governor if self.opts.governor_triggers_rule1 => TRIG_RULE1,
            Governor => 0,
            SumoWrestler | DragonAscending => TRIG_RULE2,
            FlagWaver | Thunderclap => {
                TRIG_RULE2
                    | if self.opts.rule1_includes_promoted {
                        TRIG_RULE1
                    } else {
                        0
                    }
            }
            FrankishCannon => TRIG_FW,
            _ => 0,
        }
    }

    #[inline]
    fn shot_trigger(&self, cell: u8) -> u8 {
        if self.opts.shots_trigger_promotion {
            self.trigger(cell)
        } else {
            0
        }
    }

    #[inline]
    fn in_zone(&self, mb: usize) -> bool {
        let rank = mb as i32 / mailbox::WIDTH - 1;
        match self.us {
            Color::Black => rank <= 6,
            Color::White => rank >= 14,
        }
    }

    /// Pushes the move (with its promotion variants, §8.2/§8.4).
    /// The promotion options of a move (§8.2, §8.4): the decision, and whether a second move
    /// with [`Promotion::Decline`] must be generated.
    #[inline]
    fn promotion_for(&self, m: &Mover, dest: usize, trig: u8) -> (Promotion, bool) {
        if !m.promotable {
            return (Promotion::None, false);
        }
        let mandatory = trig & TRIG_RULE1 != 0
            || (m.step_mover && trig & TRIG_RULE2 != 0)
            || (m.kind == PieceKind::HorseSoldier && trig & TRIG_FW != 0);
        if mandatory {
            return (Promotion::Promote, false);
        }
        let zone = match self.opts.zone_trigger {
            ZoneTrigger::EndInZone => self.in_zone(dest),
            ZoneTrigger::StartOrEnd => self.in_zone(dest) || self.in_zone(m.o),
            ZoneTrigger::EnterOnly => self.in_zone(dest) && !self.in_zone(m.o),
        };
        if !zone {
            return (Promotion::None, false);
        }
        (
            Promotion::Promote,
            self.opts.zone_promotion == ZonePromotion::Optional,
        )
    }

    /// Pushes the move (with its promotion variants, §8.2/§8.4).
    #[inline(always)]
    fn push(&mut self, m: &Mover, legs: &[usize], cap_mask: u8, shots: &[usize], trig: u8) {
        if self.captures_only && cap_mask == 0 && shots.is_empty() {
            return;
        }
        let dest = legs.last().copied().unwrap_or(m.o);
        let (promotion, also_decline) = self.promotion_for(m, dest, trig);
        let mv = if legs.len() == 1 && shots.is_empty() {
            Move::single(sq(m.o), sq(legs[0]), cap_mask != 0, promotion)
        } else {
            let mut leg_sq = [Square::default(); crate::moves::MAX_LEGS];
            for (i, &l) in legs.iter().enumerate() {
                leg_sq[i] = sq(l);
            }
            let mut shot_sq = [Square::default(); crate::moves::MAX_SHOTS];
            for (i, &s) in shots.iter().enumerate() {
                shot_sq[i] = sq(s);
            }
            Move::raw(
                sq(m.o),
                &leg_sq[..legs.len()],
                cap_mask,
                &shot_sq[..shots.len()],
                promotion,
            )
        };
        self.out.push(mv);
        if also_decline {
            self.out.push(mv.with_promotion(Promotion::Decline));
        }
    }

    /// The movement table of `kind` (the heavenly fortress has two, AMB-20).
    #[inline]
    fn table_index(&self, kind: PieceKind) -> usize {
        if kind == PieceKind::HeavenlyFortress
            && self.opts.fortress_move == crate::options::FortressMove::FlyingOx
        {
            FORTRESS_FLYING_OX
        } else {
            kind.index()
        }
    }

    fn piece(&mut self, o: usize) {
        let piece = Piece::from_cell(self.cell(o));
        let kind = piece.kind;
        let blocked = matches!(kind, PieceKind::Drum | PieceKind::Banner) && self.priest_lost;
        let guard_blocked =
            self.opts.guards_promote == GuardsPromote::CascadeOnly && is_guard(kind);
        let index = self.table_index(kind);
        let table: &'a [KindMoves] = self.table;
        let km = &table[index];
        let is_artillery = matches!(km.shot, Shot::Bow(_) | Shot::Cannon | Shot::Frankish);
        let m = Mover {
            o,
            kind,
            promotable: piece.can_ever_promote() && !blocked && !guard_blocked,
            step_mover: kind.is_step_mover(),
            displace: km.displace,
            can_displace: !is_artillery || self.opts.artillery_displacement,
        };
        match km.special {
            Special::None => {}
            Special::Pawn => {
                if self.drum_present {
                    let f = mailbox::offset(0, tables::forward(self.us));
                    self.single(&m, km, (o as i32 + f) as usize);
                }
            }
            Special::Cavalry => return self.cavalry(&m, km),
            Special::Thunderclap => return self.thunderclap(&m),
            Special::FlagWaver => return self.flag_waver(&m),
            Special::PriestDouble => return self.priest_double(&m, km),
        }
        if km.shot != Shot::None && self.opts.shoot_mode != ShootMode::MoveThenShoot {
            self.shots(&m, km.shot, o, false, 0, true);
        }
        let lion = !km.lion.is_empty();
        if lion {
            self.stamp += 1;
        }
        for &s in &km.steps {
            self.single(&m, km, (o as i32 + s) as usize);
        }
        for &j in &km.jumps {
            self.single(&m, km, (o as i32 + j) as usize);
        }
        for &(d, limit) in &km.slides {
            let mut t = o as i32;
            for _ in 0..limit {
                t += d;
                let cell = self.cell(t as usize);
                if cell == EMPTY {
                    if lion {
                        self.seen[t as usize] = self.stamp;
                    }
                    if !self.captures_only || self.may_shoot_after_moving(km) {
                        self.emit_single(&m, km, t as usize, false, 0);
                    }
                    continue;
                }
                if self.is_enemy(cell) && self.displaceable(&m, cell) {
                    if lion {
                        self.seen[t as usize] = self.stamp;
                    }
                    let trig = self.trigger(cell);
                    self.emit_single(&m, km, t as usize, true, trig);
                }
                break;
            }
        }
        if lion {
            self.lion(&m, &km.lion);
        }
    }

    /// One step or jump to `t`.
    #[inline]
    fn single(&mut self, m: &Mover, km: &KindMoves, t: usize) {
        let cell = self.cell(t);
        if cell == EMPTY {
            if !self.captures_only || self.may_shoot_after_moving(km) {
                self.emit_single(m, km, t, false, 0);
            }
        } else if self.is_enemy(cell) && self.displaceable(m, cell) {
            let trig = self.trigger(cell);
            self.emit_single(m, km, t, true, trig);
        }
    }

    /// Whether a one-leg move of a piece of `km` to an empty point may be followed by shots
    /// (so that a captures-only generation must still walk there).
    #[inline]
    fn may_shoot_after_moving(&self, km: &KindMoves) -> bool {
        km.shot != Shot::None && self.opts.shoot_mode != ShootMode::StationaryOnly
    }

    /// A one-leg move to `t`, followed by the optional shots of a shooter (§4.7.2).
    #[inline]
    fn emit_single(&mut self, m: &Mover, km: &KindMoves, t: usize, captured: bool, trig: u8) {
        self.push(m, &[t], captured as u8, &[], trig);
        if km.shot == Shot::None || self.opts.shoot_mode == ShootMode::StationaryOnly {
            return;
        }
        let may_shoot = match km.shot {
            Shot::Adjacent => {
                !(captured && self.opts.shot_after_capture == ShotAfterCapture::Never)
            }
            _ => !captured || self.opts.shot_after_capture == ShotAfterCapture::Always,
        };
        if may_shoot {
            self.shots(m, km.shot, t, captured, trig, false);
        }
    }
}

#[inline]
fn is_priest_family(k: PieceKind) -> bool {
    matches!(
        k,
        PieceKind::TaoistPriest
            | PieceKind::SpiritualMonk
            | PieceKind::FiveLiFog
            | PieceKind::HolyLamp
    )
}

#[inline]
fn is_guard(k: PieceKind) -> bool {
    matches!(k, PieceKind::AdvanceGuard | PieceKind::RearGuard)
}

const _: () = assert!(OCC_WORDS * 64 >= CELLS);

#[cfg(test)]
mod tests;
