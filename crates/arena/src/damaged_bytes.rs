//! Test support: a file's bytes damaged the way a crash, a bad disk or a hand edit damages them
//! (bytes changed, inserted or removed, the tail cut off), for property tests of the readers of
//! files that a later start resumes from.

use proptest::prelude::*;
use proptest::sample::Index;

/// Up to seven edits at random places, then perhaps a cut.
#[derive(Clone, Debug)]
pub struct Damage {
    edits: Vec<(Index, u8, u8)>,
    cut: Option<Index>,
}

pub fn damage() -> impl Strategy<Value = Damage> {
    (
        prop::collection::vec((any::<Index>(), any::<u8>(), 0u8..3), 1..8),
        prop::option::of(any::<Index>()),
    )
        .prop_map(|(edits, cut)| Damage { edits, cut })
}

impl Damage {
    /// `bytes` with the damage done.
    pub fn apply(&self, mut bytes: Vec<u8>) -> Vec<u8> {
        for &(at, byte, kind) in &self.edits {
            let i = at.index(bytes.len() + 1);
            match kind {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ => {}
            }
        }
        if let Some(cut) = self.cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        bytes
    }
}
