//! The `pool` fixed opponent: the run's own recent checkpoints (`selfplay.fixed_opponent =
//! "pool:last=K"`).
//!
//! Why: a quarter of the games against `greedy` teach little once the network beats it (a
//! long run scored 83.5 % against it), and a stronger classical player from the start wins every
//! game (`ab:1`: 0.9 %), which teaches nothing either. An opponent drawn from the learner's own
//! last K checkpoints is about as strong as the learner all along and plays differently from
//! the newest weights (lc0 and KataGo keep learning against their own recent networks; AlphaStar's
//! league made the pool explicit).
//!
//! How: each pool game picks one of the last K checkpoints in `<run>/checkpoints/` when it
//! starts ([`pick_pool_step`]). Its moves are searched with the cheap search
//! (`selfplay.cheap_simulations`) on a separate evaluation thread that holds the picked
//! networks (at most K, loaded on first use), one move at a time: the worker's other games wait
//! meanwhile, as they do for a classical opponent. Only the learner's positions are recorded.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use koshogi_mcts::{
    DriverConfig, EvalError, EvalRequest, EvalThread, Evaluation, Evaluator, Search, SearchConfig,
    SearchDriver,
};
use koshogi_nn::{InferenceModel, NetworkEvaluator, RuntimeConfig};
use koshogi_rules::{Game, Move};
use koshogi_run_store::layout::{checkpoint_dir_name, MODEL_CARD_FILE};
use koshogi_run_store::local_checkpoints::list_checkpoints;
use rand::Rng;

use crate::SelfplayError;

/// How the pool's networks run: the same runtime and intra-op threads as the learner's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolRuntime {
    pub runtime: RuntimeConfig,
    pub intra_op_threads: i32,
}

/// The step of one of the last `last` checkpoints in `checkpoints`, uniformly; `None` when
/// there is none yet (the caller then lets the learner play both sides).
pub fn pick_pool_step(checkpoints: &Path, last: u32, rng: &mut impl Rng) -> Option<u64> {
    let steps: Vec<u64> = match list_checkpoints(checkpoints) {
        Ok(list) => list.into_iter().map(|c| c.step).collect(),
        Err(e) => {
            tracing::warn!("pool opponent: cannot list {}: {e}", checkpoints.display());
            return None;
        }
    };
    let start = steps.len().saturating_sub(last as usize);
    let candidates = &steps[start..];
    (!candidates.is_empty()).then(|| candidates[rng.random_range(0..candidates.len())])
}

/// Plays the pool's moves: a search driver over the pool's evaluation thread.
pub struct PoolPlayer {
    driver: SearchDriver<Game>,
    /// The checkpoint step the evaluation thread answers with.
    selected: Arc<AtomicU64>,
    search: SearchConfig,
}

impl PoolPlayer {
    /// Starts the evaluation thread (no network loaded yet). `search` is the self-play search
    /// with its simulations set to the cheap count; `last` bounds the networks held.
    pub fn start(
        checkpoints: PathBuf,
        runtime: PoolRuntime,
        search: SearchConfig,
        last: u32,
    ) -> Result<Self, SelfplayError> {
        let selected = Arc::new(AtomicU64::new(0));
        let eval = {
            let selected = selected.clone();
            EvalThread::spawn(move || {
                koshogi_nn::set_intra_op_threads(runtime.intra_op_threads);
                Ok(PoolEvaluator {
                    checkpoints,
                    runtime: runtime.runtime,
                    selected,
                    held: VecDeque::new(),
                    capacity: last.max(1) as usize,
                    answering: None,
                    generation: 0,
                })
            })
            .map_err(SelfplayError::Eval)?
        };
        // One search at a time, and no cache: its entries would mix the pool's networks.
        let driver = SearchDriver::new(
            eval,
            DriverConfig {
                cache_entries: 0,
                pipelined: false,
            },
        );
        Ok(Self {
            driver,
            selected,
            search,
        })
    }

    /// The move the checkpoint at `step` plays in `game` (`None`: no legal move).
    pub fn choose_move(
        &mut self,
        game: &Game,
        step: u64,
        seed: u64,
    ) -> Result<Option<Move>, SelfplayError> {
        if game.legal_moves().is_empty() {
            return Ok(None);
        }
        self.selected.store(step, Ordering::Relaxed);
        let mut search = Search::new(game.clone(), self.search.clone(), seed);
        search.start().map_err(SelfplayError::Search)?;
        self.driver
            .run(std::slice::from_mut(&mut search))
            .map_err(SelfplayError::Eval)?;
        let result = search.result().map_err(SelfplayError::Search)?;
        Ok(Some(result.chosen_move))
    }
}

/// The pool's networks on their evaluation thread, answering with the selected one.
struct PoolEvaluator {
    checkpoints: PathBuf,
    runtime: RuntimeConfig,
    selected: Arc<AtomicU64>,
    /// Loaded networks by step, oldest first (at most `capacity`).
    held: VecDeque<(u64, NetworkEvaluator)>,
    capacity: usize,
    /// The step of the network that answered last.
    answering: Option<u64>,
    generation: u64,
}

impl PoolEvaluator {
    /// The index in `held` of the network for `step`, loading it if needed. A checkpoint that
    /// cannot be loaded (pruned since it was picked, say) is replaced by the newest one held.
    fn network_for(&mut self, step: u64) -> Result<usize, EvalError> {
        if let Some(i) = self.held.iter().position(|(s, _)| *s == step) {
            return Ok(i);
        }
        let card = self
            .checkpoints
            .join(checkpoint_dir_name(step))
            .join(MODEL_CARD_FILE);
        match InferenceModel::load(&card, &self.runtime) {
            Ok((model, _)) => {
                if self.held.len() >= self.capacity {
                    self.held.pop_front();
                }
                self.held.push_back((step, NetworkEvaluator::new(model)));
                Ok(self.held.len() - 1)
            }
            Err(e) if !self.held.is_empty() => {
                tracing::warn!(
                    "pool opponent: cannot load {} ({e}); playing a checkpoint already loaded",
                    card.display()
                );
                Ok(self.held.len() - 1)
            }
            Err(e) => Err(EvalError::Failed(format!(
                "pool opponent: cannot load {}: {e}",
                card.display()
            ))),
        }
    }
}

impl Evaluator<Game> for PoolEvaluator {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<Game>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        let step = self.selected.load(Ordering::Relaxed);
        let index = self.network_for(step)?;
        let answering = self.held[index].0;
        if self.answering != Some(answering) {
            self.answering = Some(answering);
            self.generation += 1;
        }
        self.held[index].1.evaluate(requests, out)
    }

    fn generation(&self) -> u64 {
        self.generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn picks_among_the_last_checkpoints_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(pick_pool_step(dir.path(), 3, &mut rng), None);
        for step in [0u64, 200, 400, 600, 800] {
            std::fs::create_dir_all(dir.path().join(checkpoint_dir_name(step))).unwrap();
        }
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            seen.insert(pick_pool_step(dir.path(), 3, &mut rng).unwrap());
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![400, 600, 800]);
    }
}
