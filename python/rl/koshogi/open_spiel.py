"""Ko shogi as an OpenSpiel game: importing this module registers ``"koshogi"`` with pyspiel,
so ``pyspiel.load_game("koshogi")`` (or ``koshogi.open_spiel.load()``) gives a game that
OpenSpiel's bots and algorithms run on.

A perfect-information, deterministic, zero-sum game with terminal rewards (+1/−1/0). Actions
are legal-move indices in move-generation order, as in the PettingZoo environment
(``num_distinct_actions`` = ``MAX_ACTIONS``; a move is a set of policy legs, so an action's
meaning is per state: ``state.action_to_string`` gives its canonical notation and
``state.game_state.legal_policy()`` its legs). OpenSpiel needs a finite ``max_game_length``,
so the game always has a ply cap: parameter ``max_plies`` (default 2000, far above a random
game's ~900 plies), a draw when reached unless ``cap_material`` > 0 decides it on material.
``rules`` is the §12 options as JSON (default KS-default). The observation tensor is the
network's input planes from the observer's view (142 × 19 × 19); parameter ``attack_planes``
(default false) fills planes 140 and 141, as a network trained with them expects.

``MaterialEvaluator`` is an MCTS evaluator for this game: a short random rollout played in Rust,
then the material balance squashed to (−1, 1).
"""

from __future__ import annotations

import math

import numpy as np
import pyspiel

from . import BOARD_SIZE, INPUT_PLANES, Game
from .pettingzoo_env import MAX_ACTIONS

SHORT_NAME = "koshogi"
_COLORS = ("black", "white")
_DEFAULTS = {"max_plies": 2000, "cap_material": 0, "rules": "", "attack_planes": False}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Ko shogi (koshogi-zero rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class KoshogiGame(pyspiel.Game):
    def __init__(self, params=None):
        params = {**_DEFAULTS, **(params or {})}
        self._max_plies = int(params["max_plies"])
        if self._max_plies <= 0:
            raise ValueError("max_plies must be positive: OpenSpiel needs a finite game length")
        self._cap_material = int(params["cap_material"]) or None
        self._rules = params["rules"] or None
        self._attack_planes = params["attack_planes"]
        if not isinstance(self._attack_planes, bool):
            raise ValueError(f"attack_planes {self._attack_planes!r}: true or false")
        Game(rules=self._rules)  # a bad rules text fails here, not at the first state
        info = pyspiel.GameInfo(
            num_distinct_actions=MAX_ACTIONS,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self._max_plies,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self):
        return KoshogiState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PlanesObserver(params, attack_planes=self._attack_planes)
        from open_spiel.python.observation import IIGObserverForPublicInfoGame

        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class KoshogiState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        self.game_state = Game(rules=game._rules, max_plies=game._max_plies,
                               cap_material=game._cap_material)

    def current_player(self):
        if self.game_state.is_over():
            return pyspiel.PlayerId.TERMINAL
        return _COLORS.index(self.game_state.side_to_move)

    def _legal_actions(self, player):
        if self.game_state.is_over() or _COLORS[player] != self.game_state.side_to_move:
            return []
        return list(range(self.game_state.num_legal_moves()))

    def _apply_action(self, action):
        self.game_state.play(int(action))

    def _action_to_string(self, player, action):
        return self.game_state.canonical(int(action))

    def is_terminal(self):
        return self.game_state.is_over()

    def returns(self):
        score = self.game_state.score("black")
        if score is None:
            return [0.0, 0.0]
        return [float(score), float(-score)]

    def __str__(self):
        return self.game_state.ksfen()


class PlanesObserver:
    """The input planes of the observing player (a 1-D tensor with a [142, 19, 19] view)."""

    def __init__(self, params, attack_planes=False):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        shape = (INPUT_PLANES, BOARD_SIZE, BOARD_SIZE)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": np.reshape(self.tensor, shape)}
        self.attack_planes = attack_planes

    def set_from(self, state, player):
        self.tensor[:] = state.game_state.planes(
            perspective=_COLORS[player], attack_planes=self.attack_planes).reshape(-1)

    def string_from(self, state, player):
        return state.game_state.board_text()


class MaterialEvaluator:
    """MCTS evaluator: `rollout_plies` random moves played in Rust (``Game.play_random``),
    then the result if the game ended, else tanh(material balance / `scale`) for Black and its
    negation for White. Priors are uniform."""

    def __init__(self, rollout_plies=20, scale=20.0, seed=0):
        self.rollout_plies = rollout_plies
        self.scale = scale
        self._seed = seed

    def evaluate(self, state):
        game = state.game_state.copy()
        self._seed += 1
        game.play_random(self.rollout_plies, self._seed)
        score = game.score("black")
        value = float(score) if score is not None else math.tanh(
            game.material_balance("black") / self.scale)
        return np.array([value, -value])

    def prior(self, state):
        actions = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(actions)) for action in actions]


def load(**params):
    """``pyspiel.load_game("koshogi", params)``."""
    return pyspiel.load_game(SHORT_NAME, params)


pyspiel.register_game(_GAME_TYPE, KoshogiGame)
