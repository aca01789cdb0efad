//! A self-play process's worker id among the workers of a run (`koshogi selfplay --worker-id`):
//! what an id may be, and what it changes — the names of the process's shards start with it and
//! its seed depends on it, so that workers with the run's fixed seed do not play the same games.
//! A worker of a stored run also takes a fresh seed at every start.

use std::hash::{BuildHasher, Hash, Hasher};

use crate::worker::WorkerContext;

/// The longest worker id.
pub const MAX_WORKER_ID_CHARS: usize = 16;

/// A text that is not a worker id.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("`{0}` is not a worker id: 1-16 characters of A-Z, a-z, 0-9 and _")]
pub struct WorkerIdError(pub String);

/// Checks a worker id: 1 to [`MAX_WORKER_ID_CHARS`] characters of `A-Z`, `a-z`, `0-9` and `_`.
pub fn parse_worker_id(text: &str) -> Result<String, WorkerIdError> {
    let ok = (1..=MAX_WORKER_ID_CHARS).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(text.to_string())
    } else {
        Err(WorkerIdError(text.to_string()))
    }
}

impl WorkerContext {
    /// Gives the workers of this process the id `id`: shard names start with it and the seed
    /// depends on it (two workers with the run's fixed seed would otherwise play the same games).
    pub fn name_worker(&mut self, id: &str) {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        id.hash(&mut hasher);
        self.seed ^= hasher.finish();
        self.writer_prefix = format!("{id}_");
    }

    /// A fresh seed, whatever the run's seed says: a worker of a stored run restarted after a
    /// crash must neither replay its games nor reuse its shard names (its sent shards have left
    /// the cache, so the sequence numbers start again).
    pub fn reseed_fresh(&mut self) {
        self.seed ^= {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u32(std::process::id());
            hasher.finish()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_ids_are_short_words() {
        assert_eq!(parse_worker_id("s3_a").unwrap(), "s3_a");
        assert_eq!(parse_worker_id(&"x".repeat(16)).unwrap(), "x".repeat(16));
        for bad in ["", "a-b", "é", &"x".repeat(17)] {
            let error = parse_worker_id(bad).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("`{bad}` is not a worker id: 1-16 characters of A-Z, a-z, 0-9 and _")
            );
        }
    }
}
