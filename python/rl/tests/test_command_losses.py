"""examples/command_losses.py on a real match: `koshogi arena --a greedy --b random` (its binary
is $KOSHOGI_BIN; the workspace's test tests/python_package.rs sets it). Greedy wins by taking
the command, so every game the random mover lost by it is found, replays to its final move,
and that move ends the game as the rules' check (§10.3) said it could; its material samples are
the ones the arena keeps in games.jsonl."""

import csv
import importlib.util
import json
import os
import subprocess
import tempfile
import unittest

import koshogi

BIN = os.environ.get("KOSHOGI_BIN")
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                       "command_losses.py")


def load_example():
    spec = importlib.util.spec_from_file_location("command_losses", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@unittest.skipUnless(BIN, "KOSHOGI_BIN is not set (run through cargo test)")
class CommandLosses(unittest.TestCase):
    def test_every_command_loss_of_a_match_is_found_and_replays(self):
        example = load_example()
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([BIN, "arena", "--a", "greedy", "--b", "random", "--games", "4",
                            "--max-plies", "300", "--seed", "3", "--threads", "1", "--out", out],
                           check=True, capture_output=True)
            with open(os.path.join(out, "games.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            lost_by_random = [r for r in rows if r["termination"] == "command destroyed"
                              and ((r["result"] == "1-0") == (r["white"] == "random"))]
            self.assertGreater(len(lost_by_random), 0, rows)

            losses = example.command_losses(out, "random")
            self.assertEqual(sorted(loss["record"] for loss in losses),
                             sorted(r["record"] for r in lost_by_random))
            self.assertEqual(example.command_losses(out, "greedy"), [])
            for loss in losses:
                tags, moves = example.read_record(os.path.join(out, loss["record"]))
                self.assertEqual(len(moves), loss["plies"])
                game = koshogi.Game(tags["Start"])
                for move in moves[:-1]:
                    game.play(move)
                # Greedy gives check (§10.3), and its final move ends the game.
                winner = game.side_to_move
                self.assertTrue(game.gives_check(winner))
                game.play(moves[-1])
                self.assertEqual(game.outcome(), (winner, "CommandDestroyed"))
                game.undo()
                game.undo()  # before the random mover's last move
                self.assertEqual(loss["balance"], game.material_balance(game.side_to_move))
                if loss["in_check"]:
                    self.assertLessEqual(loss["escapes"], game.num_legal_moves())
                else:
                    self.assertIsNone(loss["escapes"])

            # The material samples recomputed from the records are the arena's own, for A
            # (greedy) in games.jsonl: the balance after plies 50, 100, … of each game.
            with open(os.path.join(out, "games.jsonl")) as f:
                kept = [json.loads(line) for line in f if line.strip()]
            samples = example.material_samples(out, "greedy")
            self.assertTrue(any(game.get("a_material") for game in kept), kept)
            for game in kept:
                record = os.path.basename(game["record"])
                self.assertEqual(len(samples[record]), game["plies"] // 50)
                for ours, arena in zip(samples[record], game.get("a_material", [])):
                    self.assertAlmostEqual(ours, arena, places=3)


if __name__ == "__main__":
    unittest.main()
