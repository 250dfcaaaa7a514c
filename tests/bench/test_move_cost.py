"""The move-cost benchmark runs end to end on the real Redis and accounts for every stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_run_times_every_stage_and_plays_whole_hands(redis_url: str, tmp_path: Path) -> None:
    out = tmp_path / "move_cost.json"
    args = ["--tables", "3", "--moves", "60", "--repeat", "2", "--redis-url", redis_url, "--out", str(out)]
    run = subprocess.run(
        [sys.executable, "-m", "bench.move_cost", *args],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "svara_site.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(out.read_text())
    assert len(result["windows"]) == 2
    for window in result["windows"]:
        # 60 moves at 3 tables is several hands each (about 7 moves a hand): each stage took time.
        assert set(window) == {"command", "views", "render", "hand"}
        assert all(us > 0 for us in window.values()), window
    total = result["us_per_move"]["total"]
    assert total["min"] <= total["median"] <= total["max"]
    assert "total" in run.stdout and "command" in run.stdout
