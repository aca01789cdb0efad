#!/usr/bin/env python3
"""Summarise koshogi-zero replay shards (docs/replay-format.md) with numpy alone.

Usage: read_shard.py [--json] [--ksfen I | --search-value] SHARD.npz [SHARD.npz ...]

Verifies each shard's SHA-256 checksum and the consistency of its columns, then prints a summary
(positions, games, bytes per position, result mix, policy sizes, compressed size of each member).
With --ksfen I, prints position I of each shard as a KSFEN line instead (rules spec §14.1).
With --search-value, checks the recorded search values against the games' results over all the
shards together, per band of plies: a search value is the mover's view, as the result is, so the
two must agree more often than not once games take shape (the check that the value targets
mixed from them, train.search_value_weight, point the right way).
Exits 1 if any shard fails verification, naming the file.
"""

import hashlib
import json
import os
import struct
import sys
import zipfile
import zlib

import numpy as np

FORMAT_NAME = "koshogi-replay-shard"
SUPPORTED_VERSION = 2
# end_reason codes (format version 2; docs/replay-format.md), in code order.
END_REASONS = ["unknown", "command_destroyed", "no_legal_moves", "perpetual_check", "repetition",
               "resignation", "material_at_cap", "draw_at_cap"]
MAX_END_REASON = len(END_REASONS) - 1
BOARD_BYTES = 362
CHECKSUM_ENTRY = "sha256.npy"

# PieceKind::index() order (rules spec §2): the 34 initial types, then the 23 promoted-only types.
PIECE_CODES = ("G SC PL A WR SR GH CS EN TB SM FD MA D B SN DU Q FH R FW E LB SB C HS CA P PU SP SU "
               "CH CU VA AM BD TN VB DP PF FG HL SK GV TC FL DR TW HK EW CG LC CC WC WH CM HF").split()
INITIAL_TYPES = 34


class ShardError(Exception):
    pass


def shard_checksum(archive):
    """SHA-256 over every member but the checksum, by entry name: name, NUL, u64 LE length, bytes."""
    digest = hashlib.sha256()
    for name in sorted(n for n in archive.namelist() if n != CHECKSUM_ENTRY):
        data = archive.read(name)  # zipfile checks each member's CRC-32 too
        digest.update(name.encode() + b"\0" + struct.pack("<Q", len(data)) + data)
    return digest.digest()


