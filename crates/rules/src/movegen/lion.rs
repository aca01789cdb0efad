//! Two-leg lion-like moves (§4.6) — WR, DR, TW, HK, AM, BD, WH — and the cavalry's
//! restricted double leap (§5.10). Only paths through a free first landing point can share an
//! effect; they are de-duplicated by destination, smallest first landing first.

use super::tables::{self, KindMoves};
use super::{Gen, Mover};
use crate::mailbox::{self, EMPTY};
use crate::Color;

impl Gen<'_> {
    /// Two-leg lion moves over `atoms` (the one-leg moves of range pieces are already marked).
    pub(super) fn lion(&mut self, m: &Mover, atoms: &[i32]) {
        let o = m.o;
        // one leg
        for &a in atoms {
            let t = (o as i32 + a) as usize;
            if self.seen[t] == self.stamp {
                continue;
            }
            let cell = self.cell(t);
            if cell == EMPTY {
                self.seen[t] = self.stamp;
                self.push(m, &[t], 0, &[], 0);
            } else if self.is_enemy(cell) && self.displaceable(m, cell) {
                self.seen[t] = self.stamp;
                let trig = self.trigger(cell);
                self.push(m, &[t], 1, &[], trig);
            }
        }
        // two legs through an enemy: every path is its own effect
        for &a in atoms {
            let t = (o as i32 + a) as usize;
            let cell = self.cell(t);
            if !(self.is_enemy(cell) && self.displaceable(m, cell)) {
                continue;
            }
            let trig1 = self.trigger(cell);
            for &b in atoms {
                let d = (t as i32 + b) as usize;
                if d == o {
                    self.push(m, &[t, o], 1, &[], trig1);
                    continue;
                }
                let c2 = self.cell(d);
                if c2 == EMPTY {
                    self.push(m, &[t, d], 1, &[], trig1);
                } else if self.is_enemy(c2) && self.displaceable(m, c2) {
                    let trig = trig1 | self.trigger(c2);
                    self.push(m, &[t, d], 3, &[], trig);
                }
            }
        }
        // two legs through a free point: de-duplicate by destination, smallest first landing wins
        let mut passed = !self.opts.allow_pass;
        for &a in atoms {
            let t = (o as i32 + a) as usize;
            if self.cell(t) != EMPTY {
                continue;
            }
            for &b in atoms {
                let d = (t as i32 + b) as usize;
                if d == o {
                    if !passed {
                        passed = true;
                        self.push(m, &[t, o], 0, &[], 0);
                    }
                    continue;
                }
                if self.seen[d] == self.stamp {
                    continue;
                }
                let c2 = self.cell(d);
                if c2 == EMPTY {
                    self.seen[d] = self.stamp;
                    self.push(m, &[t, d], 0, &[], 0);
                } else if self.is_enemy(c2) && self.displaceable(m, c2) {
                    self.seen[d] = self.stamp;
                    let trig = self.trigger(c2);
                    self.push(m, &[t, d], 2, &[], trig);
                }
            }
        }
    }

    /// Cavalry (§5.10, AMB-32).
    pub(super) fn cavalry(&mut self, m: &Mover, km: &KindMoves) {
        let o = m.o;
        let sign = if self.us == Color::Black { 1 } else { -1 };
        // (offset, major) sorted by offset so that landing points ascend
        let mut leaps: [(i32, (i32, i32)); 8] = [(0, (0, 0)); 8];
        for (i, v) in tables::KNIGHT_VECTORS.iter().enumerate() {
            let mj = tables::knight_major(*v);
            leaps[i] = (sign * mailbox::offset(v.0, v.1), (sign * mj.0, sign * mj.1));
        }
        leaps.sort_unstable_by_key(|l| l.0);
        self.stamp += 1;
        for &j in &km.jumps {
            let t = (o as i32 + j) as usize;
            let cell = self.cell(t);
            if cell == EMPTY {
                self.push(m, &[t], 0, &[], 0);
            } else if self.is_enemy(cell) && self.displaceable(m, cell) {
                let trig = self.trigger(cell);
                self.push(m, &[t], 1, &[], trig);
            }
        }
        for through_enemy in [true, false] {
            let mut passed = !self.opts.allow_pass;
            for &(j1, major) in &leaps {
                let t = (o as i32 + j1) as usize;
                let cell = self.cell(t);
                let enemy = self.is_enemy(cell) && self.displaceable(m, cell);
                if through_enemy != enemy || (!enemy && cell != EMPTY) {
                    continue;
                }
                let trig1 = if enemy { self.trigger(cell) } else { 0 };
                let cap1 = enemy as u8;
                // AMB-17 alternative: a capture-triggered promotion to winged horse takes effect
                // at once, so the second leap may go in any direction.
                let promoted_mid_move =
                    self.opts.promote_mid_move && m.promotable && trig1 & super::TRIG_RULE1 != 0;
                for &(j2, major2) in &leaps {
                    let d = (t as i32 + j2) as usize;
                    if j2 == -j1 {
                        if enemy {
                            self.push(m, &[t, o], 1, &[], trig1);
                        } else if !passed {
                            passed = true;
                            self.push(m, &[t, o], 0, &[], 0);
                        }
                        continue;
                    }
                    if major2 != major && !promoted_mid_move {
                        continue;
                    }
                    if !enemy && self.seen[d] == self.stamp {
                        continue;
                    }
                    let c2 = self.cell(d);
                    if c2 == EMPTY {
                        if !enemy {
                            self.seen[d] = self.stamp;
                        }
                        self.push(m, &[t, d], cap1, &[], trig1);
                    } else if self.is_enemy(c2) && self.displaceable(m, c2) {
                        if !enemy {
                            self.seen[d] = self.stamp;
                        }
                        let trig = trig1 | self.trigger(c2);
                        self.push(m, &[t, d], cap1 | 2, &[], trig);
                    }
                }
            }
        }
    }
}
