"""The long run of the model-based table test (tests/live/table_model.py says what it checks).

It runs that test through pytest with a bigger budget, once per store (memory; Redis when
``REDIS_URL`` is set), against the database ``DATABASE_URL`` names (SQLite without it), and
prints and writes to bench/results/table_model.json: steps taken, hands played to their end and
checked, svaras called off, join windows seen, refusals, the largest table frame, the wall clock,
and the violations (a failing run is one violation, reported with its steps).

    python -m bench.table_model [--examples 1250] [--steps 80] [--stores memory,redis]

100,000 steps is the default budget (1,250 examples of 80 steps each, per store). Shrinking is
off: a failure is printed as the run found it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "table_model.json"
TEST = "tests/live/test_table_model.py"


def run_store(*, store: str, examples: int, steps: int) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        stats_path = out.name
    env = {
        **os.environ,
        "SVARA_MODEL_EXAMPLES": str(examples),
        "SVARA_MODEL_STEPS": str(steps),
        "SVARA_MODEL_STATS": stats_path,
        "SVARA_MODEL_NO_SHRINK": "1",
    }
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:cacheprovider", "-k", store, "--timeout", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    try:
        stats = json.loads(Path(stats_path).read_text() or "{}")
    finally:
        os.unlink(stats_path)
    if not stats.get("steps"):
        # Nothing ran (a collection error, a missing service): say so rather than report zeros.
        raise SystemExit(f"the {store} run took no step:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    failed = done.returncode != 0
    return {
        "store": store,
        "examples": stats.get("examples", 0),
        "steps": stats["steps"],
        "hands_checked": stats.get("hands_checked", 0),
        "hands_called_off": stats.get("hands_called_off", 0),
        "join_windows_seen": stats.get("seen_join_window", 0),
        "refused": stats.get("refused", 0),
        "applied": stats.get("applied", 0),
        "store_lost": stats.get("store_lost", 0),
        "largest_frame_bytes": stats.get("largest_frame", 0),
        "seconds": round(seconds, 1),
        "violations": int(failed),
        "failure": done.stdout[-6000:] if failed else "",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--examples", type=int, default=1250)
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--stores", default="memory,redis" if os.environ.get("REDIS_URL") else "memory")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rows = [run_store(store=s, examples=args.examples, steps=args.steps) for s in args.stores.split(",")]
    print(
        f"{'store':8} {'steps':>8} {'hands':>7} {'called off':>10} {'joins':>6} {'refused':>8} "
        f"{'frame B':>8} {'seconds':>8} {'violations':>10}"
    )
    for r in rows:
        print(
            f"{r['store']:8} {r['steps']:8} {r['hands_checked']:7} {r['hands_called_off']:10} "
            f"{r['join_windows_seen']:6} {r['refused']:8} {r['largest_frame_bytes']:8} {r['seconds']:8} "
            f"{r['violations']:10}"
        )
        if r["failure"]:
            print(r["failure"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "command": "python -m bench.table_model "
                + " ".join(argv if argv is not None else sys.argv[1:]),
                "database": "postgresql" if os.environ.get("DATABASE_URL") else "sqlite",
                "runs": rows,
            },
            indent=1,
        )
        + "\n"
    )
    return 1 if any(r["violations"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
