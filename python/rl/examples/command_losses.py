"""How a player's command fell, from a `koshogi arena --out DIR` match's records.

For every game the named player lost by its command (§10: general, or governor, or middle
troop with banner, all gone), this prints the position before its last move: whether the
opponent already had a move that would end the game were it its turn (the player was in check,
§10.3), how many of the player's moves would have left the opponent no such reply (escapes),
and its material balance there (baselines' scale, general 50, pawn 1). A loss with escapes is
a threat the player's search did not answer; one without is a position already lost; a large
negative balance says the command fell at the end of a material collapse.

It also prints the player's mean material balance after plies 50, 100, … over the games that
lasted so long, with a 95 % interval: the samples `koshogi arena` keeps in `games.jsonl` and
prints for new matches, here recomputed from the records (so older matches have them too).

    python command_losses.py DIR [PLAYER_PREFIX]

PLAYER_PREFIX picks the player by the start of its name in the records (default `mcts:`).
"""
import glob
import os
import re
import statistics
import sys

import koshogi

MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$")
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def read_record(path):
    """The record's tags and its moves (Hodges notation, as the arena writes them)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', text))
    body = text.split("\n\n", 1)[1] if "\n\n" in text else ""
    moves = [t for t in body.split() if not MOVE_NUMBER.match(t) and t not in RESULTS]
    return tags, moves


def other(colour):
    return "white" if colour == "black" else "black"


def in_check(game):
    """Whether the opponent of the side to move could end the game were it its turn (§10.3)."""
    return game.gives_check(other(game.side_to_move))


def escapes(game):
    """How many moves of the side to move leave the opponent no game-ending reply."""
    opponent = other(game.side_to_move)
    count = 0
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if not after.is_over() and not after.gives_check(opponent):
            count += 1
    return count


def command_losses(directory, prefix):
    """One dict per game of `directory` that the player named `prefix…` lost by its command."""
    losses = []
    for path in sorted(glob.glob(os.path.join(directory, "game-*.txt"))):
        tags, moves = read_record(path)
        if tags.get("Termination") != "command destroyed" or len(moves) < 2:
            continue
        colour = player_colour(tags, prefix)
        if colour is None:
            continue  # neither player, or both, carry the prefix
        if (tags["Result"] == "0-1") != (colour == "black"):
            continue  # the player won this one
        game = koshogi.Game(tags["Start"])
        for move in moves[:-2]:
            game.play(move)
        checked = in_check(game)
        losses.append({
            "record": os.path.basename(path),
            "plies": len(moves),
            "in_check": checked,
            "escapes": escapes(game) if checked else None,
            "balance": game.material_balance(game.side_to_move),
            "last_move": moves[-2],
            "final_move": moves[-1],
        })
    return losses


def player_colour(tags, prefix):
    """`"black"` or `"white"` for the player named `prefix…`, `None` if not exactly one is."""
    black, white = tags["Black"].startswith(prefix), tags["White"].startswith(prefix)
    if black == white:
        return None
    return "black" if black else "white"


def material_samples(directory, prefix, every=50):
    """Per record (by file name): the player's material balance after `every`, 2·`every`, …
    plies, as long as the game lasted."""
    samples = {}
    for path in sorted(glob.glob(os.path.join(directory, "game-*.txt"))):
        tags, moves = read_record(path)
        colour = player_colour(tags, prefix)
        if colour is None:
            continue
        game = koshogi.Game(tags["Start"])
        balances = []
        for ply, move in enumerate(moves, start=1):
            game.play(move)
            if ply % every == 0:
                balances.append(game.material_balance(colour))
        samples[os.path.basename(path)] = balances
    return samples


def mean_with_interval(values):
    """(mean, half-width of the normal 95 % interval, count), as the arena's summary prints."""
    mean = statistics.fmean(values)
    half = 1.959964 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return mean, half, len(values)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    prefix = sys.argv[2] if len(sys.argv) == 3 else "mcts:"
    losses = command_losses(sys.argv[1], prefix)
    for loss in losses:
        print(f"{loss['record']}: {loss['plies']} plies, in check before its last move "
              f"{loss['in_check']}, escapes {loss['escapes']}, balance {loss['balance']:+.1f}, "
              f"last move {loss['last_move']}, final move {loss['final_move']}")
    checked = [loss for loss in losses if loss["in_check"]]
    print(f"{len(losses)} games lost by the command: {len(checked)} in check before the last "
          f"move ({sum(1 for loss in checked if loss['escapes'])} of them with an escape), "
          f"median balance {sorted(loss['balance'] for loss in losses)[len(losses) // 2] if losses else 0:+.1f}")
    samples = material_samples(sys.argv[1], prefix)
    for k in range(1, 11):
        values = [b[k - 1] for b in samples.values() if len(b) >= k]
        if values:
            mean, half, count = mean_with_interval(values)
            print(f"material balance after ply {50 * k}: {mean:+.1f} ± {half:.1f} ({count} games)")


if __name__ == "__main__":
    main()
