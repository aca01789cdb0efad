//! koshogi-nn: the neural network of koshogi-zero.
//!
//! * [`features`]: a position as input planes, from the side to move's view
//!   (`docs/input-features.md`).
//! * [`move_encoding`]: every legal move as a short list of (plane, point) legs of the policy
//!   output, its logit the sum of its legs (`docs/move-encoding.md`).
//!
//!   Both, with [`geometry`], live in `koshogi-encoding` (no libtorch, so the Python package can
//!   use them) and are re-exported here under their old paths.
//! * [`model`]: the residual network (tch), [`config`] its serde configuration;
//!   [`counted_material`]: the material balance counted from the input planes, which the
//!   value head may read.
//! * [`inference`]: batched evaluation for the search (probabilities over legal moves only);
//!   [`search_evaluator`]: that evaluation as the search's `Evaluator`, on its own thread.
//! * [`training_step`]: batches and losses for the trainer; [`working_copy`]: the bfloat16
//!   copy it trains through on CPUs with AMX.
//! * [`checkpoint`]: safetensors weights + JSON model card, checked on load.
//! * [`hardware`]: AMX (the fast bfloat16) and peak memory.
//! * [`threads`]: libtorch's intra-op thread count, set within bounds, and the name of the
//!   OpenMP wait-policy variable.
//! * `fixtures` (this crate's tests, and other crates' tests through the `fixtures` feature):
//!   a random tiny checkpoint written into a directory.
//!
//! `koshogi bench nn` measures this crate from outside, through its public API
//! (`crates/bench/src/nn.rs`).

pub mod checkpoint;
pub mod config;
pub mod counted_material;
pub mod error;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod hardware;
pub mod inference;
pub mod model;
pub use koshogi_encoding::{features, geometry, move_encoding};
pub mod move_gather;
pub mod search_evaluator;
pub mod threads;
pub mod training_step;
pub mod working_copy;

pub use checkpoint::ModelCard;
pub use config::{DeviceSpec, ModelConfig, Precision, ResolvedRuntime, RuntimeConfig};
pub use error::NnError;
pub use features::{
    encode_batch, encode_position, FeatureInput, FEATURE_LEN, FEATURE_VERSION, INPUT_PLANES,
};
pub use inference::{EvalPosition, Evaluation, InferenceModel};
pub use model::{Model, Network, NetworkOutput};
pub use move_encoding::{
    encode_move, encode_moves, MoveLegs, MOVE_ENCODING_VERSION, POLICY_PLANES,
};
pub use move_gather::LegalMoveIndex;
pub use search_evaluator::{spawn_network_thread, NetworkEvaluator};
pub use threads::{set_intra_op_threads, MAX_INTRA_OP_THREADS};
pub use training_step::{
    compute_losses, LossWeights, Losses, SampleTargets, TrainingBatch, TrainingBatchBuilder,
};
pub use working_copy::WorkingCopy;
