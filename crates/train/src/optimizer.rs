//! SGD with momentum and AdamW whose state can be saved and restored.
//!
//! `tch::nn::Optimizer` wraps libtorch's optimisers but exposes no way to read or write their
//! momentum / moment buffers, so a resumed run would restart them from zero and diverge from the
//! uninterrupted run. This optimiser updates the `VarStore`'s trainable tensors itself (in place,
//! under `no_grad`) and keeps its buffers as named tensors that round-trip through safetensors,
//! which makes resume bit-exact. It also clips gradients by their global norm and reports the
//! norm, and refuses to apply a step whose gradient is not finite.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tch::{nn::VarStore, Kind, TchError, Tensor};

/// `[train.optimizer]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptimizerConfig {
    pub kind: OptimizerKind,
    /// The base learning rate (the schedule scales it).
    pub lr: f64,
    /// SGD: momentum coefficient μ.
    pub momentum: f64,
    /// SGD: Nesterov's variant of momentum.
    pub nesterov: bool,
    /// AdamW: decay rates of the first and second moment estimates.
    pub beta1: f64,
    pub beta2: f64,
    /// AdamW: added to the root of the second moment to avoid division by zero.
    pub eps: f64,
    /// SGD: L2 penalty added to the gradient (PyTorch's convention, equivalent to a
    /// `wd/2 · |w|²` loss term); AdamW: decoupled decay `w ← w · (1 − lr · wd)`.
    pub weight_decay: f64,
    /// Whether biases and normalisation scales (tensors with ≤ 1 dimension) are decayed too.
    /// Off by default: decaying them only hurts (they do not set the function's scale).
    pub decay_vectors: bool,
}

