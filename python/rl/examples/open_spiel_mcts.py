"""OpenSpiel's MCTS bot against the greedy baseline on the registered "koshogi" game."""
import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import koshogi.open_spiel  # registers "koshogi" with pyspiel

game = pyspiel.load_game("koshogi", {"max_plies": 60, "cap_material": 1})
pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)  # OpenSpiel's checks
bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=30,
                   evaluator=koshogi.open_spiel.MaterialEvaluator(rollout_plies=10),
                   random_state=np.random.RandomState(0))
state = game.new_initial_state()
while not state.is_terminal():
    if state.current_player() == 0:
        action = bot.step(state)                                  # MCTS plays Black
    else:
        action = state.game_state.greedy_move(seed=len(state.history()))
    state.apply_action(action)
print(state.game_state.outcome(), "MCTS (Black) scores", state.returns()[0])
