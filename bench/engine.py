"""Engine benchmark: score lookups per second and random hands played per second, one core.

Each hand is shuffled with the real fair deck (HMAC-SHA-256 + Fisher-Yates), then played to the
end by random legal moves (svara replays included). Prints a table and writes JSON to
bench/results/engine.json. Target (issue 2): at least 20,000 heads-up hands per second.

    python -m bench.engine [--seconds 2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from itertools import combinations
from pathlib import Path

from games.engine.cards import DECK
from games.engine.fairness import new_server_seed, shuffled_deck
from games.engine.hand import Hand
from games.engine.scoring import score_cards

RESULTS = Path(__file__).resolve().parent / "results"
TARGET_HEADS_UP = 20_000


def bench_score(seconds: float) -> float:
    hands = list(combinations(DECK, 3))
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for hand in hands:
            score_cards(hand)
        done += len(hands)
    return done / (time.perf_counter() - start)


def play_random_hand(*, players: int, nonce: int, seed: str, rng: random.Random) -> Hand:
    names = [f"p{i}" for i in range(players)]
    deck = shuffled_deck(server_seed=seed, client_seeds=["bench"], nonce=nonce)
    hand = Hand.start(
        stake=10,
        names=names,
        chips=[1000] * players,
        dealer=nonce % players,
        dark_play=True,
        decks=[deck],
        seeds={"server_seed": seed, "client_seeds": ["bench"], "nonce": nonce},
    )
    while (legal := hand.legal()) is not None:
        verb = rng.choice(legal.verbs)
        amount = rng.randint(*legal.raise_range) if verb == "raise" else None
        hand.act(legal.seat, verb, amount)
    return hand


def bench_hands(players: int, seconds: float) -> float:
    rng = random.Random(players)
    seed = new_server_seed()
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            play_random_hand(players=players, nonce=done, seed=seed, rng=rng)
            done += 1
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per measure; the median is reported")
    args = parser.parse_args()
    measures = {
        "score lookups/s": lambda: bench_score(args.seconds),
        "heads-up hands/s": lambda: bench_hands(2, args.seconds),
        "6-seat hands/s": lambda: bench_hands(6, args.seconds),
    }
    results = {}
    print(f"{'measure':<20} {'median':>12} {'min':>12} {'max':>12}")
    for name, run in measures.items():
        runs = [run() for _ in range(args.repeats)]
        results[name] = {"median": statistics.median(runs), "min": min(runs), "max": max(runs), "runs": runs}
        print(f"{name:<20} {statistics.median(runs):>12,.0f} {min(runs):>12,.0f} {max(runs):>12,.0f}")
    ratio = results["heads-up hands/s"]["median"] / TARGET_HEADS_UP
    print(f"heads-up median / target {TARGET_HEADS_UP:,}: {ratio:.2f}x")
    RESULTS.mkdir(exist_ok=True)
    out = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds_per_run": args.seconds,
        "repeats": args.repeats,
        "target_heads_up_per_s": TARGET_HEADS_UP,
        "results": results,
    }
    (RESULTS / "engine.json").write_text(json.dumps(out, indent=2))
    print(f"written {RESULTS / 'engine.json'}")


if __name__ == "__main__":
    main()
