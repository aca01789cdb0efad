//! The network: a residual convolutional trunk with KataGo-style global pooling, a fully
//! convolutional policy head (the [`POLICY_PLANES`] planes of the move encoding), a
//! win/draw/loss value head and two auxiliary heads (moves left, final material balance).
//! Optionally the value head also reads the material counted from the input planes
//! ([`crate::counted_material`]).
//!
//! The trunk has no batch normalisation: pre-activation residual blocks whose last convolution
//! starts small (Fixup-style), so inference does not depend on batch statistics and the same
//! weights behave identically at batch 1 and 256, in float32 and bfloat16.

use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

use koshogi_rules::material::MATERIAL_TEMPERATURE;

use crate::config::ModelConfig;
use crate::counted_material;
use crate::error::NnError;
use crate::features::{INPUT_PLANES, PIECE_STATES};
use crate::geometry::BOARD_SIZE;
use crate::move_encoding::POLICY_PLANES;

/// The moves-left head predicts remaining plies divided by this.
pub const MOVES_LEFT_SCALE: f64 = 256.0;
/// The material head predicts the final material balance (mover minus opponent, in the units
/// the trainer chooses) divided by this.
pub const MATERIAL_SCALE: f64 = 16.0;

/// Raw outputs of one forward pass.
#[derive(Debug)]
pub struct NetworkOutput {
    /// `[N, POLICY_PLANES, 19, 19]` policy leg logits.
    pub policy: Tensor,
    /// `[N, 3]` win/draw/loss logits for the side to move.
    pub wdl_logits: Tensor,
    /// `[N]` remaining plies / [`MOVES_LEFT_SCALE`].
    pub moves_left: Tensor,
    /// `[N]` final material balance / [`MATERIAL_SCALE`].
    pub material: Tensor,
}

fn conv(path: nn::Path<'_>, c_in: usize, c_out: usize, kernel: usize) -> nn::Conv2D {
    let config = nn::ConvConfig {
        padding: (kernel / 2) as i64,
        ..Default::default()
    };
    nn::conv2d(path, c_in as i64, c_out as i64, kernel as i64, config)
}

/// Mean and max over the board of each channel: `[N, C, H, W]` → `[N, 2C]`.
///
/// The same numbers by two routes: on a channels-last tensor (bfloat16 inference) libtorch's
/// reductions over H and W are 3–7× slower than a pooling window the size of the board, and
/// on a dense NCHW tensor (float32 training) the other way round (measured with libtorch
/// 2.13 on one core, batches of 32 and 128; docs/performance.md).
fn global_pool(xs: &Tensor) -> Tensor {
    let size = xs.size();
    let (mean, max) = if is_channels_last(xs) {
        let board = [size[2], size[3]];
        (
            xs.avg_pool2d(board, board, [0, 0], false, true, None)
                .flatten(1, -1),
            xs.max_pool2d(board, board, [0, 0], [1, 1], false)
                .flatten(1, -1),
        )
    } else {
        (
            xs.mean_dim(&[2i64, 3][..], false, None::<Kind>),
            xs.amax(&[2i64, 3][..], false),
        )
    };
    Tensor::cat(&[mean, max], 1)
}

/// Whether a `[N, C, H, W]` tensor with more than one channel is stored channels-last (its
/// channels adjacent in memory).
fn is_channels_last(xs: &Tensor) -> bool {
    let (size, stride) = (xs.size(), xs.stride());
    size.len() == 4 && size[1] > 1 && stride[1] == 1
}

/// A pre-activation residual block; in a global pooling block, `pool_channels` of the first
/// convolution's outputs are pooled over the board into per-channel biases for the rest (so
/// every point learns about the whole board in one block).
#[derive(Debug)]
struct ResidualBlock {
    conv1: nn::Conv2D,
    conv2: nn::Conv2D,
    pool: Option<(usize, nn::Linear)>,
}

