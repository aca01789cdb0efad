//! Mixed-precision training without autocast: float32 master weights, bfloat16 arithmetic.
//!
//! tch 0.26 reaches only CUDA autocast (its `autocast` calls the deprecated
//! `at::autocast::set_enabled`, which is CUDA's), and CPU autocast would recast every weight
//! on every forward pass anyway. Instead the trainer keeps the float32 master network (what the
//! optimiser updates and checkpoints store) and, each step, copies its weights into a
//! [`WorkingCopy`] in bfloat16 channels-last (oneDNN's fast path on CPUs with AMX or
//! AVX512-BF16), runs forward and backward there with the losses in float32
//! ([`crate::compute_losses`] casts the heads' outputs), and hands the copy's gradients to the
//! optimiser, which converts them to float32 before updating the master. Measured with PyTorch
//! on the 2-core AMX Xeon, 6×64 network at batch 256: this ran at 2.9× float32, CPU autocast at
//! 2.2×.

use std::collections::HashMap;

use tch::Tensor;

use crate::config::ResolvedRuntime;
use crate::error::NnError;
use crate::model::{Model, Network};

/// A copy of a master [`Model`] in another precision and layout, for forward and backward
/// passes only.
#[derive(Debug)]
pub struct WorkingCopy {
    model: Model,
    runtime: ResolvedRuntime,
    /// The copy's variables by name (shallow handles: their gradients are the copy's).
    variables: HashMap<String, Tensor>,
}

impl WorkingCopy {
    /// A copy of `master`'s current weights in `runtime`'s kind and layout (on `runtime`'s
    /// device, which should be the master's).
    pub fn new(master: &Model, runtime: ResolvedRuntime) -> Result<Self, NnError> {
        let mut model = Model::new(master.config(), runtime.device)?;
        model.convert(runtime.kind, runtime.channels_last);
        let variables = model.vs.variables();
        let mut copy = WorkingCopy {
            model,
            runtime,
            variables,
        };
        copy.sync_from(master)?;
        Ok(copy)
    }

    /// Device, kind and layout of the copy: what the batches' features should be built in.
    pub fn runtime(&self) -> ResolvedRuntime {
        self.runtime
    }

    pub fn network(&self) -> &Network {
        &self.model.network
    }

    /// Copies the master's weights in (converting kind, keeping this copy's layout).
    pub fn sync_from(&mut self, master: &Model) -> Result<(), NnError> {
        if master.config() != self.model.config() {
            return Err(NnError::InvalidConfig(format!(
                "cannot sync a working copy of {:?} from a model of {:?}",
                self.model.config(),
                master.config()
            )));
        }
        self.model.vs.copy(&master.vs)?;
        Ok(())
    }

    /// Clears the copy's gradients before the next backward pass.
    pub fn zero_grad(&mut self) {
        for variable in self.variables.values_mut() {
            variable.zero_grad();
        }
    }

    /// The gradient of the copy's variable `name` from the last backward pass, in the copy's
    /// kind and layout; an undefined tensor when there is none (as `Tensor::grad`).
    pub fn gradient(&self, name: &str) -> Tensor {
        match self.variables.get(name) {
            Some(variable) => variable.grad(),
            None => Tensor::new(),
        }
    }
}
