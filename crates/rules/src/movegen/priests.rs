//! The five-li fog and holy lamp (§5.6): up to two priest jumps, each optionally followed by
//! an adjacent shot, de-duplicated on (final point, removed set).

use super::tables::{KindMoves, PRIME};
use super::{is_priest_family, Gen, Mover};
use crate::mailbox::EMPTY;
use crate::options::{ShootMode, ShotAfterCapture};
use std::collections::HashSet;

impl Gen<'_> {
    /// Five-li fog and holy lamp (§5.6): up to two jumps, each optionally followed by an adjacent
    /// shot. Effects are de-duplicated on (final point, removed set).
    pub(super) fn priest_double(&mut self, m: &Mover, km: &KindMoves) {
        let o = m.o;
        let mut jumps = km.jumps.clone();
        jumps.sort_unstable();
        let mut seen: HashSet<(usize, [usize; 4])> = HashSet::new();
        let shoot_after_capture = self.opts.shot_after_capture != ShotAfterCapture::Never;
        let shoot_at_stops = self.opts.shoot_mode != ShootMode::StationaryOnly;
        let allow_pass = self.opts.allow_pass;
        // Each candidate: legs, capture mask, shots (≤2), trigger bits.
        let mut emit = |gen: &mut Self, legs: &[usize], mask: u8, shots: &[usize], trig: u8| {
            let mut removed = [usize::MAX; 4];
            let mut n = 0;
            for (i, &l) in legs.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    removed[n] = l;
                    n += 1;
                }
            }
            for &s in shots {
                removed[n] = s;
                n += 1;
            }
            removed.sort_unstable();
            if seen.insert((legs.last().copied().unwrap_or(o), removed)) {
                let mut sh = [0usize; 2];
                sh[..shots.len()].copy_from_slice(shots);
                let sh = &mut sh[..shots.len()];
                sh.sort_unstable();
                gen.push(m, legs, mask, sh, trig);
            }
        };
        let valid = |gen: &Self, t: usize| -> Option<bool> {
            let cell = gen.cell(t);
            if cell == EMPTY || t == o {
                Some(false)
            } else if gen.is_enemy(cell) && is_priest_family(Self::kind_of(cell)) {
                Some(true)
            } else {
                None
            }
        };
        // shot options at a landing point: None, or each adjacent enemy
        let shots_at = |gen: &Self, l: usize, exclude: usize| -> ([usize; 8], usize) {
            let mut v = [0usize; 8];
            let mut n = 0;
            for d in PRIME {
                let t = (l as i32 + d) as usize;
                if t != exclude && t != o && gen.is_enemy(gen.cell(t)) {
                    v[n] = t;
                    n += 1;
                }
            }
            (v, n)
        };
        // AMB-01 alternatives: a stationary adjacent shot (no legs) is the shortest path of its
        // effect, so it goes first and a pass-with-shot of the same effect is not generated.
        if self.opts.shoot_mode != ShootMode::MoveThenShoot {
            let (sv, sn) = shots_at(self, o, usize::MAX);
            for &s in &sv[..sn] {
                let trig = self.shot_trigger(self.cell(s));
                emit(self, &[], 0, &[s], trig);
            }
        }
        for pass in 0..2 {
            for &j1 in &jumps {
                let a = (o as i32 + j1) as usize;
                let Some(cap1) = valid(self, a) else { continue };
                let trig_a = if cap1 { self.trigger(self.cell(a)) } else { 0 };
                let (s1v, s1n) = if shoot_at_stops && (!cap1 || shoot_after_capture) {
                    shots_at(self, a, usize::MAX)
                } else {
                    ([0; 8], 0)
                };
                let s1_options = std::iter::once(None).chain(s1v[..s1n].iter().copied().map(Some));
                for s1 in s1_options {
                    let trig1 = trig_a | s1.map_or(0, |s| self.shot_trigger(self.cell(s)));
                    let s1_slice: &[usize] = match &s1 {
                        Some(s) => std::slice::from_ref(s),
                        None => &[],
                    };
                    if pass == 0 {
                        emit(self, &[a], cap1 as u8, s1_slice, trig1);
                        continue;
                    }
                    for &j2 in &jumps {
                        let d = (a as i32 + j2) as usize;
                        let Some(cap2) = valid(self, d) else { continue };
                        let is_pass = d == o && !cap1 && s1.is_none();
                        let trig2 = trig1 | if cap2 { self.trigger(self.cell(d)) } else { 0 };
                        let mask = cap1 as u8 | (cap2 as u8) << 1;
                        if !is_pass || allow_pass {
                            emit(self, &[a, d], mask, s1_slice, trig2);
                        }
                        if !shoot_at_stops || (cap2 && !shoot_after_capture) {
                            continue;
                        }
                        let (s2v, s2n) = shots_at(self, d, s1.unwrap_or(usize::MAX));
                        for &s2 in &s2v[..s2n] {
                            let mut shots = [0usize; 2];
                            let mut ns = 0;
                            if let Some(s) = s1 {
                                shots[0] = s;
                                ns = 1;
                            }
                            shots[ns] = s2;
                            ns += 1;
                            let trig = trig2 | self.shot_trigger(self.cell(s2));
                            emit(self, &[a, d], mask, &shots[..ns], trig);
                        }
                    }
                }
            }
        }
    }
}
