"""Speed of the koshogi package against the Rust CLI (docs/python.md, "Speed").

    python python/rl/benches/speed.py [--koshogi PATH/TO/koshogi]

Prints, on one machine and one core: perft 3 from the start position driven from Python
(play / num_legal_moves / undo per node, the calls an RL loop or a Python search makes) against
`koshogi perft --depth 3` (the same walk in Rust), the wheel's own perft, a random game from
Python, and the memory of one PettingZoo environment.
"""

import argparse
import os
import subprocess
import time

import numpy as np

import koshogi


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def python_perft3(game):
    """perft 3 with the last ply counted in bulk, as the Rust perft does."""
    nodes = 0
    calls = 0
    for a in range(game.num_legal_moves()):
        game.play(a)
        for b in range(game.num_legal_moves()):
            game.play(b)
            nodes += game.num_legal_moves()
            game.undo()
            calls += 1
        game.undo()
        calls += 1
    return nodes, calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--koshogi", help="the koshogi binary, for the Rust side of perft")
    args = parser.parse_args()

    game = koshogi.Game()
    start = time.perf_counter()
    nodes, calls = python_perft3(game)
    python_s = time.perf_counter() - start
    print(f"perft 3 from Python (play/num_legal_moves/undo): {nodes} nodes, {calls} play+undo "
          f"pairs and {calls + 1} move generations in {python_s:.2f} s: "
          f"{1e6 * python_s / calls:.1f} us per play + generation + undo")
    start = time.perf_counter()
    wheel_nodes = koshogi.Game().perft(3)
    wheel_s = time.perf_counter() - start
    assert wheel_nodes == nodes
    print(f"perft 3 inside the wheel (Game.perft): {wheel_s:.2f} s, "
          f"{1e6 * wheel_s / calls:.1f} us per node; Python-driven / wheel = {python_s / wheel_s:.2f}x")
    if args.koshogi:
        out = subprocess.run([args.koshogi, "perft", "--depth", "3"], check=True,
                             capture_output=True, text=True).stdout
        fields = dict(line.split("\t") for line in out.splitlines() if "\t" in line)
        rust_s = float(fields["time_s"])
        assert int(fields["nodes"]) == nodes
        print(f"perft 3 in the CLI (koshogi perft --depth 3): {rust_s:.2f} s, "
              f"{1e6 * rust_s / calls:.1f} us per node; Python-driven / CLI = {python_s / rust_s:.2f}x")

    # Legal moves as text and as legs, per call (cached per position, so fresh positions).
    rng = np.random.default_rng(1)
    positions = []
    game = koshogi.Game()
    while len(positions) < 200 and not game.is_over():
        positions.append(game.ksfen())
        game.play(int(rng.integers(game.num_legal_moves())))
    games = [koshogi.Game(p) for p in positions]
    start = time.perf_counter()
    total = sum(len(g.legal_moves()) for g in games)
    text_s = time.perf_counter() - start
    games = [koshogi.Game(p) for p in positions]
    start = time.perf_counter()
    for g in games:
        g.legal_policy()
    legs_s = time.perf_counter() - start
    games = [koshogi.Game(p) for p in positions]
    start = time.perf_counter()
    for g in games:
        g.planes()
    planes_s = time.perf_counter() - start
    print(f"legal moves as canonical text: {1e6 * text_s / len(games):.0f} us per position "
          f"({total / len(games):.0f} moves each); as policy legs: "
          f"{1e6 * legs_s / len(games):.0f} us; input planes: {1e6 * planes_s / len(games):.0f} us")

    # A random game from Python: Python picks each move.
    lengths, seconds = [], []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        game = koshogi.Game()
        start = time.perf_counter()
        while not game.is_over():
            game.play(int(rng.integers(game.num_legal_moves())))
        seconds.append(time.perf_counter() - start)
        lengths.append(game.plies_played)
    print(f"random game, moves chosen in Python: {1e3 * np.mean(seconds):.0f} ms per game "
          f"(mean of 5, {np.mean(lengths):.0f} plies)")
    start = time.perf_counter()
    plies = sum(koshogi.Game().play_random(100000, seed) for seed in range(5))
    batched = (time.perf_counter() - start) / 5
    print(f"random game in one call (Game.play_random): {1e3 * batched:.0f} ms per game "
          f"({plies / 5:.0f} plies)")

    # Memory of one PettingZoo environment (after reset and 100 steps).
    envs = []
    before = rss_bytes()
    for i in range(200):
        env = koshogi.env(max_plies=1000)
        env.reset()
        for _ in range(100):
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                break
            env.step(int(np.flatnonzero(obs["action_mask"])[i % 3]))
        envs.append(env)
    per_env = (rss_bytes() - before) / len(envs)
    print(f"memory per PettingZoo environment (200 environments, 100 plies each): "
          f"{per_env / 1024:.0f} KiB of resident memory")


if __name__ == "__main__":
    main()
