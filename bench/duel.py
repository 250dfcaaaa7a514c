"""Duplicate match between any two players, heads-up in the practice setting.

    python -m bench.duel --a hard --b threshold:20:22 --deals 2000 --seed 1
    python -m bench.duel --a hard --b normal,easy,call,maxraise,random,fold --deals 5000
    python -m bench.duel --tune hard --deals 2000 --seed 1

Practice setting: two seats, stake 10, 500 chips each reset every hand, dark play on, seat 0
deals. Duplicate deals: every deal (its deck and the decks of any svara replays, all from a fixed
fair-deck seed) is played twice with the players' seats swapped, so the luck of the cards cancels.
The figure is player A's mean net chips per hand over the pair, with a 95 % interval
(mean +- 1.96 sd / sqrt(pairs)) over the deal pairs.

Players (a spec string):

* ``easy``, ``normal``, ``hard`` -- the computer's levels, through ``games.engine.bots.decide``.
* ``call``      -- always call (opens the minimum when there is nothing to call, since a pass folds).
* ``maxraise``  -- always raise to the cap; bets dark whenever offered.
* ``random``    -- a legal move at random (raise amounts uniform in the range).
* ``fold``      -- always fold (passes, declines): the floor every player should beat.
* ``threshold:A:B`` -- call or open the minimum with A points or more, raise to the cap with B or
  more, fold the rest; never dark.

``--tune LEVEL`` plays every threshold rule of a small grid (A in 17-23, B in A-27 by steps) against
the level and reports the best for the rule (the level's worst case among them), replayed on fresh
decks (seed + 1000) since the best of many on the same decks is flattered by their luck.
Writes bench/results/duel.json (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.bots import (
    CHIPS,
    STAKE,
    Player,
    call_player,
    level_player,
    maxraise_player,
    play_hand,
    random_player,
    server_seed,
    summary,
)
from games.engine.bots import LEVELS, BotView, Move

RESULTS = Path(__file__).resolve().parent / "results"


def fold_player(view: BotView, rng: random.Random) -> Move:
    if view.phase == "dark":
        return "decline", None
    if view.phase == "join":
        return "skip", None
    return "fold", None


def threshold_rule(*, call_at: int, max_at: int) -> Player:
    """Call or open the minimum with ``call_at`` points or more, raise to the cap with ``max_at``."""

    def play(view: BotView, rng: random.Random) -> Move:
        if view.phase == "dark":
            return "decline", None
        if view.phase == "join":
            return "skip", None
        points = view.points or 0
        if points >= max_at and view.raise_range is not None:
            return "raise", view.raise_range[1]
        if points >= call_at or points >= max_at:
            if "call" in view.verbs:
                return "call", None
            if view.raise_range is not None:
                return "raise", view.raise_range[0]
        return "fold", None

    return play


BASELINES: dict[str, Player] = {
    "call": call_player,
    "maxraise": maxraise_player,
    "random": random_player,
    "fold": fold_player,
}


def player(spec: str) -> Player:
    """The player named by ``spec`` (see the module docstring); ValueError with the choices if unknown."""
    if spec in LEVELS:
        return level_player(spec)
    if spec in BASELINES:
        return BASELINES[spec]
    name, _, rest = spec.partition(":")
    if name == "threshold":
        parts = rest.split(":")
        if len(parts) == 2 and all(p.isdigit() for p in parts):
            return threshold_rule(call_at=int(parts[0]), max_at=int(parts[1]))
    choices = ", ".join([*LEVELS, *BASELINES, "threshold:A:B"])
    raise ValueError(f"unknown player {spec!r}: use one of {choices}")


def duel(a: Player, b: Player, *, deals: int, seed: str, start: int = 0) -> list[float]:
    """A's mean net chips per hand for each deal pair (deal played with A in seat 0, then seat 1)."""
    out = []
    for deal in range(start, start + deals):
        rngs = [random.Random(f"{seed}:{deal}:{side}") for side in range(4)]
        one = play_hand([a, b], seed=seed, deal=deal, rngs=rngs[:2])[0]
        two = play_hand([b, a], seed=seed, deal=deal, rngs=rngs[2:])[1]
        out.append((one + two) / 2)
    return out


def run(spec_a: str, spec_b: str, *, deals: int, seed: int) -> dict[str, Any]:
    began = time.perf_counter()
    results = duel(player(spec_a), player(spec_b), deals=deals, seed=deck_seed(seed))
    stats: dict[str, Any] = dict(summary(results))
    stats.update(a=spec_a, b=spec_b, seconds=round(time.perf_counter() - began, 2))
    return stats


def deck_seed(seed: int) -> str:
    return server_seed(f"duel-{seed}")


def tune_grid() -> list[tuple[int, int]]:
    return [(a, b) for a in range(17, 24) for b in (20, 21, 22, 23, 25, 27) if b >= a]


def line(stats: dict[str, Any]) -> str:
    ci = f"[{stats['low']:+.2f}, {stats['high']:+.2f}]"
    name = f"{stats['a']} vs {stats['b']}"
    return f"{name:<34} {stats['mean']:>+9.2f} {ci:>18} {stats['pairs']:>6} {stats['seconds']:>7.1f}"


HEADER = f"{'pairing':<34} {'chips/hand':>9} {'95% CI':>18} {'pairs':>6} {'s':>7}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", default="hard", help="player A (its winnings are reported)")
    parser.add_argument("--b", default="threshold:20:22", help="player B, or several separated by commas")
    parser.add_argument("--deals", type=int, default=2000, help="deals, each played twice (seats swapped)")
    parser.add_argument("--seed", type=int, default=1, help="the fixed deck seed (same seed, same decks)")
    parser.add_argument("--tune", metavar="LEVEL", help="search threshold:A:B against LEVEL instead")
    parser.add_argument("--out", type=Path, default=RESULTS / "duel.json")
    args = parser.parse_args(argv)
    try:
        for spec in [args.a, *args.b.split(",")] if not args.tune else [args.tune]:
            player(spec)
    except ValueError as error:
        parser.error(str(error))
    print(HEADER)
    rows = []
    if args.tune:
        for call_at, max_at in tune_grid():
            # The rule is player A here: its winnings against the level, the level's loss.
            rows.append(run(f"threshold:{call_at}:{max_at}", args.tune, deals=args.deals, seed=args.seed))
            print(line(rows[-1]), flush=True)
        # The best of many rules on the same decks is flattered by their luck: replay it on fresh decks.
        best = dict(max(rows, key=lambda r: r["mean"]))
        best["confirmed"] = run(best["a"], args.tune, deals=args.deals, seed=args.seed + 1000)
        print(line(best["confirmed"]) + f"  (fresh decks, seed {args.seed + 1000})")
        ci = f"[{best['low']:+.2f}, {best['high']:+.2f}]"
        print(f"best rule against {args.tune}: {best['a']} wins {best['mean']:+.2f} {ci}")
    else:
        for spec_b in args.b.split(","):
            rows.append(run(args.a, spec_b, deals=args.deals, seed=args.seed))
            print(line(rows[-1]), flush=True)
        best = None
    out = {
        "python": platform.python_version(),
        "format": "duplicate heads-up: each deal played twice with seats swapped",
        "stake": STAKE,
        "chips": CHIPS,
        "dark_play": True,
        "deals": args.deals,
        "seed": args.seed,
        "unit": "chips won per hand by player A, 95% interval over deal pairs",
        "tune": args.tune,
        "best": best,
        "results": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
