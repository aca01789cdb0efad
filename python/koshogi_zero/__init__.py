"""koshogi-zero for Python: the network as a PyTorch module, ONNX export, and training data.

* `koshogi_zero.model`: `KoshogiNet` (the twin of crates/nn's network), `load_model` (a
  checkpoint or an export, checked against its card), `save_checkpoint` (Rust loads it).
* `koshogi_zero.onnx_export`: the network as ONNX with named outputs and a dynamic batch,
  checked with onnxruntime (needs scripts/setup-python.sh).
* `koshogi_zero.data`: the files of `koshogi encode --shards` as training batches, and the
  trainer's loss.

docs/python.md describes all of it.
"""

from .errors import KoshogiError
from .model import (
    INPUT_PLANES,
    MATERIAL_SCALE,
    MOVES_LEFT_SCALE,
    OUTPUT_NAMES,
    POLICY_PLANES,
    KoshogiNet,
    ModelConfig,
    NetworkOutput,
    load_model,
    save_checkpoint,
)

__all__ = [
    "INPUT_PLANES",
    "MATERIAL_SCALE",
    "MOVES_LEFT_SCALE",
    "OUTPUT_NAMES",
    "POLICY_PLANES",
    "KoshogiError",
    "KoshogiNet",
    "ModelConfig",
    "NetworkOutput",
    "load_model",
    "save_checkpoint",
]
