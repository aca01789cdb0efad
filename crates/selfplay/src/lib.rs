//! koshogi-selfplay: the self-play worker pool.
//!
//! A worker advances many games at once through one [`koshogi_mcts::SearchDriver`], so every
//! network call gets a full batch; finished games go to replay shards (`koshogi_replay`) and,
//! optionally, to text game records (`koshogi_rules::game_record`). Settings:
//! [`SelfplayConfig`]; entry point: [`run_pool`]; a process's worker id among the workers of a
//! run: [`worker_id`].

pub mod config;
pub mod fixed_opponent;
pub mod network_player;
pub mod policy_target;
pub mod pool;
pub mod pool_opponent;
pub mod resign;
pub mod resign_calibration;
pub mod resign_review;
pub mod stats;
pub mod worker;
pub mod worker_id;

pub use config::{CapResult, OpponentStage, ResignConfig, SelfplayConfig};
pub use network_player::CheckpointFollowingEvaluator;
pub use pool::run_pool;
pub use pool_opponent::PoolRuntime;
pub use stats::{SelfplayStats, SelfplayTotals};
pub use worker::{run_worker, GameBudget, ModelSignals, WorkerContext};
pub use worker_id::{parse_worker_id, WorkerIdError};

use std::path::PathBuf;

/// Why self-play stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("search: {0}")]
    Search(#[from] koshogi_mcts::SearchError),
    #[error("evaluation: {0}")]
    Eval(#[from] koshogi_mcts::EvalError),
    #[error("replay shard: {0}")]
    Shard(#[from] koshogi_replay::ShardError),
    #[error("game record: {0}")]
    Record(String),
    #[error("{}: {message}", path.display())]
    BadShard { path: PathBuf, message: String },
    #[error("worker {0} panicked")]
    WorkerPanicked(usize),
}
