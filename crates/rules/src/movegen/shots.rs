//! Shots (§4.7, §7.2): direct, cannon and Frankish double shots after a move, adjacent
//! priest shots, fog suppression (§4.7.5).

use super::reach::{meets, shot_star};
use super::tables::{Shot, PRIME};
use super::{Gen, Mover};
use crate::mailbox::{EMPTY, OFF_BOARD};
use crate::options::ShotRange;
use crate::{Piece, PieceKind};

impl Gen<'_> {
    /// Shots from landing point `l` after a one-leg move, or from the origin for a stationary
    /// shot (AMB-01; then the move has no legs).
    pub(super) fn shots(
        &mut self,
        m: &Mover,
        shot: Shot,
        l: usize,
        captured: bool,
        trig: u8,
        stationary: bool,
    ) {
        let cap = captured as u8;
        let leg_buf = [l];
        let legs: &[usize] = if stationary { &[] } else { &leg_buf };
        if shot == Shot::Adjacent {
            for d in PRIME {
                let t = (l as i32 + d) as usize;
                let cell = self.cell(t);
                if self.is_enemy(cell) && t != m.o {
                    let tr = trig | self.shot_trigger(cell);
                    self.push(m, legs, cap, &[t], tr);
                }
            }
            return;
        }
        if shot == Shot::None {
            return;
        }
        let range = shot.range(self.opts.shot_range == ShotRange::FreePoints);
        // Every shot lands on an enemy piece on one of the eight lines within the range.
        if !meets(
            shot_star(l, range),
            &self.pos.occ[self.us.opposite().index()],
        ) {
            return;
        }
        if self.enemy_fog && self.suppressed(l, m.o) {
            return;
        }
        match shot {
            Shot::Bow(_) => {
                for d in PRIME {
                    if let Some((t, _)) = self.direct_target(m.o, l, d, 1, range, shot) {
                        let tr = trig | self.shot_trigger(self.cell(t));
                        self.push(m, legs, cap, &[t], tr);
                    }
                }
            }
            Shot::Cannon => {
                for d in PRIME {
                    let mut t = l as i32;
                    for _ in 0..range {
                        t += d;
                        let tu = t as usize;
                        let cell = self.cell(tu);
                        if cell == OFF_BOARD {
                            break;
                        }
                        if cell == EMPTY || tu == m.o {
                            continue;
                        }
                        let k = Self::kind_of(cell);
                        if matches!(k, PieceKind::ShieldUnit | PieceKind::HeavenlyFortress) {
                            break;
                        }
                        if self.is_enemy(cell) && k != PieceKind::FiveLiFog {
                            let tr = trig | self.shot_trigger(cell);
                            self.push(m, legs, cap, &[tu], tr);
                        }
                    }
                }
            }
            Shot::Frankish => {
                let mut first: [(usize, i32, i32); 8] = [(0, 0, 0); 8];
                let mut n = 0;
                for d in PRIME {
                    if let Some((t, dist)) = self.direct_target(m.o, l, d, 1, range, shot) {
                        first[n] = (t, d, dist);
                        n += 1;
                    }
                }
                for i in 0..n {
                    let (t1, d1, dist1) = first[i];
                    let tr1 = trig | self.shot_trigger(self.cell(t1));
                    self.push(m, legs, cap, &[t1], tr1);
                    // independent second shots, listed in ascending order
                    for &(t2, _, _) in &first[i + 1..n] {
                        let (a, b) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
                        let tr = tr1 | self.shot_trigger(self.cell(t2));
                        self.push(m, legs, cap, &[a, b], tr);
                    }
                    // the piece t1 was screening
                    if let Some((t2, _)) = self.direct_target(m.o, l, d1, dist1 + 1, range, shot) {
                        let tr = tr1 | self.shot_trigger(self.cell(t2));
                        self.push(m, legs, cap, &[t1, t2], tr);
                    }
                }
            }
            Shot::None | Shot::Adjacent => {}
        }
    }

    /// Nearest occupied point from `l` along `d` at line distance `from..=range` (the origin
    /// `o` counts as free); returns it with its distance if this shooter may shoot it (§7.2).
    #[inline]
    pub(super) fn direct_target(
        &self,
        o: usize,
        l: usize,
        d: i32,
        from: i32,
        range: i32,
        shot: Shot,
    ) -> Option<(usize, i32)> {
        let mut t = l as i32 + d * (from - 1);
        for dist in from..=range {
            t += d;
            let tu = t as usize;
            let cell = self.cell(tu);
            if cell == OFF_BOARD {
                return None;
            }
            if cell == EMPTY || tu == o {
                continue;
            }
            if !self.is_enemy(cell) {
                return None;
            }
            use PieceKind::*;
            let k = Self::kind_of(cell);
            let ok = match shot {
                Shot::Bow(_) => match k {
                    Shield | Chariot | ChariotUnit | ShieldUnit | HeavenlyFortress | FiveLiFog => {
                        false
                    }
                    WarCart | ChariotOfTheGods => !self.opts.cart_bow_immunity,
                    _ => true,
                },
                Shot::Frankish => match k {
                    ShieldUnit | HeavenlyFortress => false,
                    FiveLiFog => dist >= 6,
                    _ => true,
                },
                _ => true,
            };
            return ok.then_some((tu, dist));
        }
        None
    }

    /// §4.7.5: an enemy fog within reach of landing point `l` (the mover's origin `o` is free).
    pub(super) fn suppressed(&self, l: usize, o: usize) -> bool {
        let reach = self.opts.fog_reach;
        let them = self.us.opposite();
        let pos = self.pos;
        let fog_cell = Piece::new(them, PieceKind::FiveLiFog).to_cell();
        for f in pos.occupied(them) {
            if pos.board[f] == fog_cell && pos.within_aura(l, f, reach, o) {
                return true;
            }
        }
        false
    }
}
