//! Serde configuration of the network: its architecture (what a checkpoint must match) and how
//! it runs (device, precision, memory layout), which may differ between machines.
//!
//! The two are separate on purpose: the architecture is part of a checkpoint's identity, the
//! runtime settings are not (one checkpoint runs in float32 on a training GPU and in bfloat16
//! on a 2-core CPU).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

use crate::error::NnError;
use crate::hardware;

/// Most residual blocks a model may have (KataGo's largest networks have 60).
pub const MAX_BLOCKS: usize = 64;
/// Most channels of the trunk or of a head (KataGo's largest trunk has 768): 64 blocks of
/// 1,024 channels would still be 4.8 GB of float32 weights, so the bound keeps a hostile card
/// from asking for much more than a real network.
pub const MAX_WIDTH: usize = 1024;

/// Shape of the residual network. Serialised into every checkpoint's model card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelConfig {
    /// Residual blocks in the trunk.
    pub blocks: usize,
    /// Channels of the trunk.
    pub channels: usize,
    /// Spatial size of the stem convolution (1 = a per-point embedding of the input planes, 3 =
    /// also looks at the neighbours; the stem reads ~140 sparse planes, so 3 costs about one
    /// residual block).
    pub stem_kernel: usize,
    /// Every `global_pool_every`-th block (1-based: blocks k·n − 1 counting from 0) is a
    /// KataGo-style global pooling block; 0 = none.
    pub global_pool_every: usize,
    /// Channels of a global pooling block that are pooled into biases for the others.
    pub global_pool_channels: usize,
    /// Channels of the policy head before the final 1×1 convolution to the policy planes.
    pub policy_channels: usize,
    /// Channels of the value head's 1×1 convolution (pooled into a vector).
    pub value_channels: usize,
    /// Width of the value head's hidden fully connected layer.
    pub value_hidden: usize,
    /// How the search reads this network's value: the weight `u` of the material head in
    /// `(1 − u) · WDL + u · tanh(material / T)` (KataGo's search utility likewise adds a
    /// score term to the win probability; T is the material evaluator's temperature). It has
    /// no weights, but it is part of what the network means, so it travels with the
    /// checkpoint; 0 = the WDL head alone.
    pub material_utility: f32,
    /// What the material head predicts: `false` = the mover's balance a few plies on, in
    /// pawns; `true` = how much that balance will *change* from the current one, which the
    /// search adds to the balance it counts on the board. Why: sibling leaves of a search
    /// differ by a capture or two, and a head that must first count ~180 pieces over 361
    /// points answers with an error of the same size, so its material term could not tell a
    /// capture from a quiet move; the change is small and local (what is hanging), and the
    /// count is exact. It changes what the weights mean, so a run cannot switch it on resume.
    /// Older model cards lack it and read as `false`.
    pub material_relative: bool,
    /// Whether the value head also reads the material balance counted from the input planes
    /// (`crate::counted_material`): its hidden layer and its win/draw/loss logits each get a
    /// learned linear term in `tanh(balance / 10)`. Why: the value target is half the material
    /// outlook, and a trunk that must learn to count the whole board answers with errors the
    /// size of a capture. It adds weights, so a run cannot switch it on resume. Older model
    /// cards lack it and read as `false`.
    pub value_counts_material: bool,
    /// Whether the network reads the attack planes (`docs/input-features.md`): each side's
    /// pieces that a legal capture of the other could remove now. Why: a trunk of a few 3×3
    /// blocks sees 9 points each way, and the pieces that strike from across the board
    /// (chariots, shooters, jumpers) would otherwise be invisible to it. Every caller that
    /// encodes features for this network asks the network (`InferenceModel` does it itself),
    /// so the planes are filled exactly when the weights expect them; off, they stay 0. It
    /// changes what the weights mean, so a run cannot switch it on resume.
    pub attack_planes: bool,
}

impl Default for ModelConfig {
    /// The default CPU model (`docs/input-features.md` and `docs/network.md` say why this size).
    fn default() -> Self {
        ModelConfig::cpu_default()
    }
}

impl ModelConfig {
    /// The default network for self-play on a 2-core CPU.
    pub fn cpu_default() -> Self {
        ModelConfig {
            blocks: 6,
            channels: 64,
            stem_kernel: 3,
            global_pool_every: 3,
            global_pool_channels: 16,
            policy_channels: 32,
            value_channels: 32,
            value_hidden: 64,
            material_utility: 0.0,
            material_relative: false,
            value_counts_material: false,
            attack_planes: false,
        }
    }

    /// A larger network meant for a CUDA machine.
    pub fn gpu_default() -> Self {
        ModelConfig {
            blocks: 10,
            channels: 128,
            stem_kernel: 3,
            global_pool_every: 3,
            global_pool_channels: 32,
            policy_channels: 48,
            value_channels: 32,
            value_hidden: 128,
            material_utility: 0.0,
            material_relative: false,
            value_counts_material: false,
            attack_planes: false,
        }
    }

