//! Helpers shared by the export crate's integration tests.

use koshogi_nn::{Model, ModelConfig};
use tch::{Device, Kind, Tensor};

/// A model of `config` whose every weight is drawn afresh (normal, σ = 0.1) after seeding torch
/// with `seed`: at full scale, where the initial residual scaling would hide the trunk, so a
/// Python twin or an exported graph that misreads any weight shows it. The tests that compare
/// the Rust model with another reader all start from one.
pub fn noisy_model(config: &ModelConfig, seed: i64) -> Model {
    tch::manual_seed(seed);
    let model = Model::new(config, Device::Cpu).unwrap();
    tch::no_grad(|| {
        for (_, mut var) in model.vs.variables() {
            let noise = Tensor::randn(var.size(), (Kind::Float, Device::Cpu)) * 0.1;
            var.copy_(&noise);
        }
    });
    model
}
