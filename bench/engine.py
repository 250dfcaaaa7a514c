"""Engine benchmark: score lookups per second and random hands played per second, one core.

Each hand is shuffled with the real fair deck (HMAC-SHA-256 + Fisher-Yates), then played to the
end by random legal moves (svara replays included). Prints a table and writes JSON to
bench/results/engine.json. Target: at least 20,000 heads-up hands per second (docs/performance.md).

    python -m bench.engine [--seconds 2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from itertools import combinations
from pathlib import Path

from games.engine.cards import DECK
from games.engine.fairness import new_server_seed
from games.engine.hand import Hand
from games.engine.scoring import score_cards

RESULTS = Path(__file__).resolve().parent / "results"
TARGET_HEADS_UP = 20_000
NAMES = {n: [f"p{i}" for i in range(n)] for n in range(2, 7)}


# Rates are per second of this process's CPU time (one core): on a shared, noisy machine the
# wall clock also counts the time other processes had the core. Wall-clock rates are kept too.
Rate = tuple[float, float]  # (per CPU second, per wall second)


def bench_score(seconds: float) -> Rate:
    hands = list(combinations(DECK, 3))
    done, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        for hand in hands:
            score_cards(hand)
        done += len(hands)
    return done / (time.process_time() - cpu), done / (time.perf_counter() - wall)


def play_random_hand(*, players: int, nonce: int, seed: str, rng: random.Random) -> Hand:
    # As the site deals (games/live/transitions.py): the engine shuffles each deal's deck from the seeds.
    hand = Hand.start(
        stake=10,
        names=NAMES[players],
        chips=[1000] * players,
        dealer=nonce % players,
        dark_play=True,
        seeds={"server_seed": seed, "client_seeds": ["bench"], "nonce": nonce},
    )
    draw = rng.random  # one draw per decision: the harness should cost little next to the engine
    while (legal := hand.legal()) is not None:
        verbs = legal.verbs
        verb = verbs[int(draw() * len(verbs))]
        if verb == "raise":
            low, high = legal.raise_range
            hand.act(legal.seat, verb, low + int(draw() * (high - low + 1)))
        else:
            hand.act(legal.seat, verb)
    return hand


def bench_hands(players: int, seconds: float) -> Rate:
    rng = random.Random(players)
    seed = new_server_seed()
    done, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        for _ in range(200):
            play_random_hand(players=players, nonce=done, seed=seed, rng=rng)
            done += 1
    return done / (time.process_time() - cpu), done / (time.perf_counter() - wall)


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
    print(f"{'measure':<20} {'median/cpu-s':>13} {'min':>12} {'max':>12} {'median/wall-s':>14}")
    for name, run in measures.items():
        runs = [run() for _ in range(args.repeats)]
        cpu = [r[0] for r in runs]
        wall = [r[1] for r in runs]
        results[name] = {
            "median": statistics.median(cpu),
            "min": min(cpu),
            "max": max(cpu),
            "runs_per_cpu_second": cpu,
            "median_per_wall_second": statistics.median(wall),
            "runs_per_wall_second": wall,
        }
        print(
            f"{name:<20} {statistics.median(cpu):>13,.0f} {min(cpu):>12,.0f} {max(cpu):>12,.0f}"
            f" {statistics.median(wall):>14,.0f}"
        )
    ratio = results["heads-up hands/s"]["median"] / TARGET_HEADS_UP
    print(f"heads-up median per CPU second / target {TARGET_HEADS_UP:,}: {ratio:.2f}x")
    RESULTS.mkdir(exist_ok=True)
    out = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds_per_run": args.seconds,
        "repeats": args.repeats,
        "target_heads_up_per_s": TARGET_HEADS_UP,
        "load_average": os.getloadavg(),
        "results": results,
    }
    (RESULTS / "engine.json").write_text(json.dumps(out, indent=2))
    print(f"written {RESULTS / 'engine.json'}")


if __name__ == "__main__":
    main()
