"""The koshogi-zero network as a plain PyTorch module: the twin of `crates/nn/src/model.rs`.

`KoshogiNet(config)` builds the network of a model card's `architecture` with the Rust model's
tensor names, so `load_model(path)` reads a checkpoint (`model.json` + `model.safetensors`) or
an export (`model-card.json` + `model.safetensors`) with `load_state_dict(strict=True)`, and
its outputs equal the Rust model's (tested to 1e-5 on real positions). `save_checkpoint` writes
a checkpoint the Rust side loads (`koshogi play --model`, `koshogi arena`, `koshogi export`).

Architecture (docs/network.md):
* stem: conv k x k, 142 -> C (k = stem_kernel);
* `blocks` pre-activation residual blocks `x + conv2(relu(conv1(relu(x))))`, 3 x 3, no batch
  norm; in every `global_pool_every`-th block the last `global_pool_channels` outputs of conv1
  are pooled over the board (mean, max) and a linear layer turns them into biases for the
  other channels, which alone feed conv2;
* trunk = relu(x);
* policy head: 1 x 1 conv C -> P, plus a bias from 1 x 1 conv C -> P, relu, mean+max pooling,
  linear 2P -> P; relu; 1 x 1 conv P -> 299 policy planes (leg logits, docs/move-encoding.md);
* value head: 1 x 1 conv C -> V, relu, mean+max pooling, linear 2V -> H, relu; linear H -> 3
  win/draw/loss logits; linear H -> 2 = (moves left / 256, material / 16). With
  `value_counts_material`, m = tanh(balance / 10) of the material counted from the piece planes
  (each plane's value is the buffer `value.material_values`, read from the weights) adds
  linear 1 -> H (no bias) before the relu and linear 1 -> 3 (no bias) to the logits.

Command line: `python -m koshogi_zero.evaluate` (evaluate.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import time
from typing import Any, NamedTuple

import torch
from torch import nn

from .errors import KoshogiError

INPUT_PLANES = 142
POLICY_PLANES = 299
BOARD_SIZE = 19
POINTS = BOARD_SIZE * BOARD_SIZE
FEATURE_VERSION = 2
MOVE_ENCODING_VERSION = 1
#: The moves-left head predicts remaining plies / MOVES_LEFT_SCALE.
MOVES_LEFT_SCALE = 256.0
#: The material head predicts the material balance (or its change) / MATERIAL_SCALE, in pawns.
MATERIAL_SCALE = 16.0
#: Piece states per side: the first 2 x 64 input planes are the mover's and the opponent's pieces.
PIECE_STATES = 64
#: The value head reads counted material as tanh(balance / MATERIAL_TEMPERATURE) (Rust's
#: koshogi_rules::material::MATERIAL_TEMPERATURE).
MATERIAL_TEMPERATURE = 10.0
#: Bounds of `ModelConfig.validate` (the same as crates/nn/src/config.rs).
MAX_BLOCKS = 64
MAX_WIDTH = 1024

CHECKPOINT_FORMAT = "koshogi-nn-checkpoint"
EXPORT_FORMAT = "koshogi-export"
CARD_FORMAT_VERSION = 1
#: A weights file larger than this is refused before it is read (as in Rust).
MAX_WEIGHTS_BYTES = 2 << 30
#: The output names, in the order `KoshogiNet.forward` returns them (and ONNX names them).
OUTPUT_NAMES = ("policy", "wdl_logits", "moves_left", "material")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """A model card's `architecture` (`ModelConfig` in crates/nn/src/config.rs); missing keys
    take the default CPU network's values, as in Rust."""

    blocks: int = 6
    channels: int = 64
    stem_kernel: int = 3
    global_pool_every: int = 3
    global_pool_channels: int = 16
    policy_channels: int = 32
    value_channels: int = 32
    value_hidden: int = 64
    material_utility: float = 0.0
    material_relative: bool = False
    value_counts_material: bool = False
    # The input's attack planes (140, 141) are filled: the network itself is the same, the
    # encoder (`koshogi encode --attack-planes`, the shard export) must fill them.
    attack_planes: bool = False

    @classmethod
    def from_dict(cls, architecture: Any, where: str = "architecture") -> "ModelConfig":
        if not isinstance(architecture, dict):
            raise KoshogiError(f"{where}: expected a JSON object, found {type(architecture).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(architecture) - set(fields))
        if unknown:
            raise KoshogiError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(fields)})")
        values = {}
        for name, value in architecture.items():
            kind = fields[name].type
            if kind == "bool":
                ok = isinstance(value, bool)
            elif kind == "float":
                ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            else:
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            if not ok:
                raise KoshogiError(f"{where}: {name} must be a {kind}, not {value!r}")
            values[name] = value
        config = cls(**values)
        config.validate(where)
        return config

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def is_global_pool_block(self, index: int) -> bool:
        return self.global_pool_every > 0 and (index + 1) % self.global_pool_every == 0

    def validate(self, where: str = "architecture") -> None:
        """The checks of the Rust `ModelConfig::validate`."""

        def bad(why: str) -> KoshogiError:
            return KoshogiError(f"{where}: {why}")

        if self.blocks == 0 or self.channels == 0:
            raise bad("blocks and channels must be positive")
        for name, value, limit in (
            ("blocks", self.blocks, MAX_BLOCKS),
            ("channels", self.channels, MAX_WIDTH),
            ("policy_channels", self.policy_channels, MAX_WIDTH),
            ("value_channels", self.value_channels, MAX_WIDTH),
            ("value_hidden", self.value_hidden, MAX_WIDTH),
        ):
            if value > limit:
                raise bad(f"{name} must be at most {limit}, not {value}")
        if self.stem_kernel not in (1, 3, 5):
            raise bad(f"stem_kernel must be 1, 3 or 5, not {self.stem_kernel}")
        if self.global_pool_every > 0 and not 0 < self.global_pool_channels < self.channels:
            raise bad(
                f"global_pool_channels ({self.global_pool_channels}) must be in "
                f"1..channels ({self.channels})"
            )
        if min(self.policy_channels, self.value_channels, self.value_hidden) == 0:
            raise bad("head widths must be positive")
        if not 0.0 <= self.material_utility <= 1.0:
            raise bad(f"material_utility must lie in [0, 1], not {self.material_utility}")


