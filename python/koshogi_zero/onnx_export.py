"""The network as an ONNX graph with four named outputs and a dynamic batch.

    python -m koshogi_zero.onnx_export MODEL --out model.onnx [--json]

MODEL is a checkpoint (step directory or model.json) or an export directory;
`koshogi export --format onnx` runs this on its own export directory. The graph comes from
the Python twin (`koshogi_zero.model`) through `torch.onnx.export(..., dynamo=True)` (the
`torch.export` based exporter), weights embedded. Input `features` float32 [N, 142, 19, 19];
outputs `policy` [N, 299, 19, 19], `wdl_logits` [N, 3], `moves_left` [N], `material` [N]
(docs/export.md). After writing, the file is loaded with onnxruntime and run at two batch
sizes against the twin; a difference above `--tolerance` is an error. Needs onnx, onnxscript
and onnxruntime: `bash scripts/setup-python.sh`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import warnings

import torch

from .errors import KoshogiError, run_main
from .model import BOARD_SIZE, INPUT_PLANES, OUTPUT_NAMES, POLICY_PLANES, load_model

INPUT_NAME = "features"
#: The batch dimension's name in the graph.
BATCH = "N"


def output_shapes() -> dict:
    return {
        "policy": [BATCH, POLICY_PLANES, BOARD_SIZE, BOARD_SIZE],
        "wdl_logits": [BATCH, 3],
        "moves_left": [BATCH],
        "material": [BATCH],
    }


def require_onnx_packages() -> None:
    missing = []
    for name in ("onnx", "onnxscript", "onnxruntime"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise KoshogiError(
            f"{sys.executable} lacks {', '.join(missing)}: run `bash scripts/setup-python.sh` "
            "(it installs onnx, onnxscript and onnxruntime into the project's Python environment)"
        )


def export_onnx(model: torch.nn.Module, path: str) -> int:
    """Writes `model` as ONNX to `path` (atomically); returns the opset version used."""
    import onnx

    require_onnx_packages()
    model = model.eval().to("cpu")
    example = torch.zeros(2, INPUT_PLANES, BOARD_SIZE, BOARD_SIZE)
    batch = torch.export.Dim(BATCH, min=1, max=1 << 16)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".tmp-{os.getpid()}-{os.path.basename(path)}")
    # The exporter logs notes that concern other libraries (torchvision not installed).
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(
            model,
            (example,),
            dynamo=True,
            input_names=[INPUT_NAME],
            output_names=list(OUTPUT_NAMES),
            dynamic_shapes={"features": {0: batch}},
            optimize=True,
            verbose=False,
        )
    proto = program.model_proto
    onnx.checker.check_model(proto)
    try:
        onnx.save_model(proto, tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return int(next(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")))


def check_with_onnxruntime(model: torch.nn.Module, path: str, inputs: list) -> dict:
    """Runs the ONNX file with onnxruntime (CPU) on each input batch and returns the largest
    absolute difference from the twin per output."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    if names != list(OUTPUT_NAMES) or [i.name for i in session.get_inputs()] != [INPUT_NAME]:
        raise KoshogiError(f"{path}: inputs/outputs are {names}, expected {list(OUTPUT_NAMES)}")
    worst = {name: 0.0 for name in OUTPUT_NAMES}
    for features in inputs:
        got = session.run(None, {INPUT_NAME: features.numpy()})
        with torch.no_grad():
            want = model(features)
        for name, value in zip(OUTPUT_NAMES, got):
            expected = getattr(want, name)
            if tuple(value.shape) != tuple(expected.shape):
                raise KoshogiError(f"{path}: output {name} has shape {list(value.shape)}, "
                                   f"the model gives {list(expected.shape)}")
            diff = float((torch.from_numpy(value) - expected).abs().max())
            worst[name] = max(worst[name], diff)
    return worst


def sample_inputs(seed: int = 0) -> list:
    """Two batches (1 and 3 positions) of sparse 0/1 planes with a constant ply plane, shaped
    like real inputs."""
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for n in (1, 3):
        x = (torch.rand(n, INPUT_PLANES, BOARD_SIZE, BOARD_SIZE, generator=generator) < 0.02).float()
        x[:, 138] = torch.rand(n, 1, 1, generator=generator)
        x[:, 139] = 1.0
        batches.append(x)
    return batches


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m koshogi_zero.onnx_export",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="checkpoint (step dir or model.json) or export dir")
    parser.add_argument("--out", required=True, help="the .onnx file to write")
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="largest accepted difference between onnxruntime and the twin")
    parser.add_argument("--json", action="store_true", help="print a JSON summary")
    args = parser.parse_args()
    require_onnx_packages()
    torch.set_num_threads(1)
    model, _card = load_model(args.model)
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        raise KoshogiError(f"{args.out}: its directory does not exist")
    opset = export_onnx(model, args.out)
    diffs = check_with_onnxruntime(model, args.out, sample_inputs())
    worst = max(diffs.values())
    if not worst <= args.tolerance:
        raise KoshogiError(f"{args.out}: onnxruntime differs from the PyTorch model by {worst:g} "
                           f"(tolerance {args.tolerance:g}): {diffs}")
    import onnx
    import onnxruntime

    summary = {
        "file": os.path.basename(args.out),
        "opset": opset,
        "inputs": [{"name": INPUT_NAME, "dtype": "float32",
                    "shape": [BATCH, INPUT_PLANES, BOARD_SIZE, BOARD_SIZE]}],
        "outputs": [{"name": name, "dtype": "float32", "shape": shape}
                    for name, shape in output_shapes().items()],
        "exporter": f"torch {torch.__version__} torch.onnx.export(dynamo=True), "
                    f"onnx {onnx.__version__}, from python/koshogi_zero",
        "check": {"runtime": f"onnxruntime {onnxruntime.__version__}",
                  "batches": [1, 3], "max_abs_diff": diffs},
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"wrote {args.out} (opset {opset}); onnxruntime vs PyTorch, batches 1 and 3: "
              + ", ".join(f"{k} {v:.2g}" for k, v in diffs.items()))


if __name__ == "__main__":
    run_main(main, "koshogi_zero.onnx_export")
