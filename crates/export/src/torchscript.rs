//! The Rust network traced into a TorchScript module.
//!
//! Tracing records the libtorch operations of one forward pass; the weights become constants of
//! the module, so the `.pt` file is self-contained and needs neither Rust nor this repository.
//! Nothing in the forward pass depends on the batch size or on the input values (no batch
//! normalisation, no data-dependent branches), so the traced graph is valid for any batch.
//!
//! A traced TorchScript method must return a single tensor (the tracer cannot build a tuple),
//! so the four heads are packed into one float32 `[N, PACKED_WIDTH]` matrix, columns in the
//! order of [`OUTPUT_NAMES`]:
//! 1. `policy`: `POLICY_PLANES × 361` leg logits, plane-major — `reshape(N, 299, 19, 19)`
//!    gives the policy planes of docs/move-encoding.md (column `plane · 361 + point`);
//! 2. `wdl_logits`: 3 win/draw/loss logits for the side to move;
//! 3. `moves_left`: 1 value, remaining plies / 256;
//! 4. `material`: 1 value, final material balance (mover minus opponent) / 16.
//!
//! Method `forward(features)`, `features` float32 `[N, INPUT_PLANES, 19, 19]`
//! (docs/input-features.md).

use koshogi_nn::geometry::{BOARD_SIZE, POINTS};
use koshogi_nn::{Model, INPUT_PLANES, POLICY_PLANES};
use tch::{CModule, Device, Kind, Tensor};

use crate::error::ExportError;

/// Names of the traced module's outputs, in order.
pub const OUTPUT_NAMES: [&str; 4] = ["policy", "wdl_logits", "moves_left", "material"];
/// Columns of each output in the packed matrix, in [`OUTPUT_NAMES`] order.
pub const OUTPUT_WIDTHS: [usize; 4] = [POLICY_PLANES * POINTS, 3, 1, 1];
/// Columns of the packed output matrix.
pub const PACKED_WIDTH: usize = POLICY_PLANES * POINTS + 5;

/// Files (and ranks) of the board, as a tensor dimension.
const SIDE: i64 = BOARD_SIZE as i64;

/// The method clients call.
pub const METHOD: &str = "forward";

/// Traces `model` (float32) into a TorchScript module with method [`METHOD`].
///
/// The module keeps the traced weight tensors themselves as constants, and libtorch refuses to
/// load constants that require gradients; so the trace runs on a frozen copy of the weights,
/// which the module then owns (the caller's model stays trainable).
pub fn trace(model: &Model) -> Result<CModule, ExportError> {
    let mut frozen = Model::new(model.config(), model.device())?;
    frozen.vs.copy(&model.vs)?;
    frozen.vs.freeze();
    let model = &frozen;
    let example = Tensor::zeros(
        [1, INPUT_PLANES as i64, SIDE, SIDE],
        (Kind::Float, model.device()),
    );
    let module = tch::no_grad(|| {
        let mut forward = |inputs: &[Tensor]| {
            let out = model.network.forward(&inputs[0]);
            let packed = Tensor::cat(
                &[
                    out.policy.flatten(1, -1),
                    out.wdl_logits,
                    out.moves_left.unsqueeze(1),
                    out.material.unsqueeze(1),
                ],
                1,
            );
            vec![packed]
        };
        CModule::create_by_tracing("KoshogiNetwork", METHOD, &[example], &mut forward)
    })?;
    Ok(module)
}

/// Runs a traced (or loaded) module and unpacks its output into the four heads, shaped as
/// [`koshogi_nn::NetworkOutput`]'s fields: `[N, 299, 19, 19]`, `[N, 3]`, `[N]`, `[N]`.
pub fn run(module: &CModule, features: &Tensor) -> Result<Vec<Tensor>, ExportError> {
    let packed = tch::no_grad(|| module.method_ts(METHOD, &[features.shallow_clone()]))?;
    let n = packed.size()[0];
    if packed.size() != [n, PACKED_WIDTH as i64] {
        return Err(ExportError::Encoding(format!(
            "traced module returned shape {:?}, expected [N, {PACKED_WIDTH}]",
            packed.size()
        )));
    }
    let widths: Vec<i64> = OUTPUT_WIDTHS.iter().map(|&w| w as i64).collect();
    let parts = packed.split_with_sizes(&widths, 1);
    Ok(vec![
        parts[0].reshape([n, POLICY_PLANES as i64, SIDE, SIDE]),
        parts[1].shallow_clone(),
        parts[2].reshape([n]),
        parts[3].reshape([n]),
    ])
}

/// The CPU device, where exports are traced (a CPU trace loads on any machine).
pub const TRACE_DEVICE: Device = Device::Cpu;

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_nn::ModelConfig;

    #[test]
    fn traced_module_reproduces_the_model_at_another_batch_size() {
        tch::set_num_threads(1);
        tch::manual_seed(3);
        let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
        let module = trace(&model).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.pt");
        module.save(&path).unwrap();
        let loaded = CModule::load(&path).unwrap();
        let input = Tensor::rand(
            [3, INPUT_PLANES as i64, SIDE, SIDE],
            (Kind::Float, Device::Cpu),
        );
        let expected = tch::no_grad(|| model.network.forward(&input));
        let got = run(&loaded, &input).unwrap();
        let pairs = [
            (&expected.policy, &got[0]),
            (&expected.wdl_logits, &got[1]),
            (&expected.moves_left, &got[2]),
            (&expected.material, &got[3]),
        ];
        for (name, (a, b)) in OUTPUT_NAMES.iter().zip(pairs) {
            assert_eq!(a.size(), b.size(), "{name}");
            let diff = (a - b).abs().max().double_value(&[]);
            assert!(diff < 1e-5, "{name} differs by {diff}");
        }
    }
}
