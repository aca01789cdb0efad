"""A random agent against the greedy baseline, from the start to the end of one game."""
import numpy as np

import koshogi

rng = np.random.default_rng(0)
game = koshogi.Game(max_plies=400, cap_material=2)  # the cap and its material decision are optional
while not game.is_over():
    if game.side_to_move == "black":
        move = int(rng.integers(game.num_legal_moves()))   # an index into game.legal_moves()
    else:
        move = game.greedy_move(seed=game.plies_played)    # koshogi-baselines' greedy player
    hodges = game.hodges(move)                             # the same move in Hodges notation
    played = game.play(move)                               # returns the canonical notation
    if game.plies_played <= 4:
        print(game.plies_played, played, hodges)
planes = game.planes()                                     # float32 [140, 19, 19]
offsets, legs = game.legal_policy()                        # each legal move's policy legs
winner, reason = game.outcome()
print(f"{game.plies_played} plies: {winner or 'draw'} ({reason}); final KSFEN {game.ksfen()}")
