"""The core API of the koshogi package against the rules it wraps: moves, play/undo, errors,
game end, notation, planes and policy legs, perft (the perft counts come from the workspace's
data/rules/perft.txt, the fixture the Rust rules tests read)."""

import copy
import os
import unittest

import numpy as np

import koshogi

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def random_game(plies, seed, **kwargs):
    """A game after `plies` seeded random moves (all chosen in Python)."""
    rng = np.random.default_rng(seed)
    game = koshogi.Game(**kwargs)
    for _ in range(plies):
        if game.is_over():
            break
        game.play(int(rng.integers(game.num_legal_moves())))
    return game


class CoreApi(unittest.TestCase):
    def test_start_position_round_trips_through_ksfen(self):
        game = koshogi.Game()
        self.assertEqual(game.ksfen(), koshogi.START_KSFEN)
        again = koshogi.Game(game.ksfen())
        self.assertEqual(again.legal_moves(), game.legal_moves())
        self.assertEqual(game.side_to_move, "black")

    def test_play_then_undo_restores_everything(self):
        game = random_game(40, seed=3)
        before = (game.ksfen(), game.legal_moves(), game.planes().copy(), game.history())
        for index in range(0, game.num_legal_moves(), 17):
            played = game.play(index)
            self.assertEqual(game.history()[-1], played)
            self.assertNotEqual(game.ksfen(), before[0])
            self.assertEqual(game.undo(), played)
            self.assertEqual(game.ksfen(), before[0])
        self.assertEqual(game.legal_moves(), before[1])
        np.testing.assert_array_equal(game.planes(), before[2])
        self.assertEqual(game.history(), before[3])

    def test_moves_by_index_canonical_and_hodges_text_are_the_same_move(self):
        game = random_game(25, seed=5)
        canonical = game.legal_moves()
        hodges = game.legal_moves_hodges()
        self.assertEqual(len(canonical), len(hodges))
        for index in range(0, len(canonical), 7):
            self.assertEqual(game.canonical(index), canonical[index])
            self.assertEqual(game.canonical(hodges[index]), canonical[index])
            self.assertEqual(game.hodges(canonical[index]), hodges[index])
            self.assertEqual(game.move_index(hodges[index]), index)
            self.assertEqual(game.move_index(canonical[index]), index)

    def test_copies_are_independent(self):
        game = random_game(10, seed=1)
        for clone in (game.copy(), copy.copy(game), copy.deepcopy(game)):
            self.assertIsInstance(clone, koshogi.Game)
            clone.play(0)
            self.assertEqual(clone.plies_played, game.plies_played + 1)
            self.assertEqual(clone.history()[:-1], game.history())

    def test_pickling_keeps_start_settings_and_history(self):
        import pickle

        start = random_game(7, seed=9).ksfen()
        game = koshogi.Game(start, rules={"allow_pass": False}, max_plies=50, cap_material=2)
        game.play_random(12, 4)
        again = pickle.loads(pickle.dumps(game))
        self.assertIsInstance(again, koshogi.Game)
        self.assertEqual(again.initial_ksfen(), start)
        self.assertEqual(again.history(), game.history())
        self.assertEqual(again.ksfen(), game.ksfen())
        self.assertEqual(again.rules_json(), game.rules_json())
        self.assertEqual((again.max_plies, again.cap_material), (50, 2))
        np.testing.assert_array_equal(again.planes(), game.planes())

    def test_random_playout_in_rust_is_seeded_and_ends_or_stops(self):
        a, b = koshogi.Game(max_plies=300), koshogi.Game(max_plies=300)
        self.assertEqual(a.play_random(1000, 7), b.play_random(1000, 7))
        self.assertEqual(a.history(), b.history())
        self.assertTrue(a.is_over())
        self.assertLessEqual(a.plies_played, 300)


