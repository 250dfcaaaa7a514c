"""The alternation bench runs each build in turn, swaps the order every round and reports medians
and ratios (here the same checkout twice, so the two builds only differ by the machine's noise)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_two_rounds_of_the_engine_alternate_and_give_medians_and_ratios(tmp_path: Path) -> None:
    out = tmp_path / "alternate.json"
    args = ["--baseline", str(ROOT), "--rounds", "2", "--seconds", "0.05", "--repeats", "1"]
    run = subprocess.run(
        [sys.executable, "-m", "bench.alternate", *args, "--skip-move-cost", "--out", str(out)],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = [line for line in run.stdout.splitlines() if line.startswith("round")]
    # Baseline first in the first round, this build first in the second.
    assert [line.split()[2] for line in lines] == ["baseline", "this", "this", "baseline"]
    result = json.loads(out.read_text())
    for build in ("baseline", "this"):
        assert len(result["runs"][build]) == 2
        for measure in ("heads-up hands/s", "6-seat hands/s"):
            rates = [r[measure] for r in result["runs"][build]]
            assert result["medians"][build][measure] == statistics.median(rates) > 0
    for measure, ratio in result["ratios"].items():
        assert ratio == result["medians"]["this"][measure] / result["medians"]["baseline"][measure]
