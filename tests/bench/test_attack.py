"""The attack drill (bench/attack.py) runs end to end against two live Daphne processes on its own
database and Redis prefix: every probe refuses all it tried, and its database is dropped."""

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
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'svara_bench_attack_%'")
        return {row[0] for row in rows}


def test_every_probe_of_the_attack_drill_is_refused(postgres_db, redis_url, tmp_path: Path) -> None:
    url = os.environ["DATABASE_URL"]
    before = _bench_databases(url)
    out = tmp_path / "attack.json"
    args = ["--database-url", url, "--redis-url", redis_url, "--out", str(out)]
    run = subprocess.run(
        [sys.executable, "-m", "bench.attack", *args], cwd=ROOT, capture_output=True, text=True, timeout=400
    )
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-3000:])
    result = json.loads(out.read_text())
    assert result["let_through"] == []
    tried = {name: probe["tried"] for name, probe in result["probes"].items()}
    assert tried == {"sockets": 22, "chat": 50, "password": 1, "ban": 1, "spoofed address": 5}
    assert result["refused"] == result["tried"] == 79
    assert "all              tried  79  refused  79" in run.stdout
    assert _bench_databases(url) == before
