"""How long the computer takes to choose a move: every decision of each level timed in real hands.

    python -m bench.decision_time                  # 2000 deals a level against random play
    python -m bench.decision_time --levels hard --deals 500 --opponent call

Heads-up in the practice setting (stake 10, 500 chips each, dark play on, the decks of a fixed
seed), the level against ``--opponent`` (a ``bench.duel`` player; random play by default, which
raises any size and so reaches the most varied histories). A decision is what the table's clock
does for the computer's seat: ``bot_view`` of the hand, then ``decide``. The strategy file is read
before the clock starts (the first hard decision of a process reads it; its time is reported
apart). Percentiles are nearest-rank, of the wall clock and of the thread's CPU time (on a
machine whose cores other processes share, the wall clock also counts the waits for a core).
Target (issue 34): p99 under 20 ms a move. Writes bench/results/decision_time.json (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import time
from collections.abc import Sequence
from pathlib import Path

from bench.bots import play_deal, server_seed
from bench.duel import player as named_player
from games.engine import solved
from games.engine.bots import LEVELS, Move, bot_view, decide
from games.engine.hand import Hand

RESULTS = Path(__file__).resolve().parent / "results"
TARGET_MS = 20.0


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    rank = math.ceil(q * len(ordered))  # nearest rank: the smallest value with q of them at or below it
    return ordered[min(len(ordered), max(rank, 1)) - 1]


def timed(level: str, opponent: str, *, deals: int, seed: str) -> tuple[list[float], list[float]]:
    """Milliseconds of each of ``level``'s decisions over ``deals`` deals, each played from both
    seats: on the wall clock, and of this thread's CPU time (what the decision computes, without
    the waits of a machine whose cores other processes share)."""
    other = named_player(opponent)
    times: list[float] = []
    cpu: list[float] = []
    for deal in range(deals):
        for me in (0, 1):

            def decide_(hand: Hand, s: int, rng: random.Random, me: int = me) -> Move:
                if s != me:
                    return other(bot_view(hand, s), rng)
                began, began_cpu = time.perf_counter(), time.thread_time()
                move = decide(bot_view(hand, s), level=level, rng=rng)
                times.append((time.perf_counter() - began) * 1000)
                cpu.append((time.thread_time() - began_cpu) * 1000)
                return move

            rngs = [random.Random(f"{seed}:{deal}:{me}:{side}") for side in range(2)]
            play_deal([decide_, decide_], seed=seed, deal=deal, rngs=rngs)
    return times, cpu


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--deals", type=int, default=2000, help="deals a level, each played twice")
    parser.add_argument("--seed", default="decision-time-1", help="label of the fixed fair-deck seed")
    parser.add_argument("--out", type=Path, default=RESULTS / "decision_time.json")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    solved.games()
    load_ms = (time.perf_counter() - began) * 1000
    print(f"strategy file read in {load_ms:.0f} ms (once a process)")
    head = f"{'level':<8} {'moves':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'cpu p99':>8}"
    print(f"{head}  target p99 < {TARGET_MS:g} ms")
    rows = {}
    for level in args.levels.split(","):
        times, cpu = timed(level, args.opponent, deals=args.deals, seed=server_seed(args.seed))
        row = {
            "moves": len(times),
            "p50_ms": round(percentile(times, 0.50), 3),
            "p99_ms": round(percentile(times, 0.99), 3),
            "max_ms": round(max(times), 3),
            "cpu_p50_ms": round(percentile(cpu, 0.50), 3),
            "cpu_p99_ms": round(percentile(cpu, 0.99), 3),
            "cpu_max_ms": round(max(cpu), 3),
        }
        row["met"] = row["p99_ms"] < TARGET_MS
        row["met_cpu"] = row["cpu_p99_ms"] < TARGET_MS
        rows[level] = row
        figures = (
            f"{row['p50_ms']:>8.3f} {row['p99_ms']:>8.3f} {row['max_ms']:>8.3f} {row['cpu_p99_ms']:>8.3f}"
        )
        mark = "met" if row["met"] else ("met in CPU time" if row["met_cpu"] else "MISSED")
        print(f"{level:<8} {row['moves']:>7} {figures}  {mark}")
    load = os.getloadavg()[0]
    print(f"load average (1 min) at the end: {load:.1f} on {os.cpu_count()} cores")
    out = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "setting": {"seats": 2, "stake": 10, "chips": 500, "dark_play": True},
        "opponent": args.opponent,
        "deals": args.deals,
        "seed_label": args.seed,
        "strategy_load_ms": round(load_ms, 1),
        "load_average": round(load, 1),
        "cores": os.cpu_count(),
        "target_p99_ms": TARGET_MS,
        "levels": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
