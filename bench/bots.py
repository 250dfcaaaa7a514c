"""Bot benchmark: chips won per hand by each level against baselines and each other.

Format: duplicate heads-up. Each deal (a deck and, for svara replays, the decks after it, all from a
fixed fair-deck seed) is played twice, the two players swapping seats, so the luck of the cards
cancels and what is left is skill. Stake 10, 500 chips each reset every hand, dark play on, seat 0
deals. A result is the bot's mean net chips per hand over the pair, and the table shows the mean
over all pairs with a 95% confidence interval (mean +- 1.96 sd / sqrt(pairs)).

Baselines (all legal in every phase):

* random   -- a legal verb uniformly at random; a raise amount uniform in the range; dark and
              join likewise at random.
* call     -- "always call": CALL when there is something to call (T > 0); with nothing to call,
              opens with the minimum raise, since PASS at T = 0 folds in Svara; passes only when no
              raise is possible. Declines dark bets, joins every svara it may.
* maxraise -- "always raise to the maximum": bets dark whenever offered, raises to the cap when a
              raise is possible, else calls, else passes. Joins every svara it may.
* threshold-- fixed thresholds on its own points: with 25 or more raises to T + the pot (after
              calling); with 20-24 calls (or opens the minimum when T = 0); else folds. Never
              bets dark, never joins.

    python -m bench.bots [--hands 20000] [--jobs 1] [--seed bots-1]

``--hands`` is the number of deals per pairing; each is played twice (so 2 x hands hands).
Targets: hard beats every baseline and normal, normal beats every baseline, with the interval
above zero. Writes bench/results/bots.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from multiprocessing import Pool
from pathlib import Path

from games.engine.bots import BotView, Move, bot_view, decide
from games.engine.hand import Hand

RESULTS = Path(__file__).resolve().parent / "results"
STAKE, CHIPS = 10, 500

Player = Callable[[BotView, random.Random], Move]


# ---------------------------------------------------------------------- baselines


def random_player(view: BotView, rng: random.Random) -> Move:
    verb = rng.choice(view.verbs)
    if verb == "raise":
        assert view.raise_range is not None
        return verb, rng.randint(*view.raise_range)
    if verb == "dark":
        return verb, view.dark_amount
    return verb, None


def call_player(view: BotView, rng: random.Random) -> Move:
    if view.phase == "dark":
        return "decline", None
    if view.phase == "join":
        return "join", None
    if "call" in view.verbs:
        return "call", None
    if view.raise_range is not None:
        return "raise", view.raise_range[0]
    return "fold", None


def maxraise_player(view: BotView, rng: random.Random) -> Move:
    if view.phase == "dark":
        return "dark", view.dark_amount
    if view.phase == "join":
        return "join", None
    if view.raise_range is not None:
        return "raise", view.raise_range[1]
    return ("call", None) if "call" in view.verbs else ("fold", None)


def threshold_player(view: BotView, rng: random.Random) -> Move:
    if view.phase == "dark":
        return "decline", None
    if view.phase == "join":
        return "skip", None
    points = view.points or 0
    if points >= 25 and view.raise_range is not None:
        low, high = view.raise_range
        return "raise", min(max(view.target + view.pot + view.to_call, low), high)
    if points >= 20:
        if "call" in view.verbs:
            return "call", None
        if view.raise_range is not None:
            return "raise", view.raise_range[0]
    return "fold", None


def level_player(level: str) -> Player:
    def play(view: BotView, rng: random.Random) -> Move:
        return decide(view, level=level, rng=rng)

    return play


PLAYERS: dict[str, Player] = {
    "hard": level_player("hard"),
    "normal": level_player("normal"),
    "easy": level_player("easy"),
    "random": random_player,
    "call": call_player,
    "maxraise": maxraise_player,
    "threshold": threshold_player,
}

PAIRINGS: tuple[tuple[str, str], ...] = (
    ("hard", "random"),
    ("hard", "call"),
    ("hard", "maxraise"),
    ("hard", "threshold"),
    ("hard", "normal"),
    ("hard", "easy"),
    ("normal", "random"),
    ("normal", "call"),
    ("normal", "maxraise"),
    ("normal", "threshold"),
    ("normal", "easy"),
    ("easy", "random"),
    ("easy", "call"),
    ("easy", "maxraise"),
    ("easy", "threshold"),
)


# ---------------------------------------------------------------------- play


def server_seed(label: str) -> str:
    """A fixed 64-hex-digit fair-deck seed from a label, so every run replays the same decks."""
    return hashlib.sha256(label.encode()).hexdigest()


# A decision from the whole hand (what a player who reads only its own view gets through
# ``from_view``; the best response and the solver's player read the hand's history too).
Decider = Callable[[Hand, int, random.Random], tuple[str, int | None]]


def play_deal(
    deciders: Sequence[Decider], *, seed: str, deal: int, rngs: Sequence[random.Random]
) -> list[int]:
    """One heads-up hand of the fixed decks (seat 0 dealing, deal ``deal`` of ``seed``): each seat's
    net chips. The one loop every bench match plays its hands with."""
    hand = Hand.start(
        stake=STAKE,
        names=["a", "b"],
        chips=[CHIPS, CHIPS],
        dealer=0,
        dark_play=True,
        seeds={"server_seed": seed, "client_seeds": ["bench"], "nonce": deal},
    )
    while (legal := hand.legal()) is not None:
        seat = legal.seat
        verb, amount = deciders[seat](hand, seat, rngs[seat])
        hand.act(seat, verb, amount)
    return [hand.chips[0] - CHIPS, hand.chips[1] - CHIPS]


def from_view(player: Player) -> Decider:
    return lambda hand, seat, rng: player(bot_view(hand, seat), rng)


def play_hand(players: Sequence[Player], *, seed: str, deal: int, rngs: Sequence[random.Random]) -> list[int]:
    """One heads-up hand, seat 0 dealing; each seat's net chips."""
    return play_deal([from_view(p) for p in players], seed=seed, deal=deal, rngs=rngs)


