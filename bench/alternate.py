"""Two builds measured in alternation: the engine (bench.engine) and the cost of a move
(bench.move_cost), each run in turn on the baseline checkout and on this one, the order swapped
every round, so that the machine's load falls on both alike.

Prints each run's figures, the medians over the rounds and the ratios (this build / baseline) and
writes bench/results/alternate.json. The baseline is any checkout of the project, such as a
worktree of main: ``git worktree add --detach /tmp/base main``.

    python -m bench.alternate --baseline /tmp/base [--rounds 3] [--skip-move-cost]
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

HERE = Path(__file__).resolve().parent.parent
RESULTS = HERE / "bench" / "results"
# What each bench writes that is compared: higher is better for the engine, lower for a move.
ENGINE_MEASURES = ("heads-up hands/s", "6-seat hands/s")
MOVE_STAGES = ("command", "total")


def _run(checkout: Path, args: list[str]) -> None:
    # The same interpreter for both builds; ``-m`` puts the checkout first on the path.
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-m", *args]
    subprocess.run(command, cwd=checkout, env=env, check=True, stdout=subprocess.DEVNULL)


def engine(checkout: Path, *, seconds: float, repeats: int) -> dict[str, float]:
    _run(checkout, ["bench.engine", "--seconds", str(seconds), "--repeats", str(repeats)])
    results = json.loads((checkout / "bench" / "results" / "engine.json").read_text())["results"]
    return {name: results[name]["median"] for name in ENGINE_MEASURES}


def move_cost(checkout: Path, *, tables: int, moves: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "move_cost.json"
        args = ["bench.move_cost", "--tables", str(tables), "--moves", str(moves), "--repeat", str(repeat)]
        _run(checkout, [*args, "--out", str(out)])
        rows = json.loads(out.read_text())["us_per_move"]
    return {stage: rows[stage]["median"] for stage in MOVE_STAGES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0, help="bench.engine's --seconds")
    parser.add_argument("--repeats", type=int, default=3, help="bench.engine's --repeats")
    parser.add_argument("--tables", type=int, default=20, help="bench.move_cost's --tables")
    parser.add_argument("--moves", type=int, default=1500, help="bench.move_cost's --moves")
    parser.add_argument("--repeat", type=int, default=2, help="bench.move_cost's --repeat")
    parser.add_argument("--skip-move-cost", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS / "alternate.json")
    args = parser.parse_args()
    builds = {"baseline": args.baseline.resolve(), "this": HERE}
    runs: dict[str, list[dict[str, float]]] = {"baseline": [], "this": []}
    for round_ in range(args.rounds):
        order = ("baseline", "this") if round_ % 2 == 0 else ("this", "baseline")
        for build in order:
            figures = engine(builds[build], seconds=args.seconds, repeats=args.repeats)
            if not args.skip_move_cost:
                cost = move_cost(builds[build], tables=args.tables, moves=args.moves, repeat=args.repeat)
                figures.update({f"move {stage} us": value for stage, value in cost.items()})
            runs[build].append(figures)
            print(f"round {round_ + 1} {build:<8} " + "  ".join(f"{k} {v:,.1f}" for k, v in figures.items()))
    medians: dict[str, dict[str, float]] = {
        build: {key: statistics.median(run[key] for run in found) for key in found[0]}
        for build, found in runs.items()
    }
    ratios = {key: medians["this"][key] / medians["baseline"][key] for key in medians["this"]}
    print(f"\n{'measure':<22} {'baseline':>12} {'this':>12} {'ratio':>7}")
    for key, ratio in ratios.items():
        print(f"{key:<22} {medians['baseline'][key]:>12,.1f} {medians['this'][key]:>12,.1f} {ratio:>7.3f}")
    out: dict[str, Any] = {
        "baseline": str(builds["baseline"]),
        "rounds": args.rounds,
        "arguments": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "runs": runs,
        "medians": medians,
        "ratios": ratios,
        "load_average": os.getloadavg(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
