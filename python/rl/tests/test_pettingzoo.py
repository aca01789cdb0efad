"""The PettingZoo environment passes PettingZoo's own api_test and seed_test, unchanged, and
plays Ko shogi: masks are the legal moves, rewards come at the end, the cap truncates."""

import unittest

import numpy as np
from pettingzoo.test import api_test, seed_test

import koshogi
from koshogi.pettingzoo_env import MAX_ACTIONS


class PettingZooConformance(unittest.TestCase):
    def test_api_test(self):
        api_test(koshogi.env(max_plies=120), num_cycles=200)
        api_test(koshogi.env(), num_cycles=60)

    def test_seed_test(self):
        seed_test(lambda: koshogi.env(max_plies=80), num_cycles=100)


def play_out(environment, rng):
    environment.reset(seed=1)
    steps = 0
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, info = environment.last()
        if termination or truncation:
            environment.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        environment.step(int(rng.choice(legal)))
        steps += 1
    return steps


class Playing(unittest.TestCase):
    def test_masks_are_the_legal_moves_and_rewards_come_at_the_end(self):
        environment = koshogi.env(max_plies=60)
        environment.reset(seed=0)
        rng = np.random.default_rng(0)
        seen = 0
        for agent in environment.agent_iter():
            observation, reward, termination, truncation, info = environment.last()
            if termination or truncation:
                self.assertTrue(truncation and not termination, "60 plies end by the cap")
                self.assertEqual(info["outcome"], "MaxPlies")
                environment.step(None)
                continue
            game = environment.unwrapped.game
            self.assertEqual(agent, game.side_to_move)
            self.assertEqual(int(observation["action_mask"].sum()), game.num_legal_moves())
            np.testing.assert_array_equal(observation["observation"], game.planes())
            other = "white" if agent == "black" else "black"
            self.assertEqual(int(environment.observe(other)["action_mask"].sum()), 0)
            self.assertEqual(reward, 0)
            environment.step(int(rng.integers(game.num_legal_moves())))
            seen += 1
        self.assertEqual(seen, 60)

    def test_material_adjudication_pays_the_winner(self):
        for seed in range(6):
            environment = koshogi.env(max_plies=150, cap_material=1)
            play_out(environment, np.random.default_rng(seed))
            raw = environment.unwrapped
            winner, reason = raw.game.outcome()
            if reason == "MaterialAdjudication":
                self.assertEqual(raw._cumulative_rewards.get(winner, 1), 1)
                return
        self.fail("no capped game was decided on material in six tries")

    def test_illegal_action_ends_the_game_against_its_player(self):
        environment = koshogi.env()
        environment.reset()
        illegal = environment.unwrapped.game.num_legal_moves()  # first unmasked index
        self.assertLess(illegal, MAX_ACTIONS)
        environment.step(illegal)
        self.assertEqual(environment.rewards["black"], -1)
        self.assertTrue(all(environment.terminations.values()))

    def test_render_text_and_svg(self):
        text_env = koshogi.env(render_mode="ansi")
        text_env.reset()
        self.assertIn("black to move", text_env.render())
        svg_env = koshogi.env(render_mode="svg")
        svg_env.reset()
        self.assertTrue(svg_env.render().startswith("<svg"))
        with self.assertRaises(ValueError):
            koshogi.env(render_mode="human")

    def test_bad_settings_raise_at_construction(self):
        with self.assertRaises(koshogi.KoshogiError):
            koshogi.env(position="bad ksfen")
        with self.assertRaises(TypeError):
            koshogi.env(attack_planes="yes")

    def test_attack_planes_only_when_asked(self):
        plain, marked = koshogi.env(), koshogi.env(attack_planes=True)
        plain.reset(seed=0)
        marked.reset(seed=0)
        for ply in range(6):
            game = marked.unwrapped.game
            for agent in ("black", "white"):
                seen = marked.observe(agent)["observation"]
                np.testing.assert_array_equal(seen, game.planes(perspective=agent,
                                                                attack_planes=True))
                np.testing.assert_array_equal(plain.observe(agent)["observation"][140:], 0)
                np.testing.assert_array_equal(seen[:140],
                                              plain.observe(agent)["observation"][:140])
            # The shooters reach across the empty middle ranks from the first move on.
            self.assertGreater(marked.observe(game.side_to_move)["observation"][140:].sum(), 0)
            move = ply * 7
            plain.step(move)
            marked.step(move)


if __name__ == "__main__":
    unittest.main()