class Errors(unittest.TestCase):
    """Every bad input is a Python exception with the Rust message, never a crash."""

    def test_bad_positions_rules_and_moves(self):
        with self.assertRaisesRegex(koshogi.KoshogiError, "invalid position"):
            koshogi.Game("not a ksfen")
        with self.assertRaisesRegex(koshogi.KoshogiError, "unknown field"):
            koshogi.Game(rules={"no_such_rule": 1})
        with self.assertRaisesRegex(koshogi.KoshogiError, "invalid rules"):
            koshogi.Game(rules="{")
        game = koshogi.Game()
        with self.assertRaisesRegex(koshogi.KoshogiError, "not legal"):
            game.play("10m-12k")
        with self.assertRaises(koshogi.KoshogiError):
            game.play("zz9")
        with self.assertRaises(IndexError):
            game.play(game.num_legal_moves())
        with self.assertRaises(IndexError):
            game.play(-1)
        with self.assertRaises(TypeError):
            game.play(1.5)
        with self.assertRaises(IndexError):
            game.undo()
        with self.assertRaises(koshogi.KoshogiError):
            game.score("green")
        with self.assertRaises(koshogi.KoshogiError):
            koshogi.Game(cap_material=3)
        self.assertTrue(issubclass(koshogi.KoshogiError, ValueError))
        self.assertEqual(game.plies_played, 0, "failed calls leave the game unchanged")

    def test_no_move_after_the_end(self):
        game = koshogi.Game(max_plies=2)
        game.play(0)
        game.play(0)
        self.assertEqual(game.outcome(), (None, "MaxPlies"))
        self.assertEqual(game.score("black"), 0)
        with self.assertRaisesRegex(koshogi.KoshogiError, "game is over"):
            game.play(0)
        game.undo()
        self.assertIsNone(game.outcome())
        self.assertIsNone(game.score("white"))


class GameEnd(unittest.TestCase):
    def test_a_random_game_ends_with_a_winner_and_opposite_scores(self):
        game = koshogi.Game()
        game.play_random(5000, 11)
        winner, reason = game.outcome()
        self.assertIn(reason, {"CommandDestroyed", "NoLegalMoves", "Repetition", "PerpetualCheck"})
        if winner is not None:
            loser = "white" if winner == "black" else "black"
            self.assertEqual(game.score(winner), 1)
            self.assertEqual(game.score(loser), -1)
        self.assertEqual(game.num_legal_moves() == 0, reason in {"CommandDestroyed", "NoLegalMoves"})

    def test_check_is_the_rules_check(self):
        game = koshogi.Game()
        self.assertFalse(game.gives_check("black"))
        self.assertFalse(game.gives_check("white"))
        with self.assertRaises(ValueError):
            game.gives_check("green")
        # At a random game's end by the command, the position before the last move let the
        # winner end it: the winner gave check there.
        game.play_random(5000, 11)
        winner, reason = game.outcome()
        if reason == "CommandDestroyed":
            game.undo()
            self.assertTrue(game.gives_check(winner))

    def test_rules_options_change_the_game(self):
        default = koshogi.Game()
        no_pass = koshogi.Game(rules={"allow_pass": False})
        self.assertIn('"allow_pass":true', default.rules_json().replace(" ", ""))
        self.assertIn('"allow_pass":false', no_pass.rules_json().replace(" ", ""))
        self.assertEqual(koshogi.Game(rules='{"allow_pass": false}').rules_json(), no_pass.rules_json())

    def test_material_adjudication_at_the_cap(self):
        # A capture-rich prefix, then the cap: the side ahead by the margin wins, else a draw.
        game = random_game(120, seed=2)
        moves = game.history()
        for margin in (1, 1000):
            capped = koshogi.Game(max_plies=len(moves), cap_material=margin)
            for mv in moves:
                capped.play(mv)
            winner, reason = capped.outcome()
            if margin == 1000:
                self.assertEqual((winner, reason), (None, "MaxPlies"))
            else:
                self.assertIn(reason, {"MaterialAdjudication", "MaxPlies"})


class Planes(unittest.TestCase):
    def test_shape_and_the_ply_fraction_plane(self):
        game = random_game(30, seed=4)
        planes = game.planes()
        self.assertEqual(planes.shape, (koshogi.INPUT_PLANES, 19, 19))
        self.assertEqual(planes.dtype, np.float32)
        self.assertTrue(planes.flags.writeable, "torch.from_numpy takes it without a warning")
        np.testing.assert_array_equal(planes[139], 1.0)  # on-board plane
        self.assertEqual(planes[138].max(), 0.0, "no cap: no ply fraction")
        capped = koshogi.Game(max_plies=120)
        for mv in game.history():
            capped.play(mv)
        with_cap = capped.planes()
        np.testing.assert_allclose(with_cap[138], 30 / 120)
        np.testing.assert_array_equal(np.delete(with_cap, 138, 0), np.delete(planes, 138, 0))

    def test_repetition_planes_follow_the_game(self):
        game = koshogi.Game()
        self.assertEqual(game.planes()[136:138].sum(), 0)
        there_and_back = shuffle(game)
        for _ in range(2):
            for mv in there_and_back:
                game.play(mv)
        self.assertEqual(game.ksfen(False), koshogi.Game().ksfen(False))
        self.assertEqual(game.repetition_count, 3)
        np.testing.assert_array_equal(game.planes()[136], 1.0)
        np.testing.assert_array_equal(game.planes()[137], 1.0)
        game.undo()
        self.assertEqual(game.repetition_count, 2)

    def test_planes_are_the_mover_view(self):
        # The start position is symmetric under a half turn with the colours swapped, so Black
        # to move and White to move must see the same planes.
        black = koshogi.Game().planes()
        white = koshogi.Game(koshogi.START_KSFEN.replace(" b ", " w ")).planes()
        self.assertEqual(black[:64].sum(), 90)
        self.assertEqual(black[64:128].sum(), 90)
        np.testing.assert_array_equal(black, white)
        after = koshogi.Game()
        after.play("10m-10l")
        self.assertFalse(np.array_equal(after.planes(), black))

    def test_attack_planes_only_when_asked(self):
        # White to move, generals in opposite corners, a pawn of each side side by side on
        # rank 10: without drums pawns step sideways, so each pawn can take the other.
        ksfen = "g,18/" + "19/" * 8 + "8,p,P,9/" + "19/" * 8 + "18,G w 1"
        game = koshogi.Game(ksfen)
        plain = game.planes()
        self.assertEqual(plain.shape, (koshogi.INPUT_PLANES, 19, 19))
        self.assertEqual(koshogi.INPUT_PLANES, 142)
        self.assertEqual(plain[140:].sum(), 0)
        planes = game.planes(attack_planes=True)
        self.assertEqual(planes[140].sum(), 1)  # White's pawn hangs
        self.assertEqual(planes[141].sum(), 1)  # and so does Black's
        own_pawn = planes[:64].sum(axis=0)
        np.testing.assert_array_equal(planes[140], own_pawn * planes[140])
        np.testing.assert_array_equal(planes[:140], plain[:140])


