#!/usr/bin/env python3
"""Fine-tune a koshogi-zero network in PyTorch on shards encoded by `koshogi encode --run`.

Usage: train_example.py ENCODED_DIR --model CKPT [--steps 1] [--batch-size 64] [--lr 0.02]
                        [--mirror 0.5] [--seed 0] [--save DIR] [--json]

  ENCODED_DIR  written by `koshogi encode --run RUN --out ENCODED_DIR` (manifest.json and
               one encoded-*.npz per replay shard)
  --model      a checkpoint (step directory or model.json) or an export directory
  --save DIR   write the trained weights as a checkpoint (DIR/model.json + model.safetensors)
               that `koshogi play --model DIR` / `koshogi arena --a policy:DIR` load

The loop is the Rust trainer's in miniature: batches drawn file by file with mirror
augmentation, the trainer's losses (koshogi_zero.data.compute_losses with the run's loss
weights), SGD with Nesterov momentum 0.9 and weight decay 1e-4 on weights only (the defaults of
[train.optimizer]). It reports the loss of the first batch before and after training.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from koshogi_zero import load_model, save_checkpoint  # noqa: E402
from koshogi_zero.data import compute_losses, iterate_batches, loss_weights  # noqa: E402
from koshogi_zero.errors import KoshogiError, run_main  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("encoded_dir")
    parser.add_argument("--model", required=True, help="checkpoint or export to start from")
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--mirror", type=float, default=0.5, help="mirror probability")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0 = default)")
    parser.add_argument("--save", help="write the trained network as a checkpoint here")
    parser.add_argument("--json", action="store_true", help="print a JSON summary")
    args = parser.parse_args()
    if args.steps < 1:
        raise KoshogiError(f"--steps must be at least 1, not {args.steps}")
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    model, card = load_model(args.model)
    weights = loss_weights(args.encoded_dir)
    decayed = [p for p in model.parameters() if p.dim() > 1]
    others = [p for p in model.parameters() if p.dim() <= 1]
    optimizer = torch.optim.SGD(
        [{"params": decayed, "weight_decay": 1e-4}, {"params": others, "weight_decay": 0.0}],
        lr=args.lr, momentum=0.9, nesterov=True)

    def batches():
        epoch = 0
        while True:
            yielded = False
            for batch in iterate_batches(args.encoded_dir, args.batch_size, shuffle=True,
                                         mirror_probability=args.mirror,
                                         seed=args.seed + epoch):
                yielded = True
                yield batch
            if not yielded:
                raise KoshogiError(f"{args.encoded_dir}: holds no positions")
            epoch += 1

    stream = batches()
    first = next(stream)

    def evaluate(batch):
        model.eval()
        with torch.no_grad():
            return {k: float(v) for k, v in compute_losses(model(batch.features), batch, weights).items()}

    before = evaluate(first)
    history = []
    batch = first
    for step in range(args.steps):
        model.train()
        optimizer.zero_grad(set_to_none=True)
        losses = compute_losses(model(batch.features), batch, weights)
        losses["total"].backward()
        optimizer.step()
        history.append({k: float(v.detach()) for k, v in losses.items()})
        if not args.json:
            parts = "  ".join(f"{k} {v:.4f}" for k, v in history[-1].items())
            print(f"step {step + 1}: batch of {batch.features.shape[0]}  {parts}")
        if step + 1 < args.steps:
            batch = next(stream)
    after = evaluate(first)
    saved = None
    if args.save:
        step = int(card.get("training_step", 0)) + args.steps
        saved = save_checkpoint(model, args.save, step, card.get("rules_options", {}))
    summary = {"before": before, "after": after, "steps": history, "saved": saved}
    if args.json:
        print(json.dumps(summary))
        return
    print(f"first batch total loss: {before['total']:.4f} before, {after['total']:.4f} after "
          f"{args.steps} step(s)")
    if saved:
        print(f"saved {saved}")


if __name__ == "__main__":
    run_main(main, "train_example.py")
