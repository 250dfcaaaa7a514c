"""The players' pages benchmark runs end to end on PostgreSQL: every page at every size, and its
database dropped afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def _bench_databases(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'svara_bench_players_%'")
        return {row[0] for row in rows}


def test_a_short_run_times_every_page_at_every_size_and_drops_its_database(
    postgres_db, tmp_path: Path
) -> None:
    url = os.environ["DATABASE_URL"]
    before = _bench_databases(url)
    out = tmp_path / "players.json"
    args = [
        "--sizes",
        "300,600",
        "--players",
        "40",
        "--requests",
        "3",
        "--database-url",
        url,
        "--out",
        str(out),
    ]
    run = subprocess.run(
        [sys.executable, "-m", "bench.players", *args], cwd=ROOT, capture_output=True, text=True, timeout=240
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert [size["hands"] for size in result["sizes"]] == [300, 600]
    for size in result["sizes"]:
        assert len(size["pages"]) == 5 and size["standing_rows"] > 0
        assert all(page["median_ms"] > 0 for page in size["pages"].values())
    assert "leaderboard (week)" in run.stdout
    assert _bench_databases(url) == before
