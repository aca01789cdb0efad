"""The package against the `koshogi` command line (its binary is $KOSHOGI_BIN; the workspace's
test tests/python_package.rs sets it): a 1,000-ply random game agrees move by
move with `koshogi moves`, and positions give the planes and legal policy legs of
`koshogi encode`."""

import json
import os
import re
import subprocess
import tempfile
import unittest

import numpy as np

import koshogi

BIN = os.environ.get("KOSHOGI_BIN")
ORIGIN = re.compile(r"\d+[a-s]")


def cli_moves(positions):
    """`koshogi moves --stdin` on many positions (one start of the binary for all): the sorted
    lines of each position."""
    out = subprocess.run([BIN, "moves", "--stdin"], input="".join(p + "\n" for p in positions),
                         check=True, capture_output=True, text=True)
    blocks = out.stdout.split("\n\n")
    assert blocks[-1] == "", "every block ends with an empty line"
    return [block.splitlines() for block in blocks[:-1]]


def package_moves(game):
    """`koshogi moves`' lines from the package: canonical, origin, KSFEN after (no number)."""
    lines = []
    for mv in game.legal_moves():
        game.play(mv)
        lines.append(f"{mv}\t{ORIGIN.match(mv).group(0)}\t{game.ksfen(False)}")
        game.undo()
    return sorted(lines, key=lambda line: line.encode())


@unittest.skipUnless(BIN, "KOSHOGI_BIN is not set (run through cargo test)")
class AgainstTheCli(unittest.TestCase):
    def test_a_1000_ply_random_game_agrees_with_koshogi_moves_at_every_ply(self):
        rng = np.random.default_rng(33)
        game = koshogi.Game()
        games = 1
        positions, ours = [], []
        for ply in range(1000):
            if game.is_over():
                game = koshogi.Game()  # a finished game goes on as a new one
                games += 1
            positions.append(game.ksfen())
            ours.append(package_moves(game))
            game.play(int(rng.integers(game.num_legal_moves())))
        self.assertLess(games, 5)
        theirs = cli_moves(positions)
        self.assertEqual(len(theirs), 1000)
        for ply, (mine, cli) in enumerate(zip(ours, theirs)):
            self.assertEqual(mine, cli, f"ply {ply}: {positions[ply]}")

    def test_planes_and_policy_legs_agree_with_koshogi_encode(self):
        game = koshogi.Game()
        rng = np.random.default_rng(7)
        checked = 0
        with tempfile.TemporaryDirectory() as tmp:
            for ply in range(200):
                if ply % 40 == 0 or ply in (1, 2):
                    position = koshogi.Game(game.ksfen())
                    out = os.path.join(tmp, str(ply))
                    subprocess.run([BIN, "encode", game.ksfen(), "--out", out], check=True,
                                   capture_output=True)
                    features = np.load(os.path.join(out, "features.npy"))
                    np.testing.assert_array_equal(features[0], position.planes())
                    with open(os.path.join(out, "moves.json")) as f:
                        encoded = json.load(f)
                    self.assertEqual([m["canonical"] for m in encoded["moves"]], position.legal_moves())
                    self.assertEqual([m["hodges"] for m in encoded["moves"]], position.legal_moves_hodges())
                    offsets, legs = position.legal_policy()
                    for i, m in enumerate(encoded["moves"]):
                        flat = [plane * koshogi.POINTS + point for plane, point in m["legs"]]
                        self.assertEqual(flat, list(legs[offsets[i]:offsets[i + 1]]))
                    self.assertEqual(encoded["input_planes"], koshogi.INPUT_PLANES)
                    self.assertEqual(encoded["policy_planes"], koshogi.POLICY_PLANES)
                    checked += 1
                if game.is_over():
                    break
                game.play(int(rng.integers(game.num_legal_moves())))
        self.assertGreaterEqual(checked, 5)


if __name__ == "__main__":
    unittest.main()