impl Default for OptimizerConfig {
    fn default() -> Self {
        Self {
            kind: OptimizerKind::Sgd,
            lr: 0.02,
            momentum: 0.9,
            nesterov: true,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 1e-4,
            decay_vectors: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    Sgd,
    Adamw,
}

impl OptimizerKind {
    /// Stored in the state file so that SGD state is never loaded into AdamW or vice versa.
    fn code(self) -> i64 {
        match self {
            OptimizerKind::Sgd => 1,
            OptimizerKind::Adamw => 2,
        }
    }

    fn buffer_names(self) -> &'static [&'static str] {
        match self {
            OptimizerKind::Sgd => &["momentum"],
            OptimizerKind::Adamw => &["exp_avg", "exp_avg_sq"],
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OptimizerError {
    #[error("optimiser configuration: {0}")]
    Config(String),
    #[error("the model has no trainable tensors")]
    NoParameters,
    #[error("libtorch: {0}")]
    Torch(#[from] TchError),
    #[error("optimiser state {path}: {reason}")]
    State { path: String, reason: String },
}

/// What one call to [`Optimizer::step`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepReport {
    /// Global L2 norm of the gradient before clipping.
    pub grad_norm: f64,
    /// The gradient was scaled down to the clipping norm.
    pub clipped: bool,
    /// The gradient was not finite, so the weights and buffers were left untouched.
    pub skipped: bool,
}

struct Parameter {
    name: String,
    tensor: Tensor,
    decay: bool,
    /// One tensor per entry of [`OptimizerKind::buffer_names`], shaped like `tensor`.
    buffers: Vec<Tensor>,
}

/// The optimiser over every trainable tensor of one `VarStore`.
pub struct Optimizer {
    config: OptimizerConfig,
    parameters: Vec<Parameter>,
    /// Updates applied so far (AdamW's bias correction uses it).
    updates: u64,
}

const STATE_KIND: &str = "optimizer.kind";
const STATE_UPDATES: &str = "optimizer.updates";

impl OptimizerConfig {
    pub fn validate(&self) -> Result<(), OptimizerError> {
        let bad = |what: &str| Err(OptimizerError::Config(what.to_string()));
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return bad("lr must be positive and finite");
        }
        if !(0.0..1.0).contains(&self.momentum) {
            return bad("momentum must be in [0, 1)");
        }
        if self.nesterov && self.momentum == 0.0 && self.kind == OptimizerKind::Sgd {
            return bad("nesterov needs a positive momentum");
        }
        if !(0.0..1.0).contains(&self.beta1) || !(0.0..1.0).contains(&self.beta2) {
            return bad("beta1 and beta2 must be in [0, 1)");
        }
        if !(self.eps > 0.0 && self.eps.is_finite()) {
            return bad("eps must be positive");
        }
        if !(self.weight_decay >= 0.0 && self.weight_decay.is_finite()) {
            return bad("weight_decay must be non-negative and finite");
        }
        Ok(())
    }
}

impl Optimizer {
    /// Takes every tensor of `vs` that requires a gradient, in name order (so the state file's
    /// layout does not depend on hash-map order). Buffers start at zero.
    pub fn new(vs: &VarStore, config: &OptimizerConfig) -> Result<Self, OptimizerError> {
        config.validate()?;
        let mut named: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        if named.is_empty() {
            return Err(OptimizerError::NoParameters);
        }
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let buffer_count = config.kind.buffer_names().len();
        let parameters = named
            .into_iter()
            .map(|(name, tensor)| {
                let buffers = (0..buffer_count)
                    .map(|_| tensor.f_zeros_like().and_then(|b| b.f_contiguous()))
                    .collect::<Result<Vec<_>, _>>()?;
                let decay = config.decay_vectors || tensor.dim() > 1;
                Ok(Parameter {
                    name,
                    tensor,
                    decay,
                    buffers,
                })
            })
            .collect::<Result<Vec<_>, TchError>>()?;
        Ok(Self {
            config: config.clone(),
            parameters,
            updates: 0,
        })
    }

    pub fn config(&self) -> &OptimizerConfig {
        &self.config
    }

    /// Updates applied so far (skipped steps do not count).
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Clears the gradients before the next backward pass.
    pub fn zero_grad(&mut self) {
        for p in &mut self.parameters {
            p.tensor.zero_grad();
        }
    }

    /// The sum of squares of the decayed weights, for logging the size of the network.
    pub fn decayed_weight_sq_sum(&self) -> Result<f64, OptimizerError> {
        tch::no_grad(|| {
            let mut total = 0.0;
            for p in self.parameters.iter().filter(|p| p.decay) {
                total += p
                    .tensor
                    .f_to_kind(Kind::Double)?
                    .f_square()?
                    .f_sum(Kind::Double)?
                    .f_double_value(&[])?;
            }
            Ok(total)
        })
    }

    /// Clips the gradient to `max_grad_norm` (≤ 0: no clipping) and applies one update with
    /// learning rate `lr`. A non-finite gradient is reported and skipped.
    pub fn step(&mut self, lr: f64, max_grad_norm: f64) -> Result<StepReport, OptimizerError> {
        self.step_with_gradients(lr, max_grad_norm, |_, parameter| parameter.grad())
    }

    /// [`Optimizer::step`] with gradients computed elsewhere: `gradient(name, parameter)` is
    /// the gradient of each parameter (an undefined tensor = none), in any kind and layout,
    /// e.g. from a bfloat16 working copy of the network; it is converted to the parameter's
    /// kind first, so the update and the buffers stay in the master's precision.
    pub fn step_with_gradients(
        &mut self,
        lr: f64,
        max_grad_norm: f64,
        gradient: impl Fn(&str, &Tensor) -> Tensor,
    ) -> Result<StepReport, OptimizerError> {
        let gradients = tch::no_grad(|| {
            self.parameters
                .iter()
                .map(|p| {
                    let grad = gradient(&p.name, &p.tensor);
                    if grad.defined() {
                        grad.f_detach()?.f_to_kind(p.tensor.kind())
                    } else {
                        Ok(grad)
                    }
                })
                .collect::<Result<Vec<_>, TchError>>()
        })?;
        let grad_norm = global_norm(&gradients)?;
        if !grad_norm.is_finite() {
            return Ok(StepReport {
                grad_norm,
                clipped: false,
                skipped: true,
            });
        }
        let clipped = max_grad_norm > 0.0 && grad_norm > max_grad_norm;
        let grad_scale = if clipped {
            max_grad_norm / (grad_norm + 1e-6)
        } else {
            1.0
        };
        self.updates += 1;
        let config = self.config.clone();
        let updates = self.updates;
        tch::no_grad(|| -> Result<(), TchError> {
            for (p, grad) in self.parameters.iter_mut().zip(gradients) {
                if !grad.defined() {
                    continue;
                }
                let grad = if clipped {
                    grad.f_mul_scalar(grad_scale)?
                } else {
                    grad
                };
                match config.kind {
                    OptimizerKind::Sgd => sgd_update(p, grad, lr, &config)?,
                    OptimizerKind::Adamw => adamw_update(p, grad, lr, &config, updates)?,
                }
            }
            Ok(())
        })?;
        Ok(StepReport {
            grad_norm,
            clipped,
            skipped: false,
        })
    }

    /// Writes the buffers and the update count as safetensors (not atomically: the checkpoint
    /// manager writes into a temporary directory and renames it).
    pub fn save(&self, path: &Path) -> Result<(), OptimizerError> {
        let mut named: Vec<(String, Tensor)> = Vec::new();
        named.push((
            STATE_KIND.to_string(),
            Tensor::from_slice(&[self.config.kind.code()]),
        ));
        named.push((
            STATE_UPDATES.to_string(),
            Tensor::from_slice(&[self.updates as i64]),
        ));
        for p in &self.parameters {
            for (buffer_name, buffer) in self.config.kind.buffer_names().iter().zip(&p.buffers) {
                let cpu = buffer.f_to_device(tch::Device::Cpu)?.f_contiguous()?;
                named.push((format!("{buffer_name}/{}", p.name), cpu));
            }
        }
        Tensor::write_safetensors(&named, path)?;
        Ok(())
    }

    /// Restores what [`Optimizer::save`] wrote. The file must come from the same optimiser kind
    /// and the same network (same tensor names and shapes), else nothing is changed.
    pub fn load(&mut self, path: &Path) -> Result<(), OptimizerError> {
        let fail = |reason: String| OptimizerError::State {
            path: path.display().to_string(),
            reason,
        };
        let mut stored: HashMap<String, Tensor> =
            Tensor::read_safetensors(path)?.into_iter().collect();
        let scalar = |stored: &mut HashMap<String, Tensor>, key: &str| -> Result<i64, _> {
            let t = stored
                .remove(key)
                .ok_or_else(|| fail(format!("missing `{key}`")))?;
            t.f_int64_value(&[0])
                .map_err(|e| fail(format!("bad `{key}`: {e}")))
        };
        let kind = scalar(&mut stored, STATE_KIND)?;
        if kind != self.config.kind.code() {
            return Err(fail(format!(
                "written by a different optimiser (kind code {kind}), this run uses {:?}",
                self.config.kind
            )));
        }
        let updates = scalar(&mut stored, STATE_UPDATES)?;
        let updates = u64::try_from(updates).map_err(|_| fail("negative update count".into()))?;
        // Check everything before touching any buffer.
        let mut pending = Vec::new();
        for (pi, p) in self.parameters.iter().enumerate() {
            for (bi, buffer_name) in self.config.kind.buffer_names().iter().enumerate() {
                let key = format!("{buffer_name}/{}", p.name);
                let t = stored.remove(&key).ok_or_else(|| {
                    fail(format!(
                        "missing `{key}`: was it saved for another network?"
                    ))
                })?;
                if t.size() != p.buffers[bi].size() {
                    return Err(fail(format!(
                        "`{key}` has shape {:?}, the network's tensor has {:?}",
                        t.size(),
                        p.buffers[bi].size()
                    )));
                }
                pending.push((pi, bi, t));
            }
        }
        if let Some(extra) = stored.keys().next() {
            return Err(fail(format!(
                "unexpected tensor `{extra}`: was it saved for another network?"
            )));
        }
        tch::no_grad(|| -> Result<(), TchError> {
            for (pi, bi, t) in pending {
                self.parameters[pi].buffers[bi].f_copy_(&t)?;
            }
            Ok(())
        })?;
        self.updates = updates;
        Ok(())
    }
}

/// The L2 norm of all `gradients` together (undefined tensors count as zero), in float64.
fn global_norm(gradients: &[Tensor]) -> Result<f64, OptimizerError> {
    tch::no_grad(|| {
        let norms = gradients
            .iter()
            .filter(|g| g.defined())
            .map(|g| g.f_to_kind(Kind::Double)?.f_norm())
            .collect::<Result<Vec<_>, _>>()?;
        if norms.is_empty() {
            return Ok(0.0);
        }
        Ok(Tensor::f_stack(&norms, 0)?.f_norm()?.f_double_value(&[])?)
    })
}

/// PyTorch's SGD (dampening 0): `g += wd·w; b = μ·b + g; w -= lr·(nesterov ? g + μ·b : b)`.
fn sgd_update(
    p: &mut Parameter,
    mut grad: Tensor,
    lr: f64,
    config: &OptimizerConfig,
) -> Result<(), TchError> {
    if p.decay && config.weight_decay > 0.0 {
        grad = grad.f_add(&p.tensor.f_mul_scalar(config.weight_decay)?)?;
    }
    let direction = if config.momentum > 0.0 {
        let buffer = &mut p.buffers[0];
        let _ = buffer.f_mul_scalar_(config.momentum)?;
        let _ = buffer.f_add_(&grad)?;
        if config.nesterov {
            grad.f_add(&buffer.f_mul_scalar(config.momentum)?)?
        } else {
            buffer.shallow_clone()
        }
    } else {
        grad
    };
    let _ = p.tensor.f_sub_(&direction.f_mul_scalar(lr)?)?;
    Ok(())
}

/// Loshchilov & Hutter's AdamW: decoupled decay `w ← w(1 − lr·wd)`, then the Adam step with
/// bias-corrected moments, `w -= lr · m̂ / (√v̂ + ε)`.
fn adamw_update(
    p: &mut Parameter,
    grad: Tensor,
    lr: f64,
    config: &OptimizerConfig,
    updates: u64,
) -> Result<(), TchError> {
    if p.decay && config.weight_decay > 0.0 {
        let _ = p.tensor.f_mul_scalar_(1.0 - lr * config.weight_decay)?;
    }
    let (b1, b2) = (config.beta1, config.beta2);
    {
        let m = &mut p.buffers[0];
        let _ = m.f_mul_scalar_(b1)?;
        let _ = m.f_add_(&grad.f_mul_scalar(1.0 - b1)?)?;
    }
    {
        let v = &mut p.buffers[1];
        let _ = v.f_mul_scalar_(b2)?;
        let _ = v.f_add_(&grad.f_square()?.f_mul_scalar(1.0 - b2)?)?;
    }
    let t = updates as i32;
    let bias1 = 1.0 - b1.powi(t);
    let bias2 = 1.0 - b2.powi(t);
    let denominator = p.buffers[1]
        .f_div_scalar(bias2)?
        .f_sqrt()?
        .f_add_scalar(config.eps)?;
    let update = p.buffers[0].f_div(&denominator)?.f_mul_scalar(lr / bias1)?;
    let _ = p.tensor.f_sub_(&update)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    /// A store with one matrix `w` (decayed) and one vector `b` (not decayed by default).
    fn store(w: &[f32], b: &[f32]) -> (VarStore, Tensor, Tensor) {
        let vs = VarStore::new(Device::Cpu);
        let root = vs.root();
        let wt = root.var_copy("w", &Tensor::from_slice(w).view([1, w.len() as i64]));
        let bt = root.var_copy("b", &Tensor::from_slice(b));
        (vs, wt, bt)
    }

    /// Sets the gradient of `w` to `gw` and of `b` to `gb` through a linear loss.
    fn backward_linear(w: &Tensor, b: &Tensor, gw: &[f32], gb: &[f32]) {
        let cw = Tensor::from_slice(gw).view([1, gw.len() as i64]);
        let cb = Tensor::from_slice(gb);
        let loss = (w * cw).sum(Kind::Float) + (b * cb).sum(Kind::Float);
        loss.backward();
    }

    fn values(t: &Tensor) -> Vec<f64> {
        Vec::<f64>::try_from(t.to_kind(Kind::Double).flatten(0, -1)).unwrap()
    }

    fn assert_close(actual: &[f64], expected: &[f64]) {
        assert_eq!(actual.len(), expected.len());
        for (a, e) in actual.iter().zip(expected) {
            assert!((a - e).abs() < 1e-5, "{actual:?} != {expected:?}");
        }
    }

    fn sgd(momentum: f64, nesterov: bool, weight_decay: f64) -> OptimizerConfig {
        OptimizerConfig {
            kind: OptimizerKind::Sgd,
            lr: 0.5,
            momentum,
            nesterov,
            weight_decay,
            ..Default::default()
        }
    }

    #[test]
    fn sgd_momentum_with_weight_decay_matches_two_hand_computed_steps() {
        let (vs, w, b) = store(&[1.0, -2.0], &[1.0]);
        let mut opt = Optimizer::new(&vs, &sgd(0.9, false, 0.1)).unwrap();
        for _ in 0..2 {
            opt.zero_grad();
            backward_linear(&w, &b, &[3.0, 4.0], &[1.0]);
            opt.step(0.5, 0.0).unwrap();
        }
        // Step 1: g = (3, 4) + 0.1·(1, −2) = (3.1, 3.8) = buffer; w = (1, −2) − 0.5·buffer.
        // Step 2: g = (3, 4) + 0.1·(−0.55, −3.9) = (2.945, 3.61);
        //         buffer = 0.9·(3.1, 3.8) + g = (5.735, 7.03); w = (−0.55, −3.9) − 0.5·buffer.
        assert_close(&values(&w), &[-3.4175, -7.415]);
        // The bias is not decayed: buffer 1 then 1.9; b = 1 − 0.5 − 0.95.
        assert_close(&values(&b), &[-0.45]);
        assert_eq!(opt.updates(), 2);
    }

    #[test]
    fn nesterov_looks_ahead_along_the_momentum() {
        let (vs, w, b) = store(&[1.0, -2.0], &[0.0]);
        let mut opt = Optimizer::new(&vs, &sgd(0.9, true, 0.1)).unwrap();
        backward_linear(&w, &b, &[3.0, 4.0], &[0.0]);
        opt.step(0.5, 0.0).unwrap();
        // buffer = g = (3.1, 3.8); direction = g + 0.9·buffer = 1.9·g.
        assert_close(
            &values(&w),
            &[1.0 - 0.5 * 1.9 * 3.1, -2.0 - 0.5 * 1.9 * 3.8],
        );
    }

    #[test]
    fn adamw_matches_hand_computed_steps() {
        let config = OptimizerConfig {
            kind: OptimizerKind::Adamw,
            lr: 0.1,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.01,
            ..Default::default()
        };
        let (vs, w, b) = store(&[1.0, -2.0], &[0.5]);
        let mut opt = Optimizer::new(&vs, &config).unwrap();
        let grads = [[3.0f32, 4.0], [-1.0, 2.0]];
        // Reference in f64, written from the paper's algorithm.
        let mut w_ref = [1.0f64, -2.0];
        let (mut m, mut v) = ([0.0f64; 2], [0.0f64; 2]);
        for (t, g) in grads.iter().enumerate() {
            opt.zero_grad();
            backward_linear(&w, &b, g, &[0.0]);
            opt.step(0.1, 0.0).unwrap();
            let t = t as i32 + 1;
            for i in 0..2 {
                let gi = g[i] as f64;
                w_ref[i] *= 1.0 - 0.1 * 0.01;
                m[i] = 0.9 * m[i] + 0.1 * gi;
                v[i] = 0.999 * v[i] + 0.001 * gi * gi;
                let m_hat = m[i] / (1.0 - 0.9f64.powi(t));
                let v_hat = v[i] / (1.0 - 0.999f64.powi(t));
                w_ref[i] -= 0.1 * m_hat / (v_hat.sqrt() + 1e-8);
            }
        }
        assert_close(&values(&w), &w_ref);
        // Zero gradient and no decay on vectors: the bias never moves.
        assert_close(&values(&b), &[0.5]);
    }

    #[test]
    fn clipping_scales_the_gradient_to_the_maximum_norm_and_reports_the_norm() {
        let (vs, w, b) = store(&[1.0, -2.0], &[0.0]);
        let mut opt = Optimizer::new(&vs, &sgd(0.0, false, 0.0)).unwrap();
        backward_linear(&w, &b, &[3.0, 4.0], &[0.0]);
        let report = opt.step(1.0, 1.0).unwrap();
        assert!((report.grad_norm - 5.0).abs() < 1e-9);
        assert!(report.clipped && !report.skipped);
        // Clipped gradient (0.6, 0.8).
        assert_close(&values(&w), &[0.4, -2.8]);
        // Below the maximum nothing is scaled.
        opt.zero_grad();
        backward_linear(&w, &b, &[0.3, 0.4], &[0.0]);
        let report = opt.step(1.0, 1.0).unwrap();
        assert!(!report.clipped);
        assert_close(&values(&w), &[0.1, -3.2]);
    }

    #[test]
    fn a_non_finite_gradient_is_skipped() {
        let (vs, w, b) = store(&[1.0, -2.0], &[0.0]);
        let mut opt = Optimizer::new(&vs, &sgd(0.9, false, 0.0)).unwrap();
        backward_linear(&w, &b, &[f32::NAN, 4.0], &[0.0]);
        let report = opt.step(1.0, 1.0).unwrap();
        assert!(report.skipped);
        assert_eq!(opt.updates(), 0);
        assert_close(&values(&w), &[1.0, -2.0]);
    }

    #[test]
    fn saved_state_resumes_identically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("optimizer.safetensors");
        for kind in [OptimizerKind::Sgd, OptimizerKind::Adamw] {
            let config = OptimizerConfig {
                kind,
                ..Default::default()
            };
            let (vs_a, wa, ba) = store(&[1.0, -2.0, 0.5], &[0.25]);
            let mut a = Optimizer::new(&vs_a, &config).unwrap();
            for g in [[1.0f32, -1.0, 2.0], [0.5, 0.5, -3.0]] {
                a.zero_grad();
                backward_linear(&wa, &ba, &g, &[1.0]);
                a.step(0.1, 0.0).unwrap();
            }
            a.save(&path).unwrap();
            // A fresh optimiser on a copy of the weights, restored from the file.
            let (vs_b, wb, bb) = store(&[0.0; 3], &[0.0]);
            tch::no_grad(|| {
                wb.shallow_clone().copy_(&wa);
                bb.shallow_clone().copy_(&ba);
            });
            let mut b = Optimizer::new(&vs_b, &config).unwrap();
            b.load(&path).unwrap();
            assert_eq!(b.updates(), 2);
            for (opt, w, bias) in [(&mut a, &wa, &ba), (&mut b, &wb, &bb)] {
                opt.zero_grad();
                backward_linear(w, bias, &[-2.0, 1.0, 1.0], &[0.5]);
                opt.step(0.1, 0.0).unwrap();
            }
            assert!(wa.equal(&wb), "{kind:?}: weights differ after resume");
            assert!(ba.equal(&bb));
        }
    }

    #[test]
    fn state_of_another_kind_or_network_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("optimizer.safetensors");
        let (vs, _, _) = store(&[1.0, 2.0], &[0.0]);
        Optimizer::new(&vs, &sgd(0.9, false, 0.0))
            .unwrap()
            .save(&path)
            .unwrap();
        let adamw = OptimizerConfig {
            kind: OptimizerKind::Adamw,
            ..Default::default()
        };
        let mut other_kind = Optimizer::new(&vs, &adamw).unwrap();
        assert!(matches!(
            other_kind.load(&path),
            Err(OptimizerError::State { .. })
        ));
        let (vs_big, _, _) = store(&[1.0, 2.0, 3.0], &[0.0]);
        let mut other_shape = Optimizer::new(&vs_big, &sgd(0.9, false, 0.0)).unwrap();
        let err = other_shape.load(&path).unwrap_err().to_string();
        assert!(err.contains("shape"), "{err}");
        let vs_renamed = VarStore::new(Device::Cpu);
        let _ = vs_renamed
            .root()
            .var_copy("v", &Tensor::from_slice(&[1.0f32, 2.0]).view([1, 2]));
        let _ = vs_renamed
            .root()
            .var_copy("b", &Tensor::from_slice(&[0.0f32]));
        let mut renamed = Optimizer::new(&vs_renamed, &sgd(0.9, false, 0.0)).unwrap();
        assert!(renamed.load(&path).is_err());
    }
}
