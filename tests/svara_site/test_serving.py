"""The serving process's garbage-collector setting (svara_site/serving.py)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json
before = gc.get_freeze_count()
import {module}
print(json.dumps({{
    "before": before,
    "after": gc.get_freeze_count(),
    "tracked": len(gc.get_objects()),
    "threshold": gc.get_threshold(),
}}))
"""


def _load_in_fresh_process(module: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "svara_site.settings"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_loading_the_site_application_freezes_what_startup_made() -> None:
    counts = _load_in_fresh_process("svara_site.asgi")
    assert counts["before"] == 0
    # Django, Channels and the site's modules: tens of thousands of objects, now out of reach
    # of every collection, and more than are left for the collector to walk.
    assert counts["after"] > 20_000
    assert counts["after"] > counts["tracked"]
    # Full collections one in ten as often as CPython's default; the young generations as they were.
    assert counts["threshold"] == [gc.get_threshold()[0], gc.get_threshold()[1], 100]


def test_the_relay_is_tuned_like_the_site() -> None:
    counts = _load_in_fresh_process("bench.relay_asgi")
    assert counts["after"] > 20_000


def test_the_stock_relay_keeps_cpythons_collector() -> None:
    counts = _load_in_fresh_process("bench.relay_stock_asgi")
    assert counts["after"] == 0
    assert counts["threshold"][2] != 100


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_garbage_made_after_the_freeze_is_still_collected() -> None:
    from svara_site.serving import tune_garbage_collector

    threshold = gc.get_threshold()
    frozen = tune_garbage_collector()
    try:
        assert frozen == gc.get_freeze_count() > 0
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        assert gone() is None
    finally:
        gc.unfreeze()  # the test process keeps collecting what it froze, as often as before
        gc.set_threshold(*threshold)
