"""The turn clock, on both backends: fires each deadline once, also after a restart, and keeps going.

On Redis the "processes" are separate store instances (separate clients) on one key prefix, each
with its own clock; in memory the clocks share the one store a process has.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable

import pytest

from games.live.clock import TurnClock
from games.live.store import Deadline, DueDeadline, RedisStateStore, StateStore, Versioned, retry_update

from .conftest import MakeStore

POLL = 0.05


async def wait_for(condition: Callable[[], bool], *, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


async def test_two_clocks_fire_each_deadline_exactly_once(make_store: MakeStore) -> None:
    stores = [make_store(), make_store()]
    fired: list[tuple[int, DueDeadline, float]] = []

    def recorder(clock_no: int):
        async def on_due(due: DueDeadline) -> None:
            fired.append((clock_no, due, time.time()))

        return on_due

    clocks = [TurnClock(s, recorder(n), poll_interval=POLL, batch=4) for n, s in enumerate(stores)]
    for clock in clocks:
        clock.start()
    try:
        start = time.time()
        # 30 deadlines spread over 0.3 s, set through both instances while the clocks run.
        for i in range(30):
            await stores[i % 2].create(f"t{i}", {"i": i}, deadline=Deadline(at=start + 0.01 * i))
        await wait_for(lambda: len(fired) >= 30)
        await asyncio.sleep(3 * POLL)  # time for a duplicate to show up, if any would
    finally:
        for clock in clocks:
            await clock.stop()

    counts = Counter(due.table_id for _, due, _ in fired)
    assert counts == Counter({f"t{i}": 1 for i in range(30)})
    # None fired early, none much later than its deadline plus one poll interval.
    for _, due, at in fired:
        assert due.at <= at < due.at + 1.0
    assert not any(clock.running for clock in clocks)


async def test_a_deadline_set_before_the_clock_started_fires(make_store: MakeStore) -> None:
    before = make_store()
    await before.create("t1", {"turn": "ana"}, deadline=Deadline(at=time.time() - 5))  # overdue
    await before.create("t2", {"turn": "boris"}, deadline=Deadline(at=time.time() + 0.1))
    if isinstance(before, RedisStateStore):
        await before.aclose()  # every process went away; a new one starts below

    after = make_store()
    fired: list[DueDeadline] = []

    async def on_due(due: DueDeadline) -> None:
        fired.append(due)

    clock = TurnClock(after, on_due, poll_interval=POLL)
    clock.start()
    try:
        await wait_for(lambda: len(fired) == 2)
    finally:
        await clock.stop()
    assert [(d.table_id, d.version) for d in fired] == [("t1", 1), ("t2", 1)]


async def test_a_failing_callback_does_not_stop_the_loop(
    store: StateStore, caplog: pytest.LogCaptureFixture
) -> None:
    fired: list[str] = []

    async def on_due(due: DueDeadline) -> None:
        fired.append(due.table_id)
        if due.table_id == "boom":
            raise RuntimeError("callback failed")

    now = time.time()
    await store.create("boom", {}, deadline=Deadline(at=now))
    clock = TurnClock(store, on_due, poll_interval=POLL)
    with caplog.at_level(logging.ERROR, logger="games.live.clock"):
        clock.start()
        try:
            await wait_for(lambda: fired == ["boom"])
            # Deadlines added after the failure still fire: the loop is alive.
            await store.create("later", {}, deadline=Deadline(at=time.time() + 0.05))
            await wait_for(lambda: fired == ["boom", "later"])
            assert clock.running
        finally:
            await clock.stop()

    failures = [r for r in caplog.records if "on_due failed" in r.getMessage()]
    assert len(failures) == 1 and "boom" in failures[0].getMessage()
    assert failures[0].exc_info is not None and "callback failed" in str(failures[0].exc_info[1])


async def test_timeout_handler_applies_only_while_the_deadline_still_matches(store: StateStore) -> None:
    """The way the table service will use it: the handler re-reads and ignores a stale claim."""
    now = time.time()
    await store.create("t1", {"turn": "ana", "log": []}, deadline=Deadline(at=now))
    await store.create("t2", {"turn": "ana", "log": []}, deadline=Deadline(at=now))
    [first, second] = await store.claim_due(now=now)

    # On t2 ana acts after the claim but before the handler runs.
    await store.compare_and_set(
        "t2", expected_version=1, doc={"turn": "boris", "log": ["ana calls"]}, deadline=Deadline(at=now + 30)
    )

    def time_out(due: DueDeadline):
        def fn(current: Versioned):
            if not due.matches(current):
                return None  # stale: someone acted since
            doc = {"turn": "boris", "log": [*current.doc["log"], f"{current.doc['turn']} timed out"]}
            return doc, Deadline(at=due.at + 30)

        return fn

    t1 = await retry_update(store, "t1", time_out(first))
    t2 = await retry_update(store, "t2", time_out(second))

    assert t1.doc == {"turn": "boris", "log": ["ana timed out"]}
    assert t2.doc == {"turn": "boris", "log": ["ana calls"]}
    assert t2.version == 2


async def test_stop_is_quick_and_start_twice_is_harmless(store: StateStore) -> None:
    async def on_due(due: DueDeadline) -> None:
        return None

    clock = TurnClock(store, on_due, poll_interval=10.0)  # a long poll must not delay stop()
    clock.start()
    clock.start()
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await clock.stop()
    assert time.monotonic() - started < 0.5
    assert not clock.running
    await clock.stop()  # stopping a stopped clock is fine
