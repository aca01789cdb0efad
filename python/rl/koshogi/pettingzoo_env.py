"""Ko shogi as a PettingZoo AEC environment: ``koshogi.env(...)``.

Two agents, ``"black"`` (moves first) and ``"white"``. An action is the index of a legal move
in move-generation order (``Game.legal_moves()``), under ``Discrete(MAX_ACTIONS)``, and the
observation's ``action_mask`` marks the first ``n`` indices of the agent to move. A move is not
one entry of the network's policy output but a short set of *legs* (docs/move-encoding.md: a
leg for its destination, one per piece it removes on the way, one for a promotion choice), and
moves that differ only in what they remove share their destination leg, so no fixed numbering
of single policy entries names every move; ``env.legal_policy()`` gives the legs of the legal
moves in the action order, and a move's logit is the sum of its legs.

The observation is the network's input planes (float32 [142, 19, 19], docs/input-features.md)
as the observing agent would see them were it to move, ply fraction included when a ply cap is
set; the attack planes (140, 141) are filled only with ``attack_planes=True``, as a network
trained with ``[model] attack_planes`` expects. Rewards come at the end only: +1 to the winner, −1 to the loser, 0 for a draw. A game
ended by the rules (§10) *terminates*; one stopped at ``max_plies`` is *truncated* (a draw, or
with ``cap_material`` a win for the side that many pieces ahead; neither is a rule of Ko shogi).
``render()`` returns the board as text (``render_mode="ansi"``) or as the SVG picture of the web
viewer (``"svg"``).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import BOARD_SIZE, INPUT_PLANES, Game, KoshogiError

#: Size of the action space: far above the most legal moves seen in random games (534 in 30
#: games); a position with more raises KoshogiError rather than hiding moves.
MAX_ACTIONS = 4096

#: The ends the rules do not make: the engine-side ply cap (a draw or a material decision).
_CAP_REASONS = {"MaxPlies", "MaterialAdjudication"}


_OBSERVATION_SPACE = None


def _observation_space():
    """One observation space for every environment and agent: gymnasium's Box keeps full
    low/high arrays (2 × 200 KB here), which per agent and environment made an environment
    take 1 MB. Shared is safe because nothing samples it (PettingZoo's seed test seeds but
    never samples observation spaces); action spaces, which are sampled, stay per environment."""
    global _OBSERVATION_SPACE
    if _OBSERVATION_SPACE is None:
        _OBSERVATION_SPACE = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (INPUT_PLANES, BOARD_SIZE, BOARD_SIZE),
                                      dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (MAX_ACTIONS,), dtype=np.int8),
        })
    return _OBSERVATION_SPACE


def env(**kwargs):
    """The environment with PettingZoo's standard wrappers: an illegal action ends the game with
    reward −1 for the agent that chose it, an action outside the space raises, and the API's
    call order is enforced."""
    environment = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    environment = wrappers.OrderEnforcingWrapper(environment)
    return environment


class raw_env(AECEnv):
    metadata = {
        "render_modes": ["ansi", "svg"],
        "name": "koshogi_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        position: str = "startpos",
        rules=None,
        max_plies: int | None = None,
        cap_material: int | None = None,
        attack_planes: bool = False,
    ):
        """``position``: ``startpos`` or a KSFEN; ``rules``: the §12 options (dict or JSON);
        ``max_plies``: the ply cap (truncation); ``cap_material``: the material margin that
        decides a capped game (needs ``max_plies``); ``attack_planes``: fill observation planes
        140 and 141 (docs/input-features.md)."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._settings = dict(position=position, rules=rules, max_plies=max_plies,
                              cap_material=cap_material)
        self.game = Game(**self._settings)  # checks the settings now, not at reset
        if not isinstance(attack_planes, bool):
            raise TypeError(f"attack_planes {attack_planes!r}: True or False")
        self.attack_planes = attack_planes
        self.possible_agents = ["black", "white"]
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: spaces.Discrete(MAX_ACTIONS) for a in self.possible_agents}
        space = _observation_space()
        self.observation_spaces = {a: space for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        # The game itself has no randomness: `seed` is accepted for the API (PettingZoo's seed
        # test seeds the action spaces it samples from).
        self.game = Game(**self._settings)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.game.side_to_move
        self._update_end()

    def observe(self, agent):
        mask = np.zeros(MAX_ACTIONS, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over():
            count = self.game.num_legal_moves()
            if count > MAX_ACTIONS:
                raise KoshogiError(f"{count} legal moves: more than MAX_ACTIONS = {MAX_ACTIONS}")
            mask[:count] = 1
        return {"observation": self.game.planes(perspective=agent,
                                                         attack_planes=self.attack_planes), "action_mask": mask}

    def legal_moves(self):
        """The legal moves of the agent to move, in canonical notation, in action order."""
        return self.game.legal_moves()

    def legal_policy(self):
        """``(offsets, legs)`` of the legal moves in action order (``Game.legal_policy``)."""
        return self.game.legal_policy()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self.game.play(int(action))  # an index outside the legal moves raises IndexError
        self.agent_selection = self.game.side_to_move
        self._update_end()
        self._accumulate_rewards()

    def _update_end(self):
        outcome = self.game.outcome()
        self.rewards = dict.fromkeys(self.agents, 0)
        if outcome is None:
            return
        winner, reason = outcome
        for agent in self.agents:
            self.rewards[agent] = 0 if winner is None else (1 if agent == winner else -1)
            if reason in _CAP_REASONS:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True
            self.infos[agent] = {"outcome": reason, "winner": winner}

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() without a render_mode: koshogi.env(render_mode='ansi')")
            return None
        if self.render_mode == "svg":
            return self.game.svg()
        return self.game.board_text() + f"{self.game.side_to_move} to move, ply {self.game.plies_played}\n"

    def close(self):
        pass