impl ResidualBlock {
    fn new(
        path: nn::Path<'_>,
        config: &ModelConfig,
        global_pool: bool,
        residual_scale: f64,
    ) -> Self {
        let c = config.channels;
        let pool_channels = if global_pool {
            config.global_pool_channels
        } else {
            0
        };
        let conv1 = conv(&path / "conv1", c, c, 3);
        let conv2 = conv(&path / "conv2", c - pool_channels, c, 3);
        tch::no_grad(|| {
            let _ = conv2
                .ws
                .shallow_clone()
                .f_mul_(&Tensor::from(residual_scale));
        });
        let pool = global_pool.then(|| {
            let linear = nn::linear(
                &path / "pool",
                2 * pool_channels as i64,
                (c - pool_channels) as i64,
                Default::default(),
            );
            (pool_channels, linear)
        });
        ResidualBlock { conv1, conv2, pool }
    }

    fn forward(&self, xs: &Tensor) -> Tensor {
        let mut h = xs.relu().apply(&self.conv1);
        if let Some((pool_channels, linear)) = &self.pool {
            let regular = h.size()[1] - *pool_channels as i64;
            let parts = h.split_with_sizes([regular, *pool_channels as i64], 1);
            let bias = global_pool(&parts[1].relu()).apply(linear);
            h = &parts[0] + bias.unsqueeze(-1).unsqueeze(-1);
        }
        // In place where autograd allows it (a convolution's backward needs its input, not its
        // output), which saves an allocation and a pass over the activations per operation.
        h.relu_().apply(&self.conv2).g_add_(xs)
    }
}

#[derive(Debug)]
struct PolicyHead {
    features: nn::Conv2D,
    pool_source: nn::Conv2D,
    pool_bias: nn::Linear,
    output: nn::Conv2D,
}

impl PolicyHead {
    fn new(path: nn::Path<'_>, config: &ModelConfig) -> Self {
        let (c, p) = (config.channels, config.policy_channels);
        PolicyHead {
            features: conv(&path / "features", c, p, 1),
            pool_source: conv(&path / "pool_source", c, p, 1),
            pool_bias: nn::linear(
                &path / "pool_bias",
                2 * p as i64,
                p as i64,
                Default::default(),
            ),
            output: conv(&path / "output", p, POLICY_PLANES, 1),
        }
    }

    fn forward(&self, trunk: &Tensor) -> Tensor {
        let bias = global_pool(&trunk.apply(&self.pool_source).relu_()).apply(&self.pool_bias);
        trunk
            .apply(&self.features)
            .g_add_(&bias.unsqueeze(-1).unsqueeze(-1))
            .relu_()
            .apply(&self.output)
    }
}

#[derive(Debug)]
struct ValueHead {
    features: nn::Conv2D,
    hidden: nn::Linear,
    wdl: nn::Linear,
    aux: nn::Linear,
    counted: Option<CountedMaterialInput>,
}

/// The value head's reading of the counted material (`ModelConfig::value_counts_material`):
/// `m = tanh(balance / 10)` enters the hidden layer and the win/draw/loss logits through a
/// learned weight each. The logits' weight starts at zero, so a new network's value starts as
/// without it and the count's worth is learned, not assumed.
#[derive(Debug)]
struct CountedMaterialInput {
    /// Each piece state's value (a buffer, not trained; `counted_material::VALUES_NAME`).
    values: Tensor,
    hidden: nn::Linear,
    wdl: nn::Linear,
}

impl CountedMaterialInput {
    fn new(path: nn::Path<'_>, value_hidden: i64) -> Self {
        let values = path.zeros_no_train(counted_material::VALUES_NAME, &[PIECE_STATES as i64]);
        tch::no_grad(|| {
            let table = Tensor::from_slice(&counted_material::piece_state_values());
            values
                .shallow_clone()
                .copy_(&table.to_device(values.device()));
        });
        let no_bias = nn::LinearConfig {
            bias: false,
            ..Default::default()
        };
        let zero = nn::LinearConfig {
            ws_init: nn::Init::Const(0.0),
            ..no_bias
        };
        CountedMaterialInput {
            values,
            hidden: nn::linear(&path / "material_hidden", 1, value_hidden, no_bias),
            wdl: nn::linear(&path / "material_wdl", 1, 3, zero),
        }
    }