def duplicate_pair(first: Player, second: Player, *, seed: str, deal: int) -> float:
    """``first``'s mean net chips per hand over the deal played from both seats."""
    rngs = [random.Random(f"{seed}:{deal}:{side}") for side in range(4)]
    one = play_hand([first, second], seed=seed, deal=deal, rngs=rngs[:2])[0]
    two = play_hand([second, first], seed=seed, deal=deal, rngs=rngs[2:])[1]
    return (one + two) / 2


def run_chunk(job: tuple[str, str, str, int, int]) -> list[float]:
    name_a, name_b, seed, start, stop = job
    first, second = PLAYERS[name_a], PLAYERS[name_b]
    return [duplicate_pair(first, second, seed=seed, deal=d) for d in range(start, stop)]


def summary(results: Sequence[float]) -> dict[str, float]:
    n = len(results)
    mean = statistics.fmean(results)
    sd = statistics.stdev(results) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n else 0.0
    return {"pairs": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def run_pairing(name_a: str, name_b: str, *, hands: int, seed: str, pool: Pool | None) -> list[float]:
    chunk = 500
    jobs = [(name_a, name_b, seed, s, min(s + chunk, hands)) for s in range(0, hands, chunk)]
    parts = pool.map(run_chunk, jobs) if pool is not None else [run_chunk(j) for j in jobs]
    return [x for part in parts for x in part]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=20_000, help="deals per pairing, each played twice")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (the machine is shared)")
    parser.add_argument("--seed", default="bots-1", help="label of the fixed fair-deck seed")
    parser.add_argument("--only", default="", help="comma-separated pairings such as hard-call")
    args = parser.parse_args()
    seed = server_seed(args.seed)
    pairings = PAIRINGS
    if args.only:
        wanted = set(args.only.split(","))
        pairings = tuple(p for p in PAIRINGS if f"{p[0]}-{p[1]}" in wanted)
    pool = Pool(args.jobs) if args.jobs > 1 else None
    rows = {}
    print(f"{'pairing':<20} {'chips/hand':>10} {'95% CI':>20} {'pairs':>7} {'s':>6}  target")
    try:
        for name_a, name_b in pairings:
            began = time.perf_counter()
            stats = summary(run_pairing(name_a, name_b, hands=args.hands, seed=seed, pool=pool))
            stats["seconds"] = time.perf_counter() - began
            target = name_a == "hard" or (name_a == "normal" and name_b != "easy")
            stats["target"] = target
            stats["met"] = (not target) or stats["low"] > 0
            rows[f"{name_a} vs {name_b}"] = stats
            ci = f"[{stats['low']:+.2f}, {stats['high']:+.2f}]"
            mark = ("met" if stats["met"] else "MISSED") if target else "-"
            print(
                f"{name_a + ' vs ' + name_b:<20} {stats['mean']:>+10.2f} {ci:>20} "
                f"{stats['pairs']:>7} {stats['seconds']:>6.1f}  {mark}"
            )
    finally:
        if pool is not None:
            pool.close()
    RESULTS.mkdir(exist_ok=True)
    out = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "format": "duplicate heads-up: each deal played twice with seats swapped",
        "stake": STAKE,
        "chips": CHIPS,
        "dark_play": True,
        "deals_per_pairing": args.hands,
        "seed_label": args.seed,
        "unit": "chips won per hand by the first-named player",
        "results": rows,
    }
    (RESULTS / "bots.json").write_text(json.dumps(out, indent=2))
    print(f"written {RESULTS / 'bots.json'}")


if __name__ == "__main__":
    main()