    /// A very small network for fast tests.
    pub fn tiny() -> Self {
        ModelConfig {
            blocks: 2,
            channels: 16,
            stem_kernel: 3,
            global_pool_every: 2,
            global_pool_channels: 4,
            policy_channels: 8,
            value_channels: 8,
            value_hidden: 16,
            material_utility: 0.0,
            material_relative: false,
            value_counts_material: false,
            attack_planes: false,
        }
    }

    /// The network a benchmark or tool names: `tiny`, `cpu`, `gpu`, or `<blocks>x<channels>`
    /// (the CPU network's heads on a trunk of that shape, e.g. `4x48`), so a shape can be
    /// measured before a run config asks for it.
    pub fn named(name: &str) -> Result<Self, NnError> {
        let config = match name {
            "tiny" => ModelConfig::tiny(),
            "cpu" => ModelConfig::cpu_default(),
            "gpu" => ModelConfig::gpu_default(),
            shape => {
                let parsed = shape.split_once('x').and_then(|(blocks, channels)| {
                    Some((blocks.parse().ok()?, channels.parse().ok()?))
                });
                let Some((blocks, channels)) = parsed else {
                    return Err(NnError::InvalidConfig(format!(
                        "unknown network {name:?}: expected tiny, cpu, gpu or <blocks>x<channels> (e.g. 4x48)"
                    )));
                };
                ModelConfig {
                    blocks,
                    channels,
                    ..ModelConfig::cpu_default()
                }
            }
        };
        config.validate()?;
        Ok(config)
    }

    /// Whether `other` describes the same weights (everything but how the search reads the
    /// value), so a run may change `material_utility` and keep its checkpoints.
    pub fn same_weights_as(&self, other: &ModelConfig) -> bool {
        self.weight_differences(other).is_empty()
    }

    /// The keys in which `other` describes different weights, each as `key (self's value,
    /// other's value)`: what an error about an incompatible checkpoint names instead of two
    /// whole configurations.
    pub fn weight_differences(&self, other: &ModelConfig) -> Vec<String> {
        let fields = |c: &ModelConfig| match serde_json::to_value(c) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let (mine, theirs) = (fields(self), fields(other));
        mine.iter()
            .filter(|(key, _)| key.as_str() != "material_utility")
            .filter_map(|(key, value)| {
                let other_value = theirs.get(key).unwrap_or(&serde_json::Value::Null);
                (value != other_value).then(|| format!("{key} ({value}, {other_value})"))
            })
            .collect()
    }

    /// A lower bound of the network's parameter count (its residual convolutions and the
    /// policy output), computed without building it: a checkpoint whose weights file is too
    /// small for it is refused before anything is allocated.
    pub fn parameter_lower_bound(&self) -> u64 {
        let (blocks, c) = (self.blocks as u64, self.channels as u64);
        blocks * 2 * 9 * c * c
            + crate::move_encoding::POLICY_PLANES as u64 * self.policy_channels as u64
    }

    /// Whether block `index` (0-based) is a global pooling block.
    pub fn is_global_pool_block(&self, index: usize) -> bool {
        self.global_pool_every > 0 && (index + 1).is_multiple_of(self.global_pool_every)
    }

    /// Rejects shapes the network cannot be built with (a clear error instead of a libtorch
    /// crash deep inside a convolution).
    pub fn validate(&self) -> Result<(), NnError> {
        let bad = |why: String| Err(NnError::InvalidConfig(why));
        if self.blocks == 0 || self.channels == 0 {
            return bad("blocks and channels must be positive".into());
        }
        // Upper bounds before anything is allocated: a model card from anyone is read
        // through this (100,000 channels asked libtorch for 360 GB and aborted the process).
        for (what, value, limit) in [
            ("blocks", self.blocks, MAX_BLOCKS),
            ("channels", self.channels, MAX_WIDTH),
            ("policy_channels", self.policy_channels, MAX_WIDTH),
            ("value_channels", self.value_channels, MAX_WIDTH),
            ("value_hidden", self.value_hidden, MAX_WIDTH),
        ] {
            if value > limit {
                return bad(format!("{what} must be at most {limit}, not {value}"));
            }
        }
        if self.stem_kernel != 1 && self.stem_kernel != 3 && self.stem_kernel != 5 {
            return bad(format!(
                "stem_kernel must be 1, 3 or 5, not {}",
                self.stem_kernel
            ));
        }
        if self.global_pool_every > 0
            && (self.global_pool_channels == 0 || self.global_pool_channels >= self.channels)
        {
            return bad(format!(
                "global_pool_channels ({}) must be in 1..channels ({})",
                self.global_pool_channels, self.channels
            ));
        }
        if self.policy_channels == 0 || self.value_channels == 0 || self.value_hidden == 0 {
            return bad("head widths must be positive".into());
        }
        if !(0.0..=1.0).contains(&self.material_utility) {
            return bad(format!(
                "material_utility must lie in [0, 1], not {}",
                self.material_utility
            ));
        }
        Ok(())
    }
}