def load_shard(path):
    """Returns (meta dict, dict of numpy arrays, member sizes); raises ShardError on any defect."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if CHECKSUM_ENTRY not in names:
                raise ShardError("no checksum member")
            computed = shard_checksum(archive)
            sizes = {i.filename[:-4]: (i.compress_size, i.file_size) for i in archive.infolist()}
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError, KeyError) as e:
        raise ShardError(f"not a readable npz archive: {e}") from e
    stored = arrays.pop("sha256").tobytes()
    if stored != computed:
        raise ShardError(f"checksum mismatch (stored {stored.hex()}, computed {computed.hex()})")
    try:
        meta = json.loads(arrays.pop("meta").tobytes())
    except (KeyError, ValueError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ShardError(f"unreadable meta member: {e}") from e
    if not isinstance(meta, dict):
        raise ShardError("meta member is not a JSON object")
    if meta.get("format") != FORMAT_NAME:
        raise ShardError(f"not a replay shard: format {meta.get('format')!r}")
    if meta["format_version"] > SUPPORTED_VERSION:
        raise ShardError(f"format version {meta['format_version']} is newer than this script")
    if meta["format_version"] < 2:
        # Version 1 had no end_reason column: every reason reads as 0 (unknown).
        arrays["end_reason"] = np.zeros(arrays["board"].shape[0], dtype=np.uint8)
    check_columns(meta, arrays)
    return meta, arrays, sizes


def check_columns(meta, a):
    n = a["board"].shape[0]
    if a["board"].shape != (n, BOARD_BYTES) or a["board"].dtype != np.uint8:
        raise ShardError(f"board has shape {a['board'].shape} {a['board'].dtype}")
    if n and (a["board"][:, :361].max() > 228 or a["board"][:, 361].max() > 1):
        raise ShardError("board holds a byte that is no point code or side to move")
    for name in ["game_id", "ply", "legal_move_count", "played_move", "full_search",
                 "search_value", "game_result", "moves_left", "final_material", "end_reason"]:
        if a[name].shape != (n,):
            raise ShardError(f"{name} has shape {a[name].shape}, expected ({n},)")
    offsets = a["policy_offsets"]
    k = a["policy_moves"].shape[0]
    if offsets.shape != (n + 1,) or offsets[0] != 0 or offsets[-1] != k or np.any(np.diff(offsets) < 0):
        raise ShardError("policy_offsets do not rise from 0 to the number of policy entries")
    if a["policy_weights"].shape != (k,):
        raise ShardError("policy_weights and policy_moves differ in length")
    legal = a["legal_move_count"].astype(np.int64)
    if np.any(a["played_move"] >= legal):
        raise ShardError("a played move index is out of range")
    owner = np.repeat(np.arange(n), np.diff(offsets))
    if np.any(a["policy_moves"] >= legal[owner]):
        raise ShardError("a policy move index is out of range")
    if not np.all(np.isin(a["game_result"], [-1, 0, 1])):
        raise ShardError("a game result is not -1, 0 or 1")
    weights = a["policy_weights"].astype(np.float64)
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ShardError("a policy weight is negative or not finite")
    values = a["search_value"].astype(np.float64)
    if not np.all((values >= -1) & (values <= 1)):
        raise ShardError("a search value is outside [-1, 1] or not a number")
    if np.any(a["end_reason"] > MAX_END_REASON):
        raise ShardError("an end reason is not a known code")
    if n != meta["num_positions"]:
        raise ShardError(f"meta says {meta['num_positions']} positions, arrays hold {n}")


def summarise(path):
    meta, a, sizes = load_shard(path)
    n = a["board"].shape[0]
    file_size = os.path.getsize(path)
    policy_counts = np.diff(a["policy_offsets"])
    full = a["full_search"]
    results = a["game_result"]
    return {
        "file": str(path),
        "checksum_ok": True,
        "format_version": meta["format_version"],
        "writer_id": meta["writer_id"],
        "model_step": meta["model_step"],
        "rules_version": meta["rules_version"],
        "positions": int(n),
        "games": int(len(np.unique(a["game_id"]))) if n else 0,
        "file_bytes": int(file_size),
        "bytes_per_position": file_size / n if n else None,
        "full_search_positions": int(full.sum()),
        "policy_entries": int(a["policy_moves"].shape[0]),
        "mean_policy_entries_per_full_search": float(policy_counts[full].mean()) if full.any() else 0.0,
        "policy_weight_sum": float(a["policy_weights"].astype(np.float64).sum()),
        "result_counts": {"win": int((results == 1).sum()), "draw": int((results == 0).sum()),
                          "loss": int((results == -1).sum())},
        "mean_legal_moves": float(a["legal_move_count"].mean()) if n else 0.0,
        "max_ply": int(a["ply"].max()) if n else 0,
        "search_value_mean": float(a["search_value"].astype(np.float64).mean()) if n else 0.0,
        "final_material_sum": int(a["final_material"].astype(np.int64).sum()),
        "end_reason_counts": {name: int((a["end_reason"] == code).sum())
                              for code, name in enumerate(END_REASONS)},
        "members": {name: {"dtype": str(a[name].dtype) if name in a else "uint8",
                           "shape": list(a[name].shape) if name in a else None,
                           "compressed_bytes": c, "bytes": u}
                    for name, (c, u) in sorted(sizes.items())},
    }


# Ply bands of the --search-value table: [start, end).
SEARCH_VALUE_BANDS = [(0, 50), (50, 150), (150, 250), (250, 1 << 16)]


def search_value_agreement(arrays_list):
    """Agreement of the recorded search values with the results of decided games, per ply band."""
    value = np.concatenate([a["search_value"].astype(np.float64) for a in arrays_list])
    result = np.concatenate([a["game_result"].astype(np.float64) for a in arrays_list])
    ply = np.concatenate([a["ply"].astype(np.int64) for a in arrays_list])
    decided = result != 0
    rows = []
    for start, end in [(0, 1 << 16)] + SEARCH_VALUE_BANDS:
        m = decided & (ply >= start) & (ply < end)
        n = int(m.sum())
        v, r = value[m], result[m]
        spread = n > 1 and v.std() > 0 and r.std() > 0
        rows.append({
            "plies": [start, end] if end < (1 << 16) else [start, None],
            "positions": n,
            "correlation": float(np.corrcoef(v, r)[0, 1]) if spread else None,
            "sign_agreement": float(np.mean(np.sign(v) == r)) if n else None,
            "mean_value_won": float(v[r > 0].mean()) if (r > 0).any() else None,
            "mean_value_lost": float(v[r < 0].mean()) if (r < 0).any() else None,
        })
    return {"positions": int(value.shape[0]), "decided": int(decided.sum()), "bands": rows}


def print_search_value_agreement(s):
    print(f"search values against results: {s['decided']} positions of decided games "
          f"(of {s['positions']})")
    print("  plies      positions  correlation  same sign  mean value (won / lost)")
    def fmt(x):
        return "-" if x is None else f"{x:+.3f}"

    for b in s["bands"]:
        start, end = b["plies"]
        plies = "all" if start == 0 and end is None else f"{start}-{'' if end is None else end - 1}"
        agree = "-" if b["sign_agreement"] is None else f"{100 * b['sign_agreement']:.1f} %"
        print(f"  {plies:<9}  {b['positions']:>9}  {fmt(b['correlation']):>11}  {agree:>9}  "
              f"{fmt(b['mean_value_won'])} / {fmt(b['mean_value_lost'])}")


def ksfen(board):
    """KSFEN (without move number) of one stored board: point byte 1 + (colour*57 + kind)*2 + promoted."""
    ranks = []
    for rank in range(19):  # rank a (1) first
        tokens, empty = [], 0
        for file in range(18, -1, -1):  # file 19 first
            byte = int(board[rank * 19 + file])
            if byte == 0:
                empty += 1
                continue
            if empty:
                tokens.append(str(empty))
                empty = 0
            colour, kind = divmod((byte - 1) // 2, len(PIECE_CODES))
            promoted = (byte - 1) % 2 == 1
            code = PIECE_CODES[kind]
            token = ("+" if promoted and kind < INITIAL_TYPES else "") + code
            tokens.append(token if colour == 0 else token.lower())
        if empty:
            tokens.append(str(empty))
        ranks.append(",".join(tokens))
    return "/".join(ranks) + (" b" if board[361] == 0 else " w")


def print_summary(s):
    print(f"{s['file']}: checksum OK, format v{s['format_version']}, writer {s['writer_id']}, "
          f"model step {s['model_step']}")
    print(f"  {s['positions']} positions in {s['games']} games, {s['file_bytes']} bytes "
          f"({s['bytes_per_position']:.1f} bytes/position)" if s["positions"] else "  empty shard")
    print(f"  full-search positions: {s['full_search_positions']}, policy entries: "
          f"{s['policy_entries']} (mean {s['mean_policy_entries_per_full_search']:.1f} per full search)")
    r = s["result_counts"]
    print(f"  results for the mover: {r['win']} wins, {r['draw']} draws, {r['loss']} losses; "
          f"mean legal moves {s['mean_legal_moves']:.1f}; max ply {s['max_ply']}")
    print("  member               dtype     compressed  raw")
    for name, m in s["members"].items():
        print(f"  {name:<20} {m['dtype']:<9} {m['compressed_bytes']:>10}  {m['bytes']}")


def main(argv):
    as_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    position = None
    if "--ksfen" in argv:
        i = argv.index("--ksfen")
        try:
            position = int(argv[i + 1])
        except (IndexError, ValueError):
            print("error: --ksfen needs a position index", file=sys.stderr)
            return 2
        del argv[i:i + 2]
    search_value = "--search-value" in argv
    argv = [a for a in argv if a != "--search-value"]
    if search_value and position is not None:
        print("error: --search-value and --ksfen do not go together", file=sys.stderr)
        return 2
    paths = argv
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    failed = False
    summaries = []
    loaded = []
    for path in paths:
        try:
            if search_value:
                loaded.append(load_shard(path)[1])
                continue
            if position is not None:
                _, arrays, _ = load_shard(path)
                if not 0 <= position < arrays["board"].shape[0]:
                    raise ShardError(f"no position {position}")
                print(ksfen(arrays["board"][position]))
                continue
            summaries.append(summarise(path))
        except (ShardError, KeyError) as e:
            print(f"error: {path}: {e}", file=sys.stderr)
            failed = True
        except Exception as e:  # anything else a damaged file provokes: one line, next file
            print(f"error: {path}: unreadable ({type(e).__name__}: {e})", file=sys.stderr)
            failed = True
    if position is not None:
        return 1 if failed else 0
    if search_value:
        if loaded:
            agreement = search_value_agreement(loaded)
            if as_json:
                print(json.dumps(agreement, indent=1))
            else:
                print_search_value_agreement(agreement)
        return 1 if failed else 0
    if as_json:
        print(json.dumps(summaries, indent=1))
    else:
        for s in summaries:
            print_summary(s)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
