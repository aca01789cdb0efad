//! Moves made of chained orthogonal steps: the thunderclap (exactly five steps, §5.2, AMB-10)
//! and the flag waver (1–5 steps in one line, §5.2).

use super::tables::ORTH_ASC;
use super::{Gen, Mover};
use crate::mailbox::{EMPTY, OFF_BOARD};
use crate::options::ThunderclapMode;
use std::collections::HashSet;

impl Gen<'_> {
    /// Thunderclap (§5.2, AMB-10).
    pub(super) fn thunderclap(&mut self, m: &Mover) {
        match self.opts.thunderclap {
            ThunderclapMode::Free5 => {
                let mut seen: HashSet<(usize, [usize; 5])> = HashSet::new();
                let mut path = [0usize; 5];
                self.thunder_dfs(m, &mut seen, &mut path, 0, m.o, 0);
            }
            ThunderclapMode::Kosho => {
                for d1 in ORTH_ASC {
                    for d2 in ORTH_ASC {
                        if d2 == d1 || d2 == -d1 {
                            continue;
                        }
                        let steps = [d1, d1, d2, d2, -d1];
                        let mut path = [0usize; 5];
                        let mut mask = 0u8;
                        let mut trig = 0u8;
                        let mut t = m.o as i32;
                        let mut ok = true;
                        for (i, s) in steps.iter().enumerate() {
                            t += s;
                            let cell = self.cell(t as usize);
                            path[i] = t as usize;
                            if cell == EMPTY {
                                continue;
                            }
                            if self.is_enemy(cell) {
                                mask |= 1 << i;
                                trig |= self.trigger(cell);
                            } else {
                                ok = false;
                                break;
                            }
                        }
                        if ok {
                            self.push(m, &path, mask, &[], trig);
                        }
                    }
                }
            }
        }
    }

    pub(super) fn thunder_dfs(
        &mut self,
        m: &Mover,
        seen: &mut HashSet<(usize, [usize; 5])>,
        path: &mut [usize; 5],
        depth: usize,
        at: usize,
        mask: u8,
    ) {
        if depth == 5 {
            let mut removed = [0usize; 5];
            let mut trig = 0;
            for i in 0..5 {
                if mask & (1 << i) != 0 {
                    removed[i] = path[i];
                    trig |= self.trigger(self.cell(path[i]));
                }
            }
            removed.sort_unstable();
            if seen.insert((at, removed)) {
                let p = *path;
                self.push(m, &p, mask, &[], trig);
            }
            return;
        }
        for d in ORTH_ASC {
            let t = (at as i32 + d) as usize;
            let cell = self.cell(t);
            if cell == OFF_BOARD {
                continue;
            }
            // already captured on this path, or the vacated origin: free
            let captured_before = (0..depth).any(|i| path[i] == t && mask & (1 << i) != 0);
            let free = cell == EMPTY || t == m.o || captured_before;
            if free {
                path[depth] = t;
                self.thunder_dfs(m, seen, path, depth + 1, t, mask);
            } else if self.is_enemy(cell) {
                path[depth] = t;
                self.thunder_dfs(m, seen, path, depth + 1, t, mask | (1 << depth));
            }
        }
    }

    /// Flag waver (§5.2): 1–5 steps in one orthogonal line, capturing through.
    pub(super) fn flag_waver(&mut self, m: &Mover) {
        for d in ORTH_ASC {
            let mut path = [0usize; 5];
            let mut mask = 0u8;
            let mut trig = 0u8;
            let mut t = m.o as i32;
            for i in 0..5 {
                t += d;
                let cell = self.cell(t as usize);
                if cell == OFF_BOARD || (cell != EMPTY && !self.is_enemy(cell)) {
                    break;
                }
                path[i] = t as usize;
                if cell != EMPTY {
                    mask |= 1 << i;
                    trig |= self.trigger(cell);
                }
                self.push(m, &path[..=i], mask, &[], trig);
            }
        }
    }
}
