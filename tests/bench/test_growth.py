"""The growth benchmark, tiny: it makes its own database, fills two sizes, times every page (each
answering 200), writes its JSON, and drops the database it made."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.postgres, pytest.mark.timeout(240)]


def bench_databases(url: str) -> set[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'svara_bench_growth_%'")
        return {row[0] for row in rows}


def test_a_tiny_run_times_every_page_and_leaves_no_database(postgres_db: None, tmp_path: Path) -> None:
    url = os.environ["DATABASE_URL"]
    before = bench_databases(url)
    out = tmp_path / "growth.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DEBUG", "SECRET_KEY")}
    done = subprocess.run(
        [sys.executable, "-m", "bench.growth", "--hands", "100,300", "--tables", "40", "--requests", "2",
         "--database-url", url, "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=220,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert [row["hands"] for row in report["sizes"]] == [100, 300]
    last = report["sizes"][-1]
    assert last["entries"] >= 600 and last["open_tables"] == 40
    assert 0 < last["heavy_player_hands"] < 300
    for page in (
        "/hands/",
        "/hands/ deep",
        "/profile/",
        "/lobby/",
        "/lobby/?stake=50",
        "staff: ledger entries",
    ):
        figures = last["pages"][page]
        assert figures["queries"] > 0 and figures["ms"] > 0
        # The process's CPU and the database's wait are parts of the request's wall-clock time.
        assert figures["cpu_ms"] > 0 and 0 < figures["db_ms"] < figures["ms"]
    # The same queries at both sizes: no page asks once per row.
    first = report["sizes"][0]["pages"]
    assert {p: f["queries"] for p, f in first.items()} == {p: f["queries"] for p, f in last["pages"].items()}
    assert "manage.py audit_chips" in last["pages"] and "/profile/" in done.stdout
    assert bench_databases(url) == before
