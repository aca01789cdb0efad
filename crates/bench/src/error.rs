//! Why a benchmark stopped: one error type for the crate, so that the command line reports every
//! bench's failure the same way. An option the benchmark cannot run with is a message of its own
//! ([`BenchError::Options`]); the libraries' errors pass through unchanged.

use koshogi_arena::MatchError;
use koshogi_baselines::ClassicSpecError;
use koshogi_mcts::{EvalError, SearchError};
use koshogi_nn::NnError;
use koshogi_replay::ShardError;
use koshogi_train::TrainError;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An option out of range or naming nothing known; the message says which and what is
    /// accepted.
    #[error("{0}")]
    Options(String),
    /// `--settings` of `bench classic` is not what `classic@…` accepts.
    #[error("--settings")]
    ClassicSettings(#[source] ClassicSpecError),
    #[error(transparent)]
    Nn(#[from] NnError),
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error(transparent)]
    Match(#[from] MatchError),
    #[error("writing the benchmark shards")]
    Shards(#[source] ShardError),
    /// The training pipeline delivered something other than a batch.
    #[error("the sampler produced no batch: {0}")]
    NoBatch(String),
    /// A file or directory of the benchmark's own (temporary shards, checkpoint).
    #[error("{context}")]
    Files {
        context: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("saving the rules options")]
    Rules(#[source] serde_json::Error),
    /// The report could not be written to its writer.
    #[error("writing the report")]
    Output(#[from] std::io::Error),
}
