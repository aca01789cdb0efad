"""Ko shogi for Python: the koshogi-zero rules (a native module built from the Rust rules
crate), the network's input planes and policy legs as numpy arrays, a PettingZoo environment
(``koshogi.env``) and an OpenSpiel game (``koshogi.open_spiel``). See docs/python.md."""

import numpy as _np

from . import _koshogi
from ._koshogi import (
    BOARD_SIZE,
    FEATURE_VERSION,
    INPUT_PLANES,
    MOVE_ENCODING_VERSION,
    POINTS,
    POLICY_PLANES,
    START_KSFEN,
    KoshogiError,
)

__all__ = [
    "Game",
    "KoshogiError",
    "env",
    "raw_env",
    "BOARD_SIZE",
    "FEATURE_VERSION",
    "INPUT_PLANES",
    "MOVE_ENCODING_VERSION",
    "POINTS",
    "POLICY_PLANES",
    "START_KSFEN",
]


class Game(_koshogi.Game):
    """A Ko shogi game (see the native ``_koshogi.Game`` for every method); this class adds
    the numpy views of the input planes and the policy legs."""

    def planes(self, perspective=None, attack_planes=False):
        """The input planes of the current position, float32 [142, 19, 19] from the side to
        move's view (docs/input-features.md), ply fraction included when ``max_plies`` is set;
        with ``perspective="black"|"white"`` as that side would see it were it to move; the
        attack planes (140: own pieces the opponent could take, 141: the opponent's pieces
        this side could take) only with ``attack_planes=True``."""
        flat = _np.frombuffer(self._planes_bytes(perspective, attack_planes), dtype="<f4")
        return flat.reshape(INPUT_PLANES, BOARD_SIZE, BOARD_SIZE)

    def legal_policy(self):
        """``(offsets, legs)``: legal move ``i`` (generation order) has the policy entries
        ``legs[offsets[i]:offsets[i+1]]``, each ``plane * 361 + point`` of the network's
        [299, 19, 19] policy output flattened; a move's logit is the sum of its legs'
        (docs/move-encoding.md). int64 [M+1] and int32 [L], as in ``koshogi encode``'s shards."""
        offsets, legs = self._legal_legs_bytes()
        return _np.frombuffer(offsets, dtype="<i8"), _np.frombuffer(legs, dtype="<i4")

    def move_logits(self, policy):
        """The logit of every legal move from a policy output (any array of 299 * 361 values
        per position, e.g. the twin's ``out.policy[0]``): the sum of each move's legs."""
        offsets, legs = self.legal_policy()
        flat = _np.asarray(policy, dtype=_np.float32).reshape(-1)
        return _np.add.reduceat(flat[legs], offsets[:-1]) if len(legs) else flat[:0]

    def __reduce__(self):
        # Pickled as its start, settings and moves (OpenSpiel's serialisation checks pickle
        # states; multiprocessing sends games this way).
        return (_rebuild, (type(self), self.initial_ksfen(), self.rules_json(), self.max_plies,
                           self.cap_material, self.history()))


def _rebuild(cls, ksfen, rules, max_plies, cap_material, history):
    game = cls(ksfen, rules=rules, max_plies=max_plies, cap_material=cap_material)
    for move in history:
        game.play(move)
    return game


def env(**kwargs):
    """The PettingZoo AEC environment (``koshogi.pettingzoo_env.env``), wrapped as PettingZoo
    recommends; needs ``pettingzoo`` and ``gymnasium``."""
    from .pettingzoo_env import env as _env

    return _env(**kwargs)


def raw_env(**kwargs):
    from .pettingzoo_env import raw_env as _raw_env

    return _raw_env(**kwargs)
