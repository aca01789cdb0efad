"""An OpenSpiel bot as an engine: ``python -m koshogi.engine_bot --bot mcts|random`` speaks the
koshogi-zero engine protocol (docs/engine-protocol.md) on stdin/stdout, so ``koshogi arena
--a engine:"python -m koshogi.engine_bot --bot mcts"`` matches an OpenSpiel bot against the
arena's players, and a GUI can play it.

Why: the arena rates programs through the engine protocol, so any bot OpenSpiel has becomes an
opponent of known strength without the arena knowing Python. The bots play the registered
``koshogi`` OpenSpiel game (``koshogi.open_spiel``): ``mcts`` is OpenSpiel's ``MCTSBot`` (UCT)
with ``koshogi.open_spiel.MaterialEvaluator`` at its leaves (``--rollout-plies`` random plies
played in Rust, then tanh of the material balance; 0 = the static material count), ``random``
is OpenSpiel's uniform random bot.

The protocol subset (enough for ``koshogi arena`` and simple GUIs): ``koshogi``/``usi``/``uci``
(identification, then ``koshogiok``/``usiok``/``uciok``), ``isready``, ``setoption name
<simulations|rollout_plies|uct_c|overhead|rules> value <v>``, ``position startpos|ksfen <KSFEN>
[moves …]`` (canonical or Hodges moves; all or nothing), ``go`` with ``nodes``/``visits``,
``movetime``, ``btime``/``wtime``/``binc``/``winc``/``byoyomi``/``movestogo``, ``stop`` (the
search is synchronous: nothing to stop), ``usinewgame``/``ucinewgame``/``gameover``
(accepted), ``quit``. Every ``go`` answers exactly one ``bestmove``: a refused ``go`` line (an
unknown or malformed limit, ``infinite``, ``ponder``, ``depth``) or a failed search answers an
``info string error: …`` line and the greedy baseline's move; a finished game answers ``info
string game over: …`` and ``bestmove resign``. Any other bad line gets one ``info string error:
…`` line and changes nothing; the program never exits on bad input.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from . import Game, KoshogiError
from . import open_spiel as koshogi_open_spiel

NAME = "koshogi-zero OpenSpiel bot"
AUTHOR = "the koshogi-zero authors"
# Input lines longer than this are refused (a position with tens of thousands of moves fits).
MAX_LINE_BYTES = 1 << 20
# Error lines quote at most this many characters of the input.
QUOTE_CHARS = 200
# The OpenSpiel game the bots search: a ply cap far past any game, so that the position's own
# rules decide (the arena's cap and adjudication are the arena's, not the game's).
SEARCH_MAX_PLIES = 1_000_000
# A simulation count that a time limit always ends first.
UNBOUNDED_SIMULATIONS = 1_000_000_000
_GREETINGS = {"koshogi": "koshogiok", "usi": "usiok", "uci": "uciok"}
_GO_VALUES = ("nodes", "visits", "movetime", "btime", "wtime", "binc", "winc", "byoyomi",
              "movestogo")


class ProtocolError(Exception):
    """A line that cannot be used: answered with one error line."""


class _TimeUp(Exception):
    pass


class BudgetedMCTSBot(mcts.MCTSBot):
    """OpenSpiel's ``MCTSBot`` that also stops at a deadline: before each simulation, once the
    root has been evaluated and one move tried (OpenSpiel's first simulation only evaluates the
    root; the second expands it), the clock is checked (through ``_apply_tree_policy``, which
    OpenSpiel 2.0's ``mcts_search`` calls once a simulation with the root), and the search
    keeps what the simulations so far gave it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._deadline = None
        self._root = None

    def search(self, state, simulations, deadline):
        """The root after at most ``simulations`` simulations or at ``deadline``
        (``time.monotonic()``, ``None`` = none)."""
        self.max_simulations = simulations
        self._deadline = deadline
        self._root = None
        try:
            return self.mcts_search(state)
        except _TimeUp:
            return self._root

    def _apply_tree_policy(self, root, state):
        self._root = root
        if (self._deadline is not None and root.explore_count >= 2
                and time.monotonic() >= self._deadline):
            raise _TimeUp()
        return super()._apply_tree_policy(root, state)


def _excerpt(text):
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + "…"


def _positive_int(name, text, minimum=1):
    try:
        value = int(text)
    except ValueError:
        raise ProtocolError(f"{name}: cannot read {_excerpt(text)!r} as a whole number") from None
    if value < minimum:
        raise ProtocolError(f"{name} must be at least {minimum}, not {value}")
    return value


def parse_go(words):
    """``go`` arguments → ``{limit: int}`` (clock values may be 0; a negative one counts as 0)."""
    limits = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word in _GO_VALUES:
            if i + 1 >= len(words):
                raise ProtocolError(f"go: `{word}` needs a value")
            minimum = 1 if word in ("nodes", "visits", "movetime", "movestogo") else None
            text = words[i + 1]
            if minimum is None:
                try:
                    value = max(0, int(text))
                except ValueError:
                    raise ProtocolError(
                        f"go: {word}: cannot read {_excerpt(text)!r} as milliseconds") from None
            else:
                value = _positive_int(f"go: {word}", text, minimum)
            limits["nodes" if word == "visits" else word] = value
            i += 2
        elif word in ("infinite", "ponder", "depth", "mate", "searchmoves"):
            raise ProtocolError(f"go: `{word}` is not supported by this bot")
        else:
            raise ProtocolError(f"go: unknown limit {_excerpt(word)!r}")
    return limits


def search_budget(limits, side, ply, overhead_ms):
    """Seconds of search a ``go`` allows (``None`` = no time limit), from ``movetime`` and the
    side to move's clock, as docs/engine-protocol.md's time management without the learning:
    the time left plus the increments of the moves still to come (``movestogo``, else
    max(40, ⌈(600 − ply) / 2⌉)), less ``overhead_ms`` a move, spread over those moves, plus
    byoyomi; never more than the time left plus byoyomi less the overhead."""
    budgets = []
    if "movetime" in limits:
        budgets.append(max(0, limits["movetime"] - overhead_ms))
    prefix = "b" if side == "black" else "w"
    clock_named = any(k in limits for k in ("btime", "wtime", "binc", "winc", "byoyomi"))
    if clock_named:
        remaining = limits.get(f"{prefix}time", 0)
        increment = limits.get(f"{prefix}inc", 0)
        byoyomi = limits.get("byoyomi", 0)
        moves = limits.get("movestogo") or max(40, math.ceil((600 - ply) / 2))
        income = remaining + increment * (moves - 1)
        target = max(0, income - overhead_ms * moves) / moves + byoyomi
        hard = remaining + byoyomi - overhead_ms
        budgets.append(max(0, min(target, hard)))
    return min(budgets) / 1000.0 if budgets else None


class EngineBot:
    """The protocol's state: options, the current game, the bot. ``handle(line)`` returns the
    reply lines and whether to quit."""

    def __init__(self, bot="mcts", simulations=100, rollout_plies=10, uct_c=2.0,
                 overhead=50, seed=0):
        self.bot_kind = bot
        self.options = {"simulations": simulations, "rollout_plies": rollout_plies,
                        "uct_c": uct_c, "overhead": overhead}
        self.seed = seed
        self.rules = None  # JSON text of the §12 options, None = KS-default
        self.game = Game(rules=self.rules)
        self.searches = 0
        self._bots = {}

    # ------------------------------------------------------------------ commands

    def handle(self, line):
        """Replies to one input line and whether the session ends."""
        words = line.split()
        if not words:
            return [], False
        command, args = words[0], words[1:]
        try:
            if command in _GREETINGS:
                return self._identify() + [_GREETINGS[command]], False
            if command == "isready":
                return ["readyok"], False
            if command in ("usinewgame", "ucinewgame", "gameover", "stop"):
                return [], False
            if command == "quit":
                return [], True
            if command == "setoption":
                self._set_option(line)
                return [], False
            if command == "position":
                self.game = self._position(args)
                return [], False
            if command == "go":
                return self._go(args), False
            raise ProtocolError(f"unknown command {_excerpt(command)!r}")
        except ProtocolError as error:
            return [f"info string error: {error}"], False
        except Exception as error:  # a bug must not end the session, and a `go` still answers
            replies = [f"info string error: {_excerpt(command)} failed "
                       f"({type(error).__name__}: {_excerpt(str(error))})"]
            if command == "go":
                replies.append("bestmove resign")
            return replies, False

    def _identify(self):
        return [
            f"id name {NAME} ({self.bot_kind})",
            f"id author {AUTHOR}",
            f"option name simulations type spin default {self.options['simulations']} "
            "min 1 max 1000000000",
            f"option name rollout_plies type spin default {self.options['rollout_plies']} "
            "min 0 max 10000",
            f"option name uct_c type string default {self.options['uct_c']}",
            f"option name overhead type spin default {self.options['overhead']} min 0 max 60000",
            "option name rules type string default default",
        ]

    def _set_option(self, line):
        rest = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
        if not rest.startswith("name "):
            raise ProtocolError("setoption: expected `setoption name <name> value <value>`")
        name, sep, value = rest[len("name "):].partition(" value ")
        name = name.strip().lower()
        if not sep:
            raise ProtocolError(f"setoption {_excerpt(name)}: missing ` value <value>`")
        value = value.strip()
        if name in ("simulations", "rollout_plies", "overhead"):
            minimum = 0 if name in ("rollout_plies", "overhead") else 1
            self.options[name] = _positive_int(f"setoption {name}", value, minimum)
            self._bots.clear()
        elif name == "uct_c":
            try:
                uct_c = float(value)
            except ValueError:
                raise ProtocolError(f"setoption uct_c: cannot read {_excerpt(value)!r}") from None
            if not (uct_c > 0 and math.isfinite(uct_c)):
                raise ProtocolError("setoption uct_c must be a positive number")
            self.options["uct_c"] = uct_c
            self._bots.clear()
        elif name == "rules":
            rules = None if value in ("", "default") else value
            try:
                game = self._replay(self.game.initial_ksfen(), self.game.history(), rules)
            except (KoshogiError, ValueError) as error:
                # Rules that cannot be read are refused; a position no longer legal under good
                # rules starts again from its start position.
                try:
                    game = Game(self.game.initial_ksfen(), rules=rules)
                except (KoshogiError, ValueError):
                    raise ProtocolError(f"setoption rules: {error}") from None
            self.rules = rules
            self.game = game
            self._bots.clear()
        else:
            raise ProtocolError(f"setoption: unknown option {_excerpt(name)!r}")

    def _replay(self, start, moves, rules):
        game = Game(start, rules=rules)
        for number, move in enumerate(moves, 1):
            try:
                game.play(move)
            except (KoshogiError, ValueError, IndexError, TypeError) as error:
                raise ProtocolError(
                    f"move {number} ({_excerpt(move)}): {error}; position unchanged") from None
        return game

    def _position(self, args):
        if not args:
            raise ProtocolError("position: expected `startpos` or `ksfen <KSFEN>`")
        if "moves" in args:
            split = args.index("moves")
            head, moves = args[:split], args[split + 1:]
        else:
            head, moves = args, []
        if head[0] == "startpos" and len(head) == 1:
            start = "startpos"
        elif head[0] == "ksfen" and len(head) > 1:
            start = " ".join(head[1:])
        else:
            raise ProtocolError(
                f"position: expected `startpos` or `ksfen <KSFEN>`, not {_excerpt(' '.join(head))!r}")
        try:
            Game(start, rules=self.rules)
        except (KoshogiError, ValueError) as error:
            raise ProtocolError(f"position: {error}; position unchanged") from None
        return self._replay(start, moves, self.rules)

    def _go(self, args):
        game = self.game
        outcome = game.outcome()
        if outcome is not None:
            winner, reason = outcome
            return [f"info string game over: {reason} ({winner or 'draw'})", "bestmove resign"]
        try:
            limits = parse_go(args)
        except ProtocolError as error:
            return [f"info string error: {error}; playing the greedy move without a search",
                    f"bestmove {self._greedy(game)}"]
        started = time.monotonic()
        budget = search_budget(limits, game.side_to_move, game.plies_played,
                               self.options["overhead"])
        if budget is not None and budget <= 0:
            return ["info string no search time on this clock: greedy move without a search",
                    f"bestmove {self._greedy(game)}"]
        # `nodes N` (or the `simulations` option) counts simulations past the root's own
        # evaluation, which is OpenSpiel's first simulation (as in `koshogi engine`).
        simulations = limits.get("nodes")
        if simulations is None:
            simulations = (UNBOUNDED_SIMULATIONS if budget is not None
                           else self.options["simulations"])
        simulations += 1
        deadline = None if budget is None else started + budget
        try:
            index, visits = self._choose(game, simulations, deadline)
        except Exception as error:  # a failed search still answers a move
            return [f"info string error: the search failed ({type(error).__name__}: {error}); "
                    "playing the greedy move", f"bestmove {self._greedy(game)}"]
        elapsed_ms = max(1, round((time.monotonic() - started) * 1000))
        move = game.canonical(index)
        return [f"info visits {visits} time {elapsed_ms} nps {visits * 1000 // elapsed_ms} "
                f"pv {move}", f"bestmove {move}"]

    # ------------------------------------------------------------------ bots

    def _greedy(self, game):
        index = game.greedy_move(seed=self.seed + game.plies_played)
        return game.canonical(index if index is not None else 0)

    def _spiel_state(self, spiel_game, game):
        state = spiel_game.new_initial_state()
        state.game_state = game.copy()
        return state

    def _choose(self, game, simulations, deadline):
        """(legal-move index, simulations run) from the OpenSpiel bot."""
        self.searches += 1
        spiel_game = koshogi_open_spiel.load(max_plies=SEARCH_MAX_PLIES, rules=self.rules or "")
        state = self._spiel_state(spiel_game, game)
        if self.bot_kind == "random":
            player = state.current_player()
            bot = self._bots.get(("random", player))
            if bot is None:
                bot = pyspiel.make_uniform_random_bot(player, self.seed + player)
                self._bots[("random", player)] = bot
            return bot.step(state), 0
        bot = self._bots.get("mcts")
        if bot is None:
            evaluator = koshogi_open_spiel.MaterialEvaluator(
                rollout_plies=self.options["rollout_plies"], seed=self.seed)
            bot = BudgetedMCTSBot(spiel_game, uct_c=self.options["uct_c"],
                                  max_simulations=self.options["simulations"],
                                  evaluator=evaluator,
                                  random_state=np.random.RandomState(self.seed))
            self._bots["mcts"] = bot
        root = bot.search(state, simulations, deadline)
        if root is None or root.explore_count == 0 or not root.children:
            raise RuntimeError("no simulation finished")
        return root.best_child().action, root.explore_count


def _read_lines(stream):
    """Input lines as text; a line over ``MAX_LINE_BYTES`` or not UTF-8 yields a
    ``ProtocolError`` in its place (the rest of an overlong line is skipped, never held)."""
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
            yield ProtocolError(f"input line longer than {MAX_LINE_BYTES} bytes ignored")
            continue
        try:
            yield raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            yield ProtocolError("input line is not UTF-8")


def serve(engine, stdin, stdout):
    """Runs the session until ``quit`` or the end of the input."""
    for line in _read_lines(stdin):
        if isinstance(line, ProtocolError):
            replies, done = [f"info string error: {line}"], False
        else:
            replies, done = engine.handle(line)
        for reply in replies:
            stdout.write(reply + "\n")
        stdout.flush()
        if done:
            return


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m koshogi.engine_bot",
        description="An OpenSpiel bot speaking the koshogi-zero engine protocol "
                    "(docs/engine-protocol.md, docs/python.md).")
    parser.add_argument("--bot", choices=("mcts", "random"), default="mcts",
                        help="OpenSpiel's MCTSBot with the material evaluator, or its uniform "
                             "random bot (default mcts)")
    parser.add_argument("--simulations", type=int, default=100,
                        help="MCTS simulations of a `go` without limits (default 100)")
    parser.add_argument("--rollout-plies", type=int, default=10,
                        help="random plies before the material count at an MCTS leaf "
                             "(default 10; 0 = static material)")
    parser.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration (default 2)")
    parser.add_argument("--overhead", type=int, default=50,
                        help="ms a move costs outside its search, kept off clocks (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.simulations < 1 or args.rollout_plies < 0 or args.overhead < 0 or not args.uct_c > 0:
        parser.error("--simulations must be ≥ 1, --rollout-plies and --overhead ≥ 0, "
                     "--uct-c > 0")
    engine = EngineBot(bot=args.bot, simulations=args.simulations,
                       rollout_plies=args.rollout_plies, uct_c=args.uct_c,
                       overhead=args.overhead, seed=args.seed)
    try:
        serve(engine, sys.stdin.buffer, sys.stdout)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
