//! Checkpoints that the tests of several crates write alike: the viewer's API tests
//! (koshogi-serve), the arena's network players, the engine's sessions, the CLI's `eval` and
//! `export` tests and the system tests of `koshogi serve` and of engine matches each put a
//! seeded random tiny network into a checkpoint directory. One owner for how. Compiled for this
//! crate's tests and behind the `fixtures` feature (which other crates enable only as a
//! dev-dependency), never in a release build.

use std::path::Path;

use crate::checkpoint::{self, ModelCard};
use crate::{Model, ModelConfig};

/// A random [`ModelConfig::tiny`] network, drawn after seeding libtorch with `seed`, saved in
/// `dir` (created if missing) as the checkpoint of training step `step`: its model card is
/// `dir/model.json` and names `rules_options`.
pub fn save_tiny_checkpoint(
    dir: &Path,
    step: u64,
    seed: i64,
    rules_options: serde_json::Value,
) -> ModelCard {
    tch::manual_seed(seed);
    let model = Model::new(&ModelConfig::tiny(), tch::Device::Cpu).expect("a tiny network");
    std::fs::create_dir_all(dir).expect("the checkpoint's directory");
    checkpoint::save(&model, &dir.join("model.json"), step, rules_options)
        .expect("the tiny checkpoint")
}