    /// `[N, 1]` in `kind`: the mover's counted balance on the search's material scale.
    fn reading(&self, features: &Tensor, kind: Kind) -> Tensor {
        let balance = counted_material::counted_balance(features, &self.values);
        (balance / f64::from(MATERIAL_TEMPERATURE))
            .tanh()
            .unsqueeze(1)
            .to_kind(kind)
    }
}

impl ValueHead {
    fn new(path: nn::Path<'_>, config: &ModelConfig) -> Self {
        let (v, h) = (config.value_channels as i64, config.value_hidden as i64);
        ValueHead {
            features: conv(
                &path / "features",
                config.channels,
                config.value_channels,
                1,
            ),
            hidden: nn::linear(&path / "hidden", 2 * v, h, Default::default()),
            wdl: nn::linear(&path / "wdl", h, 3, Default::default()),
            aux: nn::linear(&path / "aux", h, 2, Default::default()),
            counted: config
                .value_counts_material
                .then(|| CountedMaterialInput::new(path, h)),
        }
    }

    fn forward(&self, trunk: &Tensor, features: &Tensor) -> (Tensor, Tensor, Tensor) {
        let mut hidden = global_pool(&trunk.apply(&self.features).relu_()).apply(&self.hidden);
        let counted = self
            .counted
            .as_ref()
            .map(|input| (input, input.reading(features, hidden.kind())));
        if let Some((input, m)) = &counted {
            hidden += m.apply(&input.hidden);
        }
        let hidden = hidden.relu_();
        let aux = hidden.apply(&self.aux);
        let mut wdl = hidden.apply(&self.wdl);
        if let Some((input, m)) = &counted {
            wdl += m.apply(&input.wdl);
        }
        (wdl, aux.select(1, 0), aux.select(1, 1))
    }
}

/// The network's modules (their weights live in the [`nn::VarStore`] it was built on).
#[derive(Debug)]
pub struct Network {
    config: ModelConfig,
    stem: nn::Conv2D,
    blocks: Vec<ResidualBlock>,
    policy: PolicyHead,
    value: ValueHead,
}

impl Network {
    /// Builds the network's variables under `path` (randomly initialised).
    pub fn new(path: &nn::Path<'_>, config: &ModelConfig) -> Result<Self, NnError> {
        config.validate()?;
        let residual_scale = 1.0 / (config.blocks as f64).sqrt();
        let blocks = (0..config.blocks)
            .map(|i| {
                ResidualBlock::new(
                    path / format!("block{i}"),
                    config,
                    config.is_global_pool_block(i),
                    residual_scale,
                )
            })
            .collect();
        Ok(Network {
            config: config.clone(),
            stem: conv(
                path / "stem",
                INPUT_PLANES,
                config.channels,
                config.stem_kernel,
            ),
            blocks,
            policy: PolicyHead::new(path / "policy", config),
            value: ValueHead::new(path / "value", config),
        })
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The kind of the weights (the input must have the same).
    pub fn kind(&self) -> Kind {
        self.stem.ws.kind()
    }

    /// Forward pass on `[N, INPUT_PLANES, 19, 19]` features (same kind and device as the
    /// weights).
    pub fn forward(&self, features: &Tensor) -> NetworkOutput {
        let mut xs = features.apply(&self.stem);
        for block in &self.blocks {
            xs = block.forward(&xs);
        }
        let trunk = xs.relu_();
        let policy = self.policy.forward(&trunk);
        let (wdl_logits, moves_left, material) = self.value.forward(&trunk, features);
        NetworkOutput {
            policy,
            wdl_logits,
            moves_left,
            material,
        }
    }
}

impl Module for Network {
    fn forward(&self, xs: &Tensor) -> Tensor {
        Network::forward(self, xs).policy
    }
}

/// A network together with the store that owns its weights.
#[derive(Debug)]
pub struct Model {
    pub vs: nn::VarStore,
    pub network: Network,
}

impl Model {
    /// A freshly initialised float32 model on `device`.
    pub fn new(config: &ModelConfig, device: Device) -> Result<Self, NnError> {
        let vs = nn::VarStore::new(device);
        let network = Network::new(&vs.root(), config)?;
        Ok(Model { vs, network })
    }