/// Where the network runs. Text form: `auto`, `cpu`, `cuda` or `cuda:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeviceSpec {
    /// CUDA device 0 when libtorch sees one, otherwise the CPU.
    #[default]
    Auto,
    Cpu,
    Cuda(usize),
}

impl DeviceSpec {
    /// The libtorch device this resolves to on this machine; asking for CUDA where there is none
    /// is an error, not a silent fall-back.
    pub fn resolve(self) -> Result<tch::Device, NnError> {
        match self {
            DeviceSpec::Auto => Ok(tch::Device::cuda_if_available()),
            DeviceSpec::Cpu => Ok(tch::Device::Cpu),
            DeviceSpec::Cuda(index) => {
                let count = tch::Cuda::device_count() as usize;
                if index < count {
                    Ok(tch::Device::Cuda(index))
                } else {
                    Err(NnError::DeviceUnavailable(format!(
                        "cuda:{index} requested but libtorch sees {count} CUDA device(s)"
                    )))
                }
            }
        }
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSpec::Auto => f.write_str("auto"),
            DeviceSpec::Cpu => f.write_str("cpu"),
            DeviceSpec::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

impl FromStr for DeviceSpec {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(DeviceSpec::Auto),
            "cpu" => Ok(DeviceSpec::Cpu),
            "cuda" | "gpu" => Ok(DeviceSpec::Cuda(0)),
            other => other
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(DeviceSpec::Cuda)
                .ok_or_else(|| {
                    NnError::InvalidConfig(format!(
                        "unknown device {s:?} (auto | cpu | cuda | cuda:N)"
                    ))
                }),
        }
    }
}

impl Serialize for DeviceSpec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DeviceSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Number format of the inference copy of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// bfloat16 on a CPU with AMX (`hardware::cpu_has_amx_bf16`), else float32 on the CPU;
    /// float16 on CUDA.
    #[default]
    Auto,
    #[serde(alias = "f32", alias = "fp32")]
    Float32,
    #[serde(alias = "bf16")]
    BFloat16,
    #[serde(alias = "f16", alias = "fp16", alias = "half")]
    Float16,
}

impl Precision {
    /// The tensor kind used on `device`.
    pub fn resolve(self, device: tch::Device) -> tch::Kind {
        match self {
            Precision::Float32 => tch::Kind::Float,
            Precision::BFloat16 => tch::Kind::BFloat16,
            Precision::Float16 => tch::Kind::Half,
            Precision::Auto if device.is_cuda() => tch::Kind::Half,
            Precision::Auto if hardware::cpu_has_amx_bf16() => tch::Kind::BFloat16,
            Precision::Auto => tch::Kind::Float,
        }
    }
}

impl FromStr for Precision {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Self, NnError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Precision::Auto),
            "f32" | "fp32" | "float32" => Ok(Precision::Float32),
            "bf16" | "bfloat16" => Ok(Precision::BFloat16),
            "f16" | "fp16" | "half" | "float16" => Ok(Precision::Float16),
            _ => Err(NnError::InvalidConfig(format!(
                "unknown precision {s:?} (auto | f32 | bf16 | f16)"
            ))),
        }
    }
}

/// How the inference copy runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuntimeConfig {
    pub device: DeviceSpec,
    pub precision: Precision,
    /// Channels-last (NHWC) memory layout: `None` = on for CPU bfloat16 (oneDNN's fast path),
    /// off otherwise.
    pub channels_last: Option<bool>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            device: DeviceSpec::Auto,
            precision: Precision::Auto,
            channels_last: None,
        }
    }
}

impl RuntimeConfig {
    /// Device, kind and layout this configuration resolves to on this machine.
    pub fn resolve(&self) -> Result<ResolvedRuntime, NnError> {
        let device = self.device.resolve()?;
        let kind = self.precision.resolve(device);
        if device == tch::Device::Cpu && kind == tch::Kind::Half {
            return Err(NnError::InvalidConfig(
                "float16 inference is only supported on CUDA".into(),
            ));
        }
        let channels_last = self
            .channels_last
            .unwrap_or(device == tch::Device::Cpu && kind == tch::Kind::BFloat16);
        Ok(ResolvedRuntime {
            device,
            kind,
            channels_last,
        })
    }
}

/// A [`RuntimeConfig`] resolved against this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedRuntime {
    pub device: tch::Device,
    pub kind: tch::Kind,
    pub channels_last: bool,
}

