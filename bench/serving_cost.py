"""The serving process's CPU per move across the whole path, socket to socket, against a baseline
build: the regression guard of issue 38.

``bench.move_cost`` times the in-process stages of a move; this one runs the load bench
(``bench.load``: real Daphne processes, the table worker, Redis, PostgreSQL, scripted players over
real WebSockets) once per build and round, the baseline and the candidate alternated so the shared
machine's noise falls on both, and reads the serving process's CPU per move from each window:
its CPU share divided by the moves a second it served. The baseline is another checkout of the
project (for example ``git worktree add /tmp/base <commit>``); each build runs its own code.

    python -m bench.serving_cost --baseline /tmp/base [--rounds 3] [--tables 200] [--seconds 15]
                                 [--mode unpaced|paced]

Prints one line per window and the medians, their ratio (candidate / baseline), and the machine's
load average; writes bench/results/serving_cost.json. Needs what ``bench.load`` needs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def window(checkout: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One load bench window of one build, run from its own checkout with this interpreter."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "load.json"
        command = [
            sys.executable, "-m", "bench.load", "--apps", "svara", "--servers", "1", "--worker",
            "--mode", args.mode, "--tables", str(args.tables), "--unpaced-tables", str(args.tables),
            "--seconds", str(args.seconds), "--warmup", str(args.warmup), "--out", str(out),
        ]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        started = time.monotonic()
        done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            tail = f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            raise RuntimeError(f"bench.load failed in {checkout}:\n{tail}")
        (row,) = json.loads(out.read_text())["rows"]
    return {**per_move(row), "wall_s": round(time.monotonic() - started, 1)}


def per_move(row: dict[str, Any]) -> dict[str, Any]:
    """A load bench window's figures a move: a CPU share (% of one core) over the moves a second
    served is CPU seconds a move (shown in milliseconds); the servers' shares are added."""
    cpu, rate = sum(row["server_cpu_pct"]), row["actions_per_s"]
    return {
        "moves_per_s": rate,
        "server_cpu_pct": cpu,
        "worker_cpu_pct": row["worker_cpu_pct"],
        "serving_ms_per_move": cpu * 10 / rate if rate else None,
        "worker_ms_per_move": row["worker_cpu_pct"] * 10 / rate if rate else None,
        "p99_ms": row["p99_ms"],
        "lost": row["lost"],
        "load_avg": row["load_avg"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the baseline build's checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--warmup", type=float, default=6)
    parser.add_argument("--mode", choices=["paced", "unpaced"], default="unpaced")
    parser.add_argument("--out", type=Path, default=RESULTS / "serving_cost.json")
    args = parser.parse_args(argv)
    builds = {"baseline": args.baseline.resolve(), "candidate": ROOT}
    commits = {
        name: subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=path, capture_output=True, text=True
        ).stdout.strip()
        for name, path in builds.items()
    }
    windows: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
    print(f"{args.mode}, {args.tables} tables, {args.seconds:g} s windows; baseline {commits['baseline']}, "
          f"candidate {commits['candidate']}")  # fmt: skip
    print("| round | build | moves/s | serving CPU | serving ms/move | worker ms/move | p99 | lost | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for round_number in range(1, args.rounds + 1):
        # Alternated, and the order swapped each round: neither build always runs second.
        order = ["baseline", "candidate"] if round_number % 2 else ["candidate", "baseline"]
        for name in order:
            w = window(builds[name], args)
            windows[name].append(w)
            print(
                f"| {round_number} | {name} | {w['moves_per_s']:.1f} | {w['server_cpu_pct']:.0f} % | "
                f"{w['serving_ms_per_move']:.2f} | {w['worker_ms_per_move']:.2f} | {w['p99_ms']:.0f} ms | "
                f"{w['lost']} | {w['load_avg']:.1f} |",
                flush=True,
            )
    medians = {
        name: {
            key: statistics.median(w[key] for w in ws)
            for key in ("moves_per_s", "serving_ms_per_move", "worker_ms_per_move", "p99_ms", "load_avg")
        }
        for name, ws in windows.items()
    }
    ratio = medians["candidate"]["serving_ms_per_move"] / medians["baseline"]["serving_ms_per_move"]
    per_round = [
        c["serving_ms_per_move"] / b["serving_ms_per_move"]
        for b, c in zip(windows["baseline"], windows["candidate"], strict=True)
    ]
    print()
    for name, m in medians.items():
        print(
            f"{name} ({commits[name]}): median serving {m['serving_ms_per_move']:.2f} ms a move, worker "
            f"{m['worker_ms_per_move']:.2f} ms, {m['moves_per_s']:.1f} moves/s, load {m['load_avg']:.1f}"
        )
    rounds = ", ".join(f"{r:.2f}" for r in per_round)
    print(f"candidate / baseline, serving CPU a move: {ratio:.2f} (rounds: {rounds})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "command": "python -m bench.serving_cost "
                + " ".join(argv if argv is not None else sys.argv[1:]),
                "commits": commits,
                "mode": args.mode,
                "tables": args.tables,
                "seconds": args.seconds,
                "windows": windows,
                "medians": medians,
                "ratio_serving_ms_per_move": ratio,
                "ratio_per_round": per_round,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