def shuffle(game):
    """Four simple moves (Black, White, Black, White) that bring the position back: a step
    and its reverse for each side."""
    import re

    step = re.compile(r"(\d+[a-s])-(\d+[a-s])")
    for first in game.legal_moves():
        a = step.fullmatch(first)
        if not a:
            continue
        game.play(first)
        for second in game.legal_moves():
            b = step.fullmatch(second)
            if not b:
                continue
            game.play(second)
            back_a, back_b = f"{a[2]}-{a[1]}", f"{b[2]}-{b[1]}"
            ok = back_a in game.legal_moves()
            if ok:
                game.play(back_a)
                ok = back_b in game.legal_moves()
                game.undo()
            game.undo()
            if ok:
                game.undo()
                return [first, second, back_a, back_b]
        game.undo()
    raise AssertionError("no reversible pair of moves")


class PolicyLegs(unittest.TestCase):
    def test_legs_are_distinct_in_range_and_give_move_logits(self):
        game = random_game(60, seed=8)
        offsets, legs = game.legal_policy()
        self.assertEqual(len(offsets), game.num_legal_moves() + 1)
        self.assertEqual(offsets[0], 0)
        self.assertEqual(offsets[-1], len(legs))
        self.assertTrue(np.all(np.diff(offsets) >= 1))
        self.assertTrue(np.all((legs >= 0) & (legs < koshogi.POLICY_PLANES * koshogi.POINTS)))
        sets = {tuple(legs[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)}
        self.assertEqual(len(sets), game.num_legal_moves(), "every legal move has its own legs")
        policy = np.random.default_rng(0).standard_normal((koshogi.POLICY_PLANES, 19, 19))
        logits = game.move_logits(policy)
        flat = policy.reshape(-1).astype(np.float32)
        for i in (0, len(offsets) // 2, len(offsets) - 2):
            self.assertAlmostEqual(float(logits[i]), float(flat[legs[offsets[i]:offsets[i + 1]]].sum()), places=4)


class Perft(unittest.TestCase):
    def test_counts_of_the_rules_fixture(self):
        path = os.path.join(ROOT, "data", "rules", "perft.txt")
        checked = 0
        with open(path) as fixture:
            for line in fixture:
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                depth, count, position = line.split(None, 2)
                if int(depth) > 2:
                    continue  # depth 3 takes minutes; the Rust tests run it
                self.assertEqual(koshogi.Game(position).perft(int(depth)), int(count), line)
                checked += 1
        self.assertGreater(checked, 0)
        with self.assertRaises(koshogi.KoshogiError):
            koshogi.Game().perft(99)


class Rendering(unittest.TestCase):
    def test_text_and_svg_boards(self):
        game = koshogi.Game()
        lines = game.board_text().splitlines()
        self.assertEqual(len(lines), 21)
        stones = [t for line in lines[1:20] for t in line.split()[1:20] if t != "."]
        self.assertEqual(len(stones), int(game.planes()[:128].sum()))
        game.play(0)
        svg = game.svg()
        self.assertTrue(svg.startswith("<svg"))
        self.assertTrue(svg.rstrip().endswith("</svg>"))


if __name__ == "__main__":
    unittest.main()
