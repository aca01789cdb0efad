#!/usr/bin/env python3
"""Print the top moves of a position with an exported koshogi-zero network (numpy + torch only).

Usage: export_example.py EXPORT_DIR ENCODE_DIR [--top K] [--json]

  EXPORT_DIR  written by `koshogi export --checkpoint <ckpt> --out EXPORT_DIR`
              (model.pt, model.safetensors, model-card.json)
  ENCODE_DIR  written by `koshogi encode <KSFEN|startpos> --out ENCODE_DIR`
              (features.npy, moves.json)

The module returns one packed float32 matrix [N, 299*361 + 5] (see model-card.json "outputs"):
policy leg logits (plane-major), 3 win/draw/loss logits, moves left / 256, material / 16.
Exactly as docs/move-encoding.md says, a move's logit is the sum of its legs' entries
policy[plane * 361 + point], and the policy is the softmax over the legal moves only.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch


def load_export(export_dir):
    with open(os.path.join(export_dir, "model-card.json")) as f:
        card = json.load(f)
    if card.get("format") != "koshogi-export":
        sys.exit(f"{export_dir}: not a koshogi export (format {card.get('format')!r})")
    if not card.get("torchscript_file"):
        sys.exit(f"{export_dir}: this export has no TorchScript module (made with --format onnx); "
                 "export again with --format torchscript, or use python/koshogi_zero")
    module = torch.jit.load(os.path.join(export_dir, card["torchscript_file"]), map_location="cpu")
    module.eval()
    return card, module


def split_outputs(card, packed):
    """The packed [N, W] output as {name: [N, width] array}, in the card's column order."""
    heads, first = {}, 0
    for spec in card["outputs"]:
        width = spec["shape"][1]
        heads[spec["name"]] = packed[:, first:first + width]
        first += width
    assert first == card["packed_output_width"] == packed.shape[1]
    return heads


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export_dir")
    parser.add_argument("encode_dir")
    parser.add_argument("--top", type=int, default=10, help="how many moves to print")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()

    card, module = load_export(args.export_dir)
    features = np.load(os.path.join(args.encode_dir, "features.npy"))
    with open(os.path.join(args.encode_dir, "moves.json")) as f:
        encoded = json.load(f)
    for key in ("feature_version", "move_encoding_version"):
        if encoded[key] != card["versions"][key]:
            sys.exit(f"{key}: encode dir has {encoded[key]}, export has {card['versions'][key]}")

    with torch.no_grad():
        packed = getattr(module, card["torchscript_method"])(torch.from_numpy(features)).numpy()
    heads = split_outputs(card, packed.astype(np.float64))
    policy = heads["policy"][0]          # 299 * 361 leg logits of the one position
    points = encoded["points"]
    logits = np.array([sum(policy[plane * points + point] for plane, point in mv["legs"])
                       for mv in encoded["moves"]])
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    wdl = np.exp(heads["wdl_logits"][0] - heads["wdl_logits"][0].max())
    wdl /= wdl.sum()

    order = sorted(range(len(probs)), key=lambda i: -probs[i])[:args.top]
    top = [{"canonical": encoded["moves"][i]["canonical"], "hodges": encoded["moves"][i]["hodges"],
            "probability": float(probs[i]), "index": i} for i in order]
    summary = {
        "ksfen": encoded["ksfen"],
        "legal_moves": len(probs),
        "wdl": [float(x) for x in wdl],
        "moves_left": float(heads["moves_left"][0, 0] * 256.0),
        "material": float(heads["material"][0, 0] * 16.0),
        "top": top,
    }
    if args.json:
        print(json.dumps(summary))
        return
    print(f"position: {summary['ksfen']}")
    print(f"legal moves: {summary['legal_moves']}")
    print("win/draw/loss (side to move): " + " / ".join(f"{x:.3f}" for x in summary["wdl"]))
    print(f"moves left: {summary['moves_left']:.1f}  material: {summary['material']:+.2f}")
    print(f"{'rank':>4}  {'probability':>11}  {'canonical':<16} hodges")
    for rank, move in enumerate(top, 1):
        print(f"{rank:>4}  {move['probability']:>11.5f}  {move['canonical']:<16} {move['hodges']}")


if __name__ == "__main__":
    main()