class NetworkOutput(NamedTuple):
    """Raw outputs, as `NetworkOutput` in Rust."""

    #: [N, 299, 19, 19] policy leg logits (a move's logit is the sum of its legs' entries).
    policy: torch.Tensor
    #: [N, 3] win/draw/loss logits for the side to move.
    wdl_logits: torch.Tensor
    #: [N] remaining plies / 256.
    moves_left: torch.Tensor
    #: [N] material balance / 16 (its change when `material_relative`; docs/export.md).
    material: torch.Tensor


def global_pool(x: torch.Tensor) -> torch.Tensor:
    """Mean and max over the board of each channel: [N, C, H, W] -> [N, 2C]."""
    return torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)


def _conv(c_in: int, c_out: int, kernel: int) -> nn.Conv2d:
    return nn.Conv2d(c_in, c_out, kernel, padding=kernel // 2)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int, pool_channels: int, residual_scale: float):
        super().__init__()
        self.regular = channels - pool_channels
        self.pool_channels = pool_channels
        self.conv1 = _conv(channels, channels, 3)
        self.conv2 = _conv(self.regular, channels, 3)
        with torch.no_grad():
            self.conv2.weight.mul_(residual_scale)  # Fixup-style start, as in Rust
        if pool_channels:
            self.pool = nn.Linear(2 * pool_channels, self.regular)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv1(torch.relu(x))
        if self.pool_channels:
            regular, pooled = torch.split(h, [self.regular, self.pool_channels], dim=1)
            bias = self.pool(global_pool(torch.relu(pooled)))
            h = regular + bias[:, :, None, None]
        return x + self.conv2(torch.relu(h))


class PolicyHead(nn.Module):
    def __init__(self, channels: int, policy_channels: int):
        super().__init__()
        self.features = _conv(channels, policy_channels, 1)
        self.pool_source = _conv(channels, policy_channels, 1)
        self.pool_bias = nn.Linear(2 * policy_channels, policy_channels)
        self.output = _conv(policy_channels, POLICY_PLANES, 1)

    def forward(self, trunk: torch.Tensor) -> torch.Tensor:
        bias = self.pool_bias(global_pool(torch.relu(self.pool_source(trunk))))
        return self.output(torch.relu(self.features(trunk) + bias[:, :, None, None]))


class ValueHead(nn.Module):
    def __init__(self, channels: int, value_channels: int, value_hidden: int,
                 counts_material: bool = False):
        super().__init__()
        self.features = _conv(channels, value_channels, 1)
        self.hidden = nn.Linear(2 * value_channels, value_hidden)
        self.wdl = nn.Linear(value_hidden, 3)
        self.aux = nn.Linear(value_hidden, 2)
        self.counts_material = counts_material
        if counts_material:
            # The piece states' values come with the weights (crates/nn/src/counted_material.rs).
            self.register_buffer("material_values", torch.zeros(PIECE_STATES))
            self.material_hidden = nn.Linear(1, value_hidden, bias=False)
            self.material_wdl = nn.Linear(1, 3, bias=False)

    def counted_material(self, features: torch.Tensor) -> torch.Tensor:
        """[N, 1]: tanh(balance / 10) of the mover's material minus the opponent's, counted
        from the piece planes with the weights' piece values."""
        own = features[:, :PIECE_STATES]
        theirs = features[:, PIECE_STATES:2 * PIECE_STATES]
        balance = (own - theirs).sum(dim=(2, 3)) @ self.material_values
        return torch.tanh(balance / MATERIAL_TEMPERATURE).unsqueeze(1)

    def forward(self, trunk: torch.Tensor, features: torch.Tensor):
        hidden = self.hidden(global_pool(torch.relu(self.features(trunk))))
        m = self.counted_material(features) if self.counts_material else None
        if m is not None:
            hidden = hidden + self.material_hidden(m)
        hidden = torch.relu(hidden)
        aux = self.aux(hidden)
        wdl = self.wdl(hidden)
        if m is not None:
            wdl = wdl + self.material_wdl(m)
        return wdl, aux[:, 0], aux[:, 1]


class KoshogiNet(nn.Module):
    """The network. `forward(features)` takes float32 [N, 142, 19, 19] (docs/input-features.md)
    and returns a `NetworkOutput`. Parameter names equal the Rust model's tensor names
    (`stem.weight`, `block0.conv1.weight`, ..., `value.aux.bias`)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        config.validate()
        self.config = config
        c = config.channels
        self.stem = _conv(INPUT_PLANES, c, config.stem_kernel)
        scale = 1.0 / math.sqrt(config.blocks)
        for i in range(config.blocks):
            pool = config.global_pool_channels if config.is_global_pool_block(i) else 0
            self.add_module(f"block{i}", ResidualBlock(c, pool, scale))
        self.policy = PolicyHead(c, config.policy_channels)
        self.value = ValueHead(c, config.value_channels, config.value_hidden,
                               config.value_counts_material)

    def blocks(self):
        return [getattr(self, f"block{i}") for i in range(self.config.blocks)]

    def forward(self, features: torch.Tensor) -> NetworkOutput:
        x = self.stem(features)
        for block in self.blocks():
            x = block(x)
        trunk = torch.relu(x)
        wdl_logits, moves_left, material = self.value(trunk, features)
        return NetworkOutput(self.policy(trunk), wdl_logits, moves_left, material)


# ----------------------------------------------------------------------------------------------
# Model cards and weights


def resolve_card(path: str) -> str:
    """The card file of `path`: the file itself, or `model-card.json` (an export) or
    `model.json` (a checkpoint step directory) inside a directory."""
    if os.path.isdir(path):
        for name in ("model-card.json", "model.json"):
            candidate = os.path.join(path, name)
            if os.path.isfile(candidate):
                return candidate
        raise KoshogiError(
            f"{path}: no model card (model-card.json of an export or model.json of a checkpoint)"
        )
    if not os.path.exists(path):
        raise KoshogiError(f"{path}: no such file or directory")
    return path


def read_card(path: str) -> tuple[dict, str]:
    """Reads and checks a checkpoint or export card: (card, card path)."""
    card_path = resolve_card(path)
    if os.path.getsize(card_path) > 16 << 20:
        raise KoshogiError(f"{card_path}: too large for a model card")
    try:
        with open(card_path, "rb") as f:
            card = json.loads(f.read().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise KoshogiError(f"{card_path}: not a JSON model card ({error})") from None
    if not isinstance(card, dict):
        raise KoshogiError(f"{card_path}: not a JSON model card (not an object)")
    fmt = card.get("format")
    if fmt == CHECKPOINT_FORMAT:
        versions = card
        planes = (card.get("input_planes"), card.get("policy_planes"))
    elif fmt == EXPORT_FORMAT:
        versions = card.get("versions") or {}
        planes = (INPUT_PLANES, POLICY_PLANES)
    else:
        raise KoshogiError(
            f"{card_path}: format {fmt!r} is neither {CHECKPOINT_FORMAT!r} nor {EXPORT_FORMAT!r}"
        )
    if card.get("format_version") != CARD_FORMAT_VERSION:
        raise KoshogiError(
            f"{card_path}: card format version {card.get('format_version')!r}, "
            f"this code reads {CARD_FORMAT_VERSION}"
        )
    for key, expected in (("feature_version", FEATURE_VERSION),
                          ("move_encoding_version", MOVE_ENCODING_VERSION)):
        if versions.get(key) != expected:
            raise KoshogiError(
                f"{card_path}: {key} is {versions.get(key)!r}, this code implements {expected}"
            )
    if planes != (INPUT_PLANES, POLICY_PLANES):
        raise KoshogiError(
            f"{card_path}: {planes[0]} input / {planes[1]} policy planes, "
            f"this code uses {INPUT_PLANES} / {POLICY_PLANES}"
        )
    weights = card.get("weights_file")
    if not isinstance(weights, str) or not weights or os.path.basename(weights) != weights \
            or weights in (".", ".."):
        raise KoshogiError(f"{card_path}: weights_file {weights!r} is not a file name beside the card")
    card["architecture"] = ModelConfig.from_dict(card.get("architecture"),
                                                 f"{card_path}: architecture").to_dict()
    return card, card_path


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_weights(path: str) -> dict[str, torch.Tensor]:
    """The tensors of a safetensors file (float32 on the CPU)."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    if not os.path.isfile(path):
        raise KoshogiError(f"{path}: no such weights file")
    if os.path.getsize(path) > MAX_WEIGHTS_BYTES:
        raise KoshogiError(f"{path}: larger than {MAX_WEIGHTS_BYTES} bytes, not a koshogi network")
    try:
        tensors = load_file(path)
    except (SafetensorError, ValueError, RuntimeError) as error:
        raise KoshogiError(f"{path}: not a readable safetensors file ({error})") from None
    return {name: t.to(torch.float32) for name, t in tensors.items()}


def check_weights_match(model: nn.Module, tensors: dict[str, torch.Tensor], weights_path: str,
                        config: ModelConfig) -> None:
    """Every tensor the architecture needs is present with its shape, and nothing else."""
    expected = {name: tuple(t.shape) for name, t in model.state_dict().items()}
    arch = ", ".join(f"{k}={v}" for k, v in config.to_dict().items() if k != "material_utility")
    for name, shape in expected.items():
        if name not in tensors:
            raise KoshogiError(
                f"{weights_path} does not match the card's architecture ({arch}): "
                f"tensor {name} {list(shape)} is missing"
            )
        if tuple(tensors[name].shape) != shape:
            raise KoshogiError(
                f"{weights_path} does not match the card's architecture ({arch}): "
                f"tensor {name} has shape {list(tensors[name].shape)}, the architecture needs {list(shape)}"
            )
    extra = sorted(set(tensors) - set(expected))
    if extra:
        raise KoshogiError(
            f"{weights_path} does not match the card's architecture ({arch}): "
            f"it has tensor {extra[0]} {list(tensors[extra[0]].shape)}, which the architecture lacks"
        )


def load_model(path: str, device: str | torch.device = "cpu",
               check_hash: bool = True) -> tuple[KoshogiNet, dict]:
    """Loads a checkpoint (step directory or `model.json`) or an export (directory or
    `model-card.json`): (model in eval mode, card). Checks the card's versions, the weights'
    SHA-256 and every tensor's name and shape against the card's architecture."""
    card, card_path = read_card(path)
    weights_path = os.path.join(os.path.dirname(card_path), card["weights_file"])
    if not os.path.isfile(weights_path):
        raise KoshogiError(f"{card_path}: its weights file {weights_path} is missing")
    expected_hash = card.get("weights_sha256")
    if check_hash and expected_hash is not None and sha256_file(weights_path) != expected_hash:
        raise KoshogiError(
            f"{weights_path}: SHA-256 differs from the card's weights_sha256 "
            f"(the weights were changed or belong to another card)"
        )
    config = ModelConfig.from_dict(card["architecture"])
    model = KoshogiNet(config)
    tensors = read_weights(weights_path)
    check_weights_match(model, tensors, weights_path, config)
    model.load_state_dict(tensors, strict=True)
    model.eval()
    return model.to(device), card


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def save_checkpoint(model: KoshogiNet, directory: str, training_step: int,
                    rules_options: dict | None = None, name: str = "model") -> str:
    """Writes `directory/<name>.safetensors` then `directory/<name>.json` (a checkpoint card the
    Rust side loads), each atomically (temporary file, fsync, rename); returns the card path."""
    from safetensors.torch import save_file

    os.makedirs(directory, exist_ok=True)
    weights_name = f"{name}.safetensors"
    weights_path = os.path.join(directory, weights_name)
    tensors = {k: v.detach().to("cpu", torch.float32).contiguous()
               for k, v in model.state_dict().items()}
    tmp = os.path.join(directory, f".{weights_name}.tmp-{os.getpid()}")
    save_file(tensors, tmp)
    _commit(tmp, weights_path)
    card = {
        "format": CHECKPOINT_FORMAT,
        "format_version": CARD_FORMAT_VERSION,
        "feature_version": FEATURE_VERSION,
        "move_encoding_version": MOVE_ENCODING_VERSION,
        "input_planes": INPUT_PLANES,
        "policy_planes": POLICY_PLANES,
        "architecture": model.config.to_dict(),
        "parameter_count": parameter_count(model),
        "training_step": int(training_step),
        "rules_options": rules_options if rules_options is not None else {},
        "weights_file": weights_name,
        "weights_sha256": sha256_file(weights_path),
        "created_unix_seconds": int(time.time()),
    }
    card_path = os.path.join(directory, f"{name}.json")
    tmp = os.path.join(directory, f".{name}.json.tmp-{os.getpid()}")
    with open(tmp, "w") as f:
        f.write(json.dumps(card, indent=2) + "\n")
    _commit(tmp, card_path)
    return card_path


def _commit(tmp: str, target: str) -> None:
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, target)
    try:
        fd = os.open(os.path.dirname(target) or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass  # directory fsync is best effort


def load_features(path: str) -> torch.Tensor:
    """A float32 [N, 142, 19, 19] `.npy` file (`koshogi encode ... --out DIR` writes
    DIR/features.npy)."""
    import numpy as np

    if not os.path.isfile(path):
        raise KoshogiError(f"{path}: no such file")
    try:
        array = np.load(path, allow_pickle=False)
    except ValueError as error:
        raise KoshogiError(f"{path}: not a .npy array ({error})") from None
    if array.ndim == 3:
        array = array[None]
    if array.ndim != 4 or tuple(array.shape[1:]) != (INPUT_PLANES, BOARD_SIZE, BOARD_SIZE):
        raise KoshogiError(
            f"{path}: shape {list(array.shape)}, expected [N, {INPUT_PLANES}, 19, 19]"
        )
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32))