impl ResolvedRuntime {
    /// float32 in the default (NCHW) layout on `device`: how the master network runs.
    pub fn float32(device: tch::Device) -> Self {
        ResolvedRuntime {
            device,
            kind: tch::Kind::Float,
            channels_last: false,
        }
    }

    /// `[N, C, H, W]` input moved to this device, kind and layout (no copy when it already
    /// is), so that a network stored that way gets it without a conversion of its own.
    pub fn prepare_input(&self, input: &tch::Tensor) -> tch::Tensor {
        let input = input.to_device(self.device).to_kind(self.kind);
        if self.channels_last {
            crate::model::to_channels_last(&input)
        } else {
            input
        }
    }
}

impl fmt::Display for ResolvedRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            tch::Kind::Float => "f32",
            tch::Kind::BFloat16 => "bf16",
            tch::Kind::Half => "f16",
            _ => "other",
        };
        let device = match self.device {
            tch::Device::Cpu => "cpu".to_string(),
            tch::Device::Cuda(i) => format!("cuda:{i}"),
            other => format!("{other:?}"),
        };
        write!(
            f,
            "{device} {kind}{}",
            if self.channels_last {
                " channels-last"
            } else {
                ""
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_are_named_by_size_or_trunk_shape() {
        assert_eq!(
            ModelConfig::named("cpu").unwrap(),
            ModelConfig::cpu_default()
        );
        assert_eq!(
            ModelConfig::named("gpu").unwrap(),
            ModelConfig::gpu_default()
        );
        assert_eq!(ModelConfig::named("tiny").unwrap(), ModelConfig::tiny());
        let small = ModelConfig::named("4x48").unwrap();
        assert_eq!((small.blocks, small.channels), (4, 48));
        assert_eq!(
            small.policy_channels,
            ModelConfig::cpu_default().policy_channels
        );
        for bad in [
            "", "big", "4x", "x48", "4x48x2", "-1x48", "0x48", "4x8", "99999x64",
        ] {
            let err = ModelConfig::named(bad).unwrap_err().to_string();
            assert!(!err.is_empty(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn device_spec_text_round_trips() {
        for text in ["auto", "cpu", "cuda:0", "cuda:3"] {
            let spec: DeviceSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!("cuda".parse::<DeviceSpec>().unwrap(), DeviceSpec::Cuda(0));
        assert!("tpu".parse::<DeviceSpec>().is_err());
        assert!("cuda:x".parse::<DeviceSpec>().is_err());
    }

    #[test]
    fn runtime_config_reads_from_json() {
        let config: RuntimeConfig =
            serde_json::from_str(r#"{"device": "cpu", "precision": "float32"}"#).unwrap();
        let short: RuntimeConfig =
            serde_json::from_str(r#"{"device": "cpu", "precision": "f32"}"#).unwrap();
        assert_eq!(short, config);
        assert!(
            serde_json::from_str::<RuntimeConfig>(r#"{"device": "cpu", "precision": "f8"}"#)
                .is_err()
        );
        assert_eq!(config.device, DeviceSpec::Cpu);
        let resolved = config.resolve().unwrap();
        assert_eq!(resolved.kind, tch::Kind::Float);
        assert!(!resolved.channels_last);
    }

    #[test]
    fn half_precision_on_cpu_is_rejected() {
        let config = RuntimeConfig {
            device: DeviceSpec::Cpu,
            precision: Precision::Float16,
            channels_last: None,
        };
        assert!(config.resolve().is_err());
    }

    #[test]
    fn configs_validate() {
        ModelConfig::cpu_default().validate().unwrap();
        ModelConfig::gpu_default().validate().unwrap();
        ModelConfig::tiny().validate().unwrap();
        let bad = ModelConfig {
            global_pool_channels: 64,
            ..ModelConfig::cpu_default()
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn the_material_heads_meaning_is_part_of_the_weights_and_old_cards_read_as_absolute() {
        let absolute = ModelConfig::cpu_default();
        let relative = ModelConfig {
            material_relative: true,
            ..absolute.clone()
        };
        assert!(!relative.same_weights_as(&absolute));
        let reweighted = ModelConfig {
            material_utility: 0.75,
            ..relative.clone()
        };
        assert!(reweighted.same_weights_as(&relative));
        assert!(reweighted.weight_differences(&relative).is_empty());
        assert_eq!(
            relative.weight_differences(&ModelConfig {
                blocks: absolute.blocks + 1,
                ..absolute.clone()
            }),
            [
                format!("blocks ({}, {})", absolute.blocks, absolute.blocks + 1),
                "material_relative (true, false)".to_string()
            ]
        );
        // A card written before the field existed.
        let mut old = serde_json::to_value(&absolute).unwrap();
        old.as_object_mut().unwrap().remove("material_relative");
        let read: ModelConfig = serde_json::from_value(old).unwrap();
        assert_eq!(read, absolute);
    }
}
