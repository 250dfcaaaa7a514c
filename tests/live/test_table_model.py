"""The model-based test of the live table, a fast run (tests/live/table_model.py says what it
checks). The long run is ``python -m bench.table_model``; both stores, where Redis runs."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from games.live import process
from games.live.store import get_state_store
from tests.live.table_model import STATS, Clock, TableMachine, write_stats

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("SVARA_MODEL_EXAMPLES", "25"))
STEPS = int(os.environ.get("SVARA_MODEL_STEPS", "50"))
ALL = tuple(Phase)
NO_SHRINK = tuple(p for p in Phase if p not in (Phase.shrink, Phase.explain))


def test_the_table_keeps_its_promises_on_every_path(backend: str) -> None:
    loop = asyncio.new_event_loop()
    clock = Clock(time.time())
    TableMachine.loop, TableMachine.clock = loop, clock
    STATS.clear()
    try:
        with process.time_source(clock):
            run_state_machine_as_test(
                TableMachine,
                settings=settings(
                    max_examples=EXAMPLES,
                    stateful_step_count=STEPS,
                    deadline=None,
                    suppress_health_check=list(HealthCheck),
                    database=None if os.environ.get("CI") else settings.default.database,
                    # Shrinking a failing run replays the table many times: worth it at a desk, not
                    # in CI's budget (the failure is reported with its steps either way).
                    phases=NO_SHRINK
                    if os.environ.get("CI") or os.environ.get("SVARA_MODEL_NO_SHRINK")
                    else ALL,
                ),
            )
    finally:
        store = loop.run_until_complete(_store())
        if hasattr(store, "aclose"):
            loop.run_until_complete(store.aclose())
        loop.close()
        write_stats()
    # The run explored: it played hands to their end and refused bad commands (a machine that
    # only ever refused would check nothing).
    print(dict(STATS))
    assert STATS["examples"] >= 1 and STATS["hands_checked"] >= 1, dict(STATS)
    assert STATS["refused"] >= 1 and STATS["applied"] >= 1, dict(STATS)


async def _store():
    return get_state_store()