    pub fn config(&self) -> &ModelConfig {
        self.network.config()
    }

    /// Sets how the search reads this network's value (`ModelConfig::material_utility`);
    /// the weights are untouched.
    pub fn set_material_utility(&mut self, weight: f32) {
        self.network.config.material_utility = weight;
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// Number of trainable scalars.
    pub fn parameter_count(&self) -> usize {
        self.vs
            .trainable_variables()
            .iter()
            .map(|t| t.numel())
            .sum()
    }

    /// Converts the weights to `kind` and, optionally, to channels-last layout (oneDNN's fast
    /// path for bfloat16 convolutions). Used on inference and working copies, never on the
    /// float32 master the optimiser updates.
    pub fn convert(&mut self, kind: Kind, channels_last: bool) {
        self.vs.set_kind(kind);
        if channels_last {
            tch::no_grad(|| {
                for (_, mut var) in self.vs.variables() {
                    if var.dim() == 4 {
                        let converted = to_channels_last(&var);
                        var.set_data(&converted);
                    }
                }
            });
        }
    }
}

/// The same tensor (shape `[N, C, H, W]`) stored channels-last (NHWC in memory).
pub fn to_channels_last(xs: &Tensor) -> Tensor {
    xs.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

/// Shape of the policy output for a batch.
pub fn policy_shape(batch: usize) -> [i64; 4] {
    [
        batch as i64,
        POLICY_PLANES as i64,
        BOARD_SIZE as i64,
        BOARD_SIZE as i64,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_shapes_match_the_encoding() {
        tch::set_num_threads(1);
        let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
        let input = Tensor::rand([3, INPUT_PLANES as i64, 19, 19], (Kind::Float, Device::Cpu));
        let out = model.network.forward(&input);
        assert_eq!(out.policy.size(), policy_shape(3).to_vec());
        assert_eq!(out.wdl_logits.size(), vec![3, 3]);
        assert_eq!(out.moves_left.size(), vec![3]);
        assert_eq!(out.material.size(), vec![3]);
        assert!(model.parameter_count() > 1000);
    }

    #[test]
    fn outputs_do_not_depend_on_the_rest_of_the_batch() {
        tch::set_num_threads(1);
        tch::manual_seed(7);
        let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
        let input = Tensor::rand([4, INPUT_PLANES as i64, 19, 19], (Kind::Float, Device::Cpu));
        let batched = model.network.forward(&input).wdl_logits;
        let single = model.network.forward(&input.narrow(0, 2, 1)).wdl_logits;
        let diff = (batched.narrow(0, 2, 1) - single)
            .abs()
            .max()
            .double_value(&[]);
        assert!(diff < 1e-5, "difference {diff}");
    }

    #[test]
    fn global_pooling_gives_the_same_numbers_in_both_layouts() {
        tch::manual_seed(3);
        for kind in [Kind::Float, Kind::BFloat16] {
            let xs = Tensor::randn([3, 5, 19, 19], (kind, Device::Cpu));
            let channels_last = to_channels_last(&xs);
            assert!(!is_channels_last(&xs) && is_channels_last(&channels_last));
            let dense = global_pool(&xs).to_kind(Kind::Float);
            let pooled = global_pool(&channels_last).to_kind(Kind::Float);
            assert_eq!(dense.size(), vec![3, 10]);
            let maxima = (dense.narrow(1, 5, 5) - pooled.narrow(1, 5, 5)).abs().max();
            assert_eq!(maxima.double_value(&[]), 0.0, "{kind:?} maxima differ");
            let means = (dense.narrow(1, 0, 5) - pooled.narrow(1, 0, 5)).abs().max();
            assert!(means.double_value(&[]) < 1e-2, "{kind:?} means differ");
        }
    }

    #[test]
    fn invalid_config_is_an_error() {
        let bad = ModelConfig {
            channels: 0,
            ..ModelConfig::tiny()
        };
        assert!(Model::new(&bad, Device::Cpu).is_err());
    }
}
