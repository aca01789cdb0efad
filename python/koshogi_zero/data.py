"""Training data from `koshogi encode --run RUN --out DIR` (or `--shards`), and the trainer's loss.

The directory holds `manifest.json` and one `encoded-<seq>-<writer>.npz` per replay shard
(docs/python.md lists the members). `EncodedFile(path)` reads one file; `iterate_batches(dir,
batch_size)` streams batches file by file (memory: one file, ~9 KB per position, plus a
batch), shuffled within each file, with optional left-right mirror augmentation;
`compute_losses(output, batch)` is `koshogi_nn::training_step::compute_losses` in PyTorch
(tested equal to it): policy cross-entropy over the legal moves with the unlisted moves scored
as a group, WDL cross-entropy, Huber losses of the scaled moves-left and material heads.
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import torch
import torch.nn.functional as F

from .errors import KoshogiError
from .model import (BOARD_SIZE, FEATURE_VERSION, INPUT_PLANES, MATERIAL_SCALE,
                    MOVE_ENCODING_VERSION, MOVES_LEFT_SCALE, POINTS, POLICY_PLANES, NetworkOutput)

ENCODED_FORMAT = "koshogi-encoded-shards"
ENCODED_FORMAT_VERSION = 1
PLY_FRACTION_PLANE = 138
#: Logit of padding slots (`move_gather::PADDING_LOGIT`).
PADDING_LOGIT = -1.0e9
#: The policy output's width; index POLICY_WIDTH in a leg table is padding (a zero column).
POLICY_WIDTH = POLICY_PLANES * POINTS
MEMBERS = ("planes_packed", "ply_fraction", "move_offsets", "leg_offsets", "legs",
           "policy_target", "policy_listed", "policy_rest", "policy_weight", "played_move",
           "wdl_target", "moves_left", "material_target", "game_result", "search_value",
           "game_id", "ply", "source_row", "mirror_plane", "meta")


@dataclass
class LossWeights:
    """`[train.loss]` (koshogi-nn's `LossWeights`); the manifest records the run's."""

    policy: float = 1.0
    value: float = 1.0
    moves_left: float = 0.1
    material: float = 0.1


@dataclass
class Batch:
    """One training batch: what `TrainingBatchBuilder` builds in Rust, padded to the batch's
    largest legal-move and leg counts."""

    features: torch.Tensor       # float32 [B, 142, 19, 19]
    leg_index: torch.Tensor      # int64 [B, M, K]: flat policy index per leg, POLICY_WIDTH = padding
    move_mask: torch.Tensor      # bool [B, M]: slot holds a legal move
    policy_target: torch.Tensor  # float32 [B, M]
    policy_listed: torch.Tensor  # bool [B, M]
    policy_rest: torch.Tensor    # float32 [B]
    policy_weight: torch.Tensor  # float32 [B]
    wdl: torch.Tensor            # float32 [B, 3]
    moves_left: torch.Tensor     # float32 [B], plies
    material: torch.Tensor       # float32 [B], pawns
    played_move: torch.Tensor    # int64 [B]

    def to(self, device) -> "Batch":
        return Batch(**{k: v.to(device) for k, v in self.__dict__.items()})


def read_manifest(directory: str) -> dict:
    path = os.path.join(directory, "manifest.json")
    if not os.path.isdir(directory):
        raise KoshogiError(f"{directory}: no such directory (made by koshogi encode --run RUN --out DIR)")
    if not os.path.isfile(path):
        raise KoshogiError(f"{directory}: no manifest.json (made by koshogi encode --run RUN --out DIR)")
    try:
        with open(path, "rb") as f:
            manifest = json.loads(f.read().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise KoshogiError(f"{path}: not a JSON manifest ({error})") from None
    _check_versions(manifest, path)
    return manifest


def _check_versions(meta: dict, where: str) -> None:
    if not isinstance(meta, dict) or meta.get("format") != ENCODED_FORMAT:
        raise KoshogiError(f"{where}: not made by koshogi encode --shards "
                           f"(format {meta.get('format') if isinstance(meta, dict) else None!r})")
    for key, expected in (("format_version", ENCODED_FORMAT_VERSION),
                          ("feature_version", FEATURE_VERSION),
                          ("move_encoding_version", MOVE_ENCODING_VERSION)):
        if meta.get(key) != expected:
            raise KoshogiError(f"{where}: {key} {meta.get(key)!r}, this code reads {expected}")


class EncodedFile:
    """The arrays of one encoded shard (numpy), checked for consistency."""

    def __init__(self, path: str):
        self.path = path
        if not os.path.isfile(path):
            raise KoshogiError(f"{path}: no such file")
        try:
            with np.load(path, allow_pickle=False) as z:
                missing = [m for m in MEMBERS if m not in z.files]
                if missing:
                    raise KoshogiError(f"{path}: member {missing[0]} is missing")
                self.arrays = {m: z[m] for m in MEMBERS}
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as error:
            raise KoshogiError(f"{path}: not a readable .npz file ({error})") from None
        try:
            self.meta = json.loads(self.arrays.pop("meta").tobytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise KoshogiError(f"{path}: unreadable meta ({error})") from None
        _check_versions(self.meta, path)
        a = self.arrays
        n = len(a["ply_fraction"])
        m = len(a["policy_target"])
        ok = (a["planes_packed"].shape == (n, INPUT_PLANES, (POINTS + 7) // 8)
              and a["move_offsets"].shape == (n + 1,) and a["move_offsets"][-1] == m
              and a["leg_offsets"].shape == (m + 1,) and a["leg_offsets"][-1] == len(a["legs"])
              and np.all(np.diff(a["move_offsets"]) >= 0) and np.all(np.diff(a["leg_offsets"]) > 0)
              and len(a["policy_listed"]) == m and a["wdl_target"].shape == (n, 3)
              and all(len(a[k]) == n for k in ("policy_rest", "policy_weight", "played_move",
                                                "moves_left", "material_target"))
              and (len(a["legs"]) == 0 or (a["legs"].min() >= 0 and a["legs"].max() < POLICY_WIDTH))
              and a["mirror_plane"].shape == (POLICY_PLANES,))
        if not ok:
            raise KoshogiError(f"{path}: its arrays do not agree with each other (damaged file)")
        self.positions = n

    def __len__(self) -> int:
        return self.positions

    def features(self, rows) -> torch.Tensor:
        """float32 [B, 142, 19, 19] input planes of `rows`, exactly as the Rust encoder makes
        them (docs/input-features.md)."""
        rows = np.asarray(rows)
        bits = np.unpackbits(self.arrays["planes_packed"][rows], axis=2, count=POINTS)
        x = bits.reshape(len(rows), INPUT_PLANES, BOARD_SIZE, BOARD_SIZE).astype(np.float32)
        x[:, PLY_FRACTION_PLANE] = self.arrays["ply_fraction"][rows][:, None, None]
        return torch.from_numpy(x)

    def legal_move_legs(self, row: int, mirror: bool = False) -> list:
        """Position `row`'s legal moves as lists of flat policy indices (mirrored if asked)."""
        a = self.arrays
        first, last = a["move_offsets"][row], a["move_offsets"][row + 1]
        legs = [a["legs"][a["leg_offsets"][j]:a["leg_offsets"][j + 1]] for j in range(first, last)]
        if mirror:
            legs = [mirror_legs(l, a["mirror_plane"]) for l in legs]
        return legs

    def batch(self, rows, mirror=None) -> Batch:
        """The batch of `rows`; `mirror` (bools per row, or None) mirrors those positions left
        to right (features and legs; the move order and hence the targets stay)."""
        rows = np.asarray(rows, dtype=np.int64)
        a = self.arrays
        b = len(rows)
        mirror = np.zeros(b, dtype=bool) if mirror is None else np.asarray(mirror, dtype=bool)
        features = self.features(rows)
        if mirror.any():
            features[torch.from_numpy(mirror)] = features[torch.from_numpy(mirror)].flip(3)
        counts = a["move_offsets"][rows + 1] - a["move_offsets"][rows]
        width = max(int(counts.max()) if b else 0, 1)
        starts = a["move_offsets"][rows]
        move_ids = [np.arange(s, s + c) for s, c in zip(starts, counts)]
        leg_counts = np.diff(a["leg_offsets"])
        depth = max(int(max((leg_counts[ids].max() for ids in move_ids if len(ids)), default=1)), 1)
        leg_index = np.full((b, width, depth), POLICY_WIDTH, dtype=np.int64)
        move_mask = np.zeros((b, width), dtype=bool)
        target = np.zeros((b, width), dtype=np.float32)
        listed = np.zeros((b, width), dtype=bool)
        for i, ids in enumerate(move_ids):
            k = len(ids)
            move_mask[i, :k] = True
            target[i, :k] = a["policy_target"][ids]
            listed[i, :k] = a["policy_listed"][ids]
            for slot, j in enumerate(ids):
                legs = a["legs"][a["leg_offsets"][j]:a["leg_offsets"][j + 1]]
                if mirror[i]:
                    legs = mirror_legs(legs, a["mirror_plane"])
                leg_index[i, slot, :len(legs)] = legs
        t = torch.from_numpy
        return Batch(
            features=features,
            leg_index=t(leg_index),
            move_mask=t(move_mask),
            policy_target=t(target),
            policy_listed=t(listed),
            policy_rest=t(a["policy_rest"][rows].astype(np.float32)),
            policy_weight=t(a["policy_weight"][rows].astype(np.float32)),
            wdl=t(a["wdl_target"][rows].astype(np.float32)),
            moves_left=t(a["moves_left"][rows].astype(np.float32)),
            material=t(a["material_target"][rows].astype(np.float32)),
            played_move=t(a["played_move"][rows].astype(np.int64)),
        )


def mirror_legs(legs: np.ndarray, mirror_plane: np.ndarray) -> np.ndarray:
    """Legs of the left-right mirror image: plane -> mirror_plane[plane], file f -> 20 - f."""
    legs = np.asarray(legs, dtype=np.int64)
    plane, point = legs // POINTS, legs % POINTS
    rank, file = point // BOARD_SIZE, point % BOARD_SIZE
    return mirror_plane[plane].astype(np.int64) * POINTS + rank * BOARD_SIZE + (BOARD_SIZE - 1 - file)


def encoded_files(directory: str) -> list:
    """The encoded files of `directory` in shard order (from its manifest)."""
    manifest = read_manifest(directory)
    return [os.path.join(directory, f["file"]) for f in manifest["files"]]


def iterate_batches(directory: str, batch_size: int, shuffle: bool = True,
                    mirror_probability: float = 0.0, seed: int = 0,
                    drop_last: bool = False) -> Iterator[Batch]:
    """Batches over every position of the directory, one file in memory at a time: files in
    shard order (shuffled if `shuffle`), rows shuffled within each file; each position mirrored
    with `mirror_probability` (the Rust trainer uses 0.5)."""
    if batch_size < 1:
        raise KoshogiError(f"batch size must be at least 1, not {batch_size}")
    rng = np.random.default_rng(seed)
    files = encoded_files(directory)
    if shuffle:
        files = [files[i] for i in rng.permutation(len(files))]
    for path in files:
        data = EncodedFile(path)
        rows = rng.permutation(len(data)) if shuffle else np.arange(len(data))
        for start in range(0, len(rows), batch_size):
            chunk = rows[start:start + batch_size]
            if drop_last and len(chunk) < batch_size:
                break
            mirror = rng.random(len(chunk)) < mirror_probability
            yield data.batch(chunk, mirror)


def move_logits(policy: torch.Tensor, batch: Batch) -> torch.Tensor:
    """[B, M] logits of the batch's legal moves (sum of their legs; padding PADDING_LOGIT)."""
    b = policy.shape[0]
    flat = torch.cat([policy.reshape(b, -1).float(), policy.new_zeros(b, 1, dtype=torch.float32)], 1)
    logits = flat.gather(1, batch.leg_index.reshape(b, -1)).reshape(batch.leg_index.shape).sum(-1)
    return logits.masked_fill(~batch.move_mask, PADDING_LOGIT)


def compute_losses(output: NetworkOutput, batch: Batch,
                   weights: LossWeights = LossWeights()) -> dict:
    """The Rust trainer's losses (`compute_losses`): total (differentiable), policy, value,
    moves_left, material."""
    log_policy = torch.log_softmax(move_logits(output.policy, batch), -1)
    listed_term = -(batch.policy_target * log_policy).sum(-1)
    unlisted_log_mass = torch.logsumexp(
        log_policy + batch.policy_listed.float() * PADDING_LOGIT, -1).clamp_min(-30.0)
    per_sample = listed_term - batch.policy_rest * unlisted_log_mass
    policy_rows = batch.policy_weight.sum().clamp_min(1.0)
    policy = (per_sample * batch.policy_weight).sum() / policy_rows
    n = batch.wdl.shape[0]
    value = -(batch.wdl * torch.log_softmax(output.wdl_logits.float(), -1)).sum() / n
    moves_left = F.huber_loss(output.moves_left.float(), batch.moves_left / MOVES_LEFT_SCALE,
                              reduction="mean", delta=1.0)
    material = F.huber_loss(output.material.float(), batch.material / MATERIAL_SCALE,
                            reduction="mean", delta=1.0)
    total = (policy * weights.policy + value * weights.value
             + moves_left * weights.moves_left + material * weights.material)
    return {"total": total, "policy": policy, "value": value,
            "moves_left": moves_left, "material": material}


def loss_weights(directory: str) -> LossWeights:
    """The run's `[train.loss]` weights, as the manifest recorded them."""
    recorded = read_manifest(directory).get("options", {}).get("loss_weights", {})
    return LossWeights(**{k: float(v) for k, v in recorded.items()
                          if k in LossWeights.__dataclass_fields__})
