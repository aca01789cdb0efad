//! Shared by the self-play integration tests: the worker context of a test run.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use koshogi_mcts::{DriverConfig, SearchConfig};
use koshogi_replay::Provenance;
use koshogi_rules::RulesOptions;
use koshogi_selfplay::{GameBudget, ModelSignals, SelfplayConfig, SelfplayStats, WorkerContext};

/// A worker context over `run_dir` for `games` games of `config`, each search `simulations`
/// visits, the model steps signalled in `model`, every random choice fixed by `seed`; default
/// driver and rules, no writer prefix, no pool runtime.
pub fn worker_context(
    run_dir: &Path,
    config: SelfplayConfig,
    games: u64,
    simulations: u32,
    model: Arc<ModelSignals>,
    seed: u64,
) -> WorkerContext {
    WorkerContext {
        config,
        search: SearchConfig {
            simulations,
            ..SearchConfig::default()
        },
        driver: DriverConfig::default(),
        rules: RulesOptions::default(),
        run_dir: run_dir.to_path_buf(),
        provenance: Provenance::default(),
        stats: Arc::new(SelfplayStats::default()),
        budget: Arc::new(GameBudget::new(Some(games))),
        stop: Arc::new(AtomicBool::new(false)),
        model,
        seed,
        writer_prefix: String::new(),
        pool_runtime: None,
    }
}
