"""The OpenSpiel game passes OpenSpiel's own random-simulation consistency checks and its MCTS
bot plays Ko shogi through it (a short match against the greedy baseline)."""

import unittest

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import koshogi
import koshogi.open_spiel as kos


class OpenSpielConformance(unittest.TestCase):
    def test_random_sim_test(self):
        game = kos.load(max_plies=150)
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)

    def test_random_sim_test_with_material_cap_and_rules(self):
        game = kos.load(max_plies=80, cap_material=1, rules='{"allow_pass": false}')
        pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)

    def test_states_follow_the_rules(self):
        game = kos.load(max_plies=10)
        state = game.new_initial_state()
        self.assertEqual(state.current_player(), 0)
        self.assertEqual(len(state.legal_actions()), koshogi.Game().num_legal_moves())
        self.assertEqual(state.action_to_string(0, 0), koshogi.Game().legal_moves()[0])
        tensor = np.asarray(state.observation_tensor(0)).reshape(koshogi.INPUT_PLANES, 19, 19)
        np.testing.assert_array_equal(tensor, koshogi.Game(max_plies=10).planes())
        clone = state.clone()
        clone.apply_action(0)
        self.assertEqual(state.history(), [])
        self.assertEqual(clone.current_player(), 1)
        while not clone.is_terminal():
            clone.apply_action(len(clone.legal_actions()) - 1)
        self.assertEqual(clone.returns(), [0.0, 0.0], "10 plies, no cap decision: a draw")
        with self.assertRaises(Exception):
            kos.load(rules='{"no_such_rule": 1}')

    def test_attack_planes_parameter(self):
        game = kos.load(max_plies=10, attack_planes=True)
        state = game.new_initial_state()
        state.apply_action(3)
        expected = koshogi.Game(max_plies=10)
        expected.play(3)
        for player, colour in enumerate(("black", "white")):
            tensor = np.asarray(state.observation_tensor(player)).reshape(koshogi.INPUT_PLANES,
                                                                          19, 19)
            planes = expected.planes(perspective=colour, attack_planes=True)
            np.testing.assert_array_equal(tensor, planes)
            self.assertGreater(planes[140:].sum(), 0)
        plain = kos.load(max_plies=10).new_initial_state()
        self.assertEqual(np.asarray(plain.observation_tensor(0)).reshape(-1, 19, 19)[140:].sum(),
                         0)


def play_match(games, max_plies, simulations):
    """MCTS (MaterialEvaluator) against greedy, colours alternating; MCTS's score per game."""
    game = kos.load(max_plies=max_plies, cap_material=1)
    scores = []
    for number in range(games):
        bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations,
                           evaluator=kos.MaterialEvaluator(rollout_plies=10, seed=number),
                           random_state=np.random.RandomState(number))
        mcts_player = number % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == mcts_player:
                action = bot.step(state)
            else:
                action = state.game_state.greedy_move(seed=number * 1000 + len(state.history()))
            state.apply_action(action)
        scores.append(state.returns()[mcts_player])
    return scores


class MctsAgainstGreedy(unittest.TestCase):
    def test_a_short_match_is_played_to_the_end(self):
        scores = play_match(games=2, max_plies=40, simulations=20)
        self.assertEqual(len(scores), 2)
        self.assertTrue(all(s in (-1.0, 0.0, 1.0) for s in scores))


if __name__ == "__main__":
    unittest.main()
