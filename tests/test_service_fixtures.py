"""The service fixtures of tests/conftest.py: a test that needs Redis uses only the server that
REDIS_URL names (never one that merely runs on the machine), skips without it as on a new user's
machine, and fails without it where CI requires every service."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
A_REDIS_TEST = "tests/live/test_store_contract.py::test_redis_prefixes_keep_stores_apart"


def _run(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "SVARA_SERVICES", "CI"}}
    return subprocess.run(
        [sys.executable, "-m", "pytest", A_REDIS_TEST, "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_redis_url_a_redis_test_skips_even_with_a_redis_running_here() -> None:
    run = _run()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 skipped" in run.stdout
    assert "needs Redis: set REDIS_URL" in run.stdout


def test_where_services_are_required_a_missing_redis_fails() -> None:
    run = _run(SVARA_SERVICES="required")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "required service missing" in run.stdout
