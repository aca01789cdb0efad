"""Runs the Python twin of a network on positions written by `koshogi encode`.

    python -m koshogi_zero.evaluate MODEL ENCODE_DIR_OR_FEATURES [--top K] [--out OUT.npz]

MODEL is a checkpoint (step directory or model.json) or an export directory. The second
argument is a `koshogi encode <KSFEN|startpos> --out DIR` directory (features.npy and
moves.json: the legal moves are ranked too) or any float32 [N, 142, 19, 19] .npy file.
`--out` writes the raw outputs (policy [N, 299, 19, 19], wdl_logits [N, 3], moves_left [N],
material [N]) to an .npz file.
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
import torch

from .errors import KoshogiError, run_main
from .model import (MATERIAL_SCALE, MOVES_LEFT_SCALE, OUTPUT_NAMES, POINTS, load_features,
                    load_model, parameter_count)


def move_probabilities(policy: torch.Tensor, moves: list) -> torch.Tensor:
    """Probabilities of the legal moves of one position: softmax over the moves of the sum of
    each move's leg logits (`policy` [299, 19, 19]; `moves` as in moves.json)."""
    flat = policy.reshape(-1)
    logits = torch.stack([flat[[plane * POINTS + point for plane, point in mv["legs"]]].sum()
                          for mv in moves])
    return torch.softmax(logits, 0)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m koshogi_zero.evaluate",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="checkpoint (step dir or model.json) or export dir")
    parser.add_argument("input", help="koshogi encode output dir, or a features .npy file")
    parser.add_argument("--top", type=int, default=5, help="moves to list (with moves.json)")
    parser.add_argument("--out", help="write the raw outputs to this .npz file")
    args = parser.parse_args()

    moves = None
    features_path = args.input
    if os.path.isdir(args.input):
        features_path = os.path.join(args.input, "features.npy")
        moves_path = os.path.join(args.input, "moves.json")
        if os.path.isfile(moves_path):
            try:
                with open(moves_path) as f:
                    moves = json.load(f)["moves"]
            except (ValueError, KeyError, TypeError) as error:
                raise KoshogiError(f"{moves_path}: not a koshogi encode moves.json ({error})") from None
    model, card = load_model(args.model)
    features = load_features(features_path)
    with torch.no_grad():
        out = model(features)
    if args.out:
        np.savez(args.out, **{name: getattr(out, name).numpy() for name in OUTPUT_NAMES})
    material = "material change" if model.config.material_relative else "material"
    print(f"model: training step {card.get('training_step', '?')}, "
          f"{parameter_count(model)} parameters")
    for i in range(features.shape[0]):
        wdl = torch.softmax(out.wdl_logits[i], -1).tolist()
        print(f"position {i}: win/draw/loss {wdl[0]:.3f} / {wdl[1]:.3f} / {wdl[2]:.3f}  "
              f"moves left {float(out.moves_left[i]) * MOVES_LEFT_SCALE:.1f}  "
              f"{material} {float(out.material[i]) * MATERIAL_SCALE:+.2f}")
    if moves is not None and features.shape[0] == 1:
        with torch.no_grad():
            probs = move_probabilities(out.policy[0], moves)
        order = torch.argsort(probs, descending=True)[: max(args.top, 0)]
        print(f"legal moves: {len(moves)}")
        for rank, index in enumerate(order.tolist(), 1):
            print(f"{rank:>4}  {float(probs[index]):>9.5f}  {moves[index]['canonical']}")


if __name__ == "__main__":
    run_main(main, "koshogi_zero.evaluate")
