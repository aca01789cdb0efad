"""The OpenSpiel bot as an engine (`python -m koshogi.engine_bot`, docs/python.md) speaks the
engine protocol: the arena's handshake, positions from startpos and KSFEN with moves, `go` by
nodes, move time and clock, one `bestmove` for every `go`, and one error line for each bad line
without ever stopping. The session runs the program as a subprocess, as the arena does."""

import subprocess
import sys
import time
import unittest

import koshogi
from koshogi.engine_bot import ProtocolError, parse_go, search_budget


def session(lines, *args, stdin_bytes=None, timeout=120):
    """Runs the bot on `lines` (then the end of input) and returns (stdout lines, stderr, rc)."""
    data = stdin_bytes if stdin_bytes is not None else "".join(l + "\n" for l in lines).encode()
    done = subprocess.run([sys.executable, "-m", "koshogi.engine_bot", *args], input=data,
                          capture_output=True, timeout=timeout)
    return done.stdout.decode().splitlines(), done.stderr.decode(), done.returncode


def bestmoves(out):
    return [line.split()[1] for line in out if line.startswith("bestmove ")]


def errors(out):
    return [line for line in out if line.startswith("info string error")]


def finished_game():
    game = koshogi.Game()
    game.play_random(4000, 7)
    assert game.is_over()
    return game


class Session(unittest.TestCase):
    def test_handshake_and_moves_from_startpos_and_ksfen(self):
        game = koshogi.Game()
        game.play_random(6, 3)
        ksfen = game.ksfen()
        then = koshogi.Game(ksfen)
        then.play_random(2, 4)
        out, err, rc = session([
            "koshogi", "isready", "usinewgame",
            "position startpos", "go nodes 12",
            "position startpos moves " + " ".join(game.history()), "go visits 8",
            "position ksfen " + ksfen + " moves " + " ".join(then.history()), "go nodes 5",
            "usi", "quit", "go nodes 5",
        ], "--bot", "mcts", "--rollout-plies", "2")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Traceback", err)
        self.assertIn("koshogiok", out)
        self.assertLess(out.index("koshogiok"), out.index("readyok"))
        self.assertTrue(out[0].startswith("id name "))
        self.assertIn("usiok", out)
        moves = bestmoves(out)
        self.assertEqual(len(moves), 3, "quit ends the session: the last go is never read")
        for start, mv in zip([koshogi.Game(), game, then], moves):
            start.move_index(mv)  # raises unless legal there
        self.assertEqual(errors(out), [])
        # Root visits: the nodes asked for plus the root's own evaluation.
        visits = [int(line.split()[2]) for line in out if line.startswith("info visits")]
        self.assertEqual(visits, [13, 9, 6])

    def test_a_single_node_still_searches_a_move(self):
        out, err, rc = session(["position startpos", "go nodes 1", "go visits 1"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(errors(out), [])
        self.assertEqual(len(bestmoves(out)), 2)
        visits = [int(line.split()[2]) for line in out if line.startswith("info visits")]
        self.assertEqual(visits, [2, 2])

    def test_time_limits_bound_the_search(self):
        started = time.monotonic()
        out, err, rc = session(["position startpos", "go movetime 400",
                                "go btime 3000 wtime 3000 binc 100 winc 100",
                                "go btime 0 wtime 0 byoyomi 300", "go btime 10 wtime 5000"],
                               "--bot", "mcts")
        elapsed = time.monotonic() - started
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(bestmoves(out)), 4, out)
        times = [int(line.split()[4]) for line in out if line.startswith("info visits")]
        self.assertEqual(len(times), 3, "the clock with 10 ms left moves without a search")
        self.assertTrue(all(t <= 400 + 250 for t in times), times)
        self.assertIn("info string no search time on this clock: greedy move without a search",
                      out)
        self.assertLess(elapsed, 60)

    def test_the_random_bot_plays_legal_moves(self):
        game = koshogi.Game()
        game.play_random(10, 1)
        out, err, rc = session(["position startpos moves " + " ".join(game.history()),
                                "go nodes 1", "go"], "--bot", "random", "--seed", "5")
        self.assertEqual(rc, 0, err)
        for mv in bestmoves(out):
            game.move_index(mv)
        self.assertEqual(len(bestmoves(out)), 2)

    def test_bad_lines_get_one_error_each_and_every_go_one_bestmove(self):
        bad = [
            "frobnicate", "position", "position middle", "position ksfen garbage",
            "position startpos moves 9z-9y", "position startpos moves 10m-10l 10m-10l",
            "setoption", "setoption name simulations value 0", "setoption name nope value 1",
            "setoption name uct_c value -1", "setoption name rules value {\"bad\": 1}",
            "setoption name simulations",
        ]
        refused_go = ["go depth 3", "go nodes 0", "go nodes", "go infinite", "go btime soon",
                      "go sideways 4"]
        out, err, rc = session(bad + ["position startpos moves 10m-10l"] + refused_go
                               + ["go nodes 4"])
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(len(errors(out)), len(bad) + len(refused_go), out)
        moves = bestmoves(out)
        self.assertEqual(len(moves), len(refused_go) + 1)
        after = koshogi.Game()
        after.play("10m-10l")
        for mv in moves:
            after.move_index(mv)  # the position of the last good `position` line

    def test_unreadable_input_and_a_finished_game(self):
        game = finished_game()
        data = (b"\xff\xfe not utf-8\n" + b"x" * (1 << 20) + b"yy\n"
                + ("position startpos moves " + " ".join(game.history()) + "\n").encode()
                + b"go nodes 3\nisready\n")
        out, err, rc = session([], stdin_bytes=data)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(errors(out)), 2, out)
        self.assertTrue(any(line.startswith("info string game over: ") for line in out), out)
        self.assertEqual(bestmoves(out), ["resign"])
        self.assertEqual(out[-1], "readyok")


class Budget(unittest.TestCase):
    def test_go_limits(self):
        self.assertEqual(parse_go("nodes 5 movetime 100".split()), {"nodes": 5, "movetime": 100})
        self.assertEqual(parse_go("visits 7 btime -20".split()), {"nodes": 7, "btime": 0})
        for bad in ["nodes -1", "movetime 0", "depth 2", "nodes", "x 1"]:
            with self.assertRaises(ProtocolError, msg=bad):
                parse_go(bad.split())

    def test_time_is_spread_over_the_moves_to_come(self):
        self.assertIsNone(search_budget({"nodes": 4}, "black", 0, 50))
        self.assertEqual(search_budget({"movetime": 1000}, "black", 0, 50), 0.95)
        # 60 s, 1 s increment, 300 moves to come: (60 000 + 299 000 − 50·300) / 300 ms.
        budget = search_budget({"btime": 60000, "wtime": 1, "binc": 1000, "winc": 0},
                               "black", 0, 50)
        self.assertAlmostEqual(budget, (60000 + 299000 - 15000) / 300 / 1000)
        # White's clock for White; with movestogo; byoyomi nearly whole.
        self.assertAlmostEqual(
            search_budget({"btime": 1, "wtime": 10000, "movestogo": 10}, "white", 0, 50),
            (10000 - 500) / 10 / 1000)
        self.assertAlmostEqual(search_budget({"btime": 0, "wtime": 0, "byoyomi": 1000},
                                             "black", 0, 10), 0.99)
        self.assertEqual(search_budget({"btime": 10, "wtime": 10}, "black", 0, 50), 0)
        # The shorter of move time and clock.
        self.assertAlmostEqual(
            search_budget({"movetime": 5000, "btime": 100000}, "black", 0, 50),
            (100000 - 15000) / 300 / 1000)
        self.assertEqual(search_budget({"movetime": 100, "btime": 100000}, "black", 0, 50), 0.05)


if __name__ == "__main__":
    unittest.main()
