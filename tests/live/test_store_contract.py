"""The state store's contract, run against both backends (memory and Redis).

Every test here runs twice through the ``make_store``/``store`` fixtures (tests/live/conftest.py).
Tests that need several store instances call ``make_store()`` again: on Redis that is a second
client with its own connections (as a second process would have), in memory the same store.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import pytest

from games.live.store import (
    KEEP,
    Deadline,
    DueDeadline,
    MemoryStateStore,
    RedisStateStore,
    StateConflict,
    StateStore,
    TableExists,
    TableMissing,
    Versioned,
    retry_update,
)

from .conftest import MakeStore

# Deadlines in the past are due now; far ones never become due during a test.
PAST = 1_000_000.0
FAR = 4_000_000_000.0


# ---------------------------------------------------------------- get / create / compare-and-set


async def test_get_missing_table_is_none(store: StateStore) -> None:
    assert await store.get("nope") is None


async def test_create_starts_at_version_1(store: StateStore) -> None:
    created = await store.create("t1", {"pot": 0, "seats": [None, "ana"]})

    assert created == Versioned(version=1, doc={"pot": 0, "seats": [None, "ana"]}, deadline=None)
    assert await store.get("t1") == created


async def test_create_refuses_an_existing_table(store: StateStore) -> None:
    await store.create("t1", {"pot": 0})

    with pytest.raises(TableExists):
        await store.create("t1", {"pot": 99})
    assert issubclass(TableExists, StateConflict)
    assert (await store.get("t1")) == Versioned(version=1, doc={"pot": 0})


async def test_compare_and_set_writes_the_next_version(store: StateStore) -> None:
    await store.create("t1", {"pot": 0})

    written = await store.compare_and_set("t1", expected_version=1, doc={"pot": 10})
    assert written == Versioned(version=2, doc={"pot": 10})
    written = await store.compare_and_set("t1", expected_version=2, doc={"pot": 30})
    assert written == Versioned(version=3, doc={"pot": 30})
    assert await store.get("t1") == written


@pytest.mark.parametrize("expected_version", [0, 1, 3, 100])
async def test_compare_and_set_refuses_a_stale_or_future_version(
    store: StateStore, expected_version: int
) -> None:
    await store.create("t1", {"pot": 0})
    await store.compare_and_set("t1", expected_version=1, doc={"pot": 10})  # now at version 2

    assert await store.compare_and_set("t1", expected_version=expected_version, doc={"pot": -1}) is None
    assert await store.get("t1") == Versioned(version=2, doc={"pot": 10})


async def test_compare_and_set_on_a_missing_table_conflicts_except_at_version_0(store: StateStore) -> None:
    assert await store.compare_and_set("t1", expected_version=1, doc={"pot": 1}) is None
    assert await store.get("t1") is None

    assert await store.compare_and_set("t1", expected_version=0, doc={"pot": 1}) == Versioned(1, {"pot": 1})


async def test_two_writers_on_the_same_version_one_wins(make_store: MakeStore) -> None:
    a, b = make_store(), make_store()
    await a.create("t1", {"n": 0})

    results = await asyncio.gather(
        a.compare_and_set("t1", expected_version=1, doc={"n": "a"}),
        b.compare_and_set("t1", expected_version=1, doc={"n": "b"}),
    )

    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    assert winners[0].version == 2
    assert await a.get("t1") == await b.get("t1") == winners[0]


# ---------------------------------------------------------------- documents are copies, JSON both ways


async def test_returned_docs_are_copies(store: StateStore) -> None:
    doc = {"seats": [{"name": "ana", "chips": 100}], "pot": 0}
    created = await store.create("t1", doc)

    doc["seats"][0]["chips"] = -1  # the caller's dict, after the write
    created.doc["seats"][0]["chips"] = -2  # what create returned
    first = await store.get("t1")
    assert first is not None
    first.doc["seats"].append("intruder")  # what get returned

    again = await store.get("t1")
    assert again is not None
    assert again.doc == {"seats": [{"name": "ana", "chips": 100}], "pot": 0}
    assert again.doc is not first.doc


async def test_docs_round_trip_through_json_on_both_backends(store: StateStore) -> None:
    created = await store.create("t1", {"cards": ("As", "Kd"), "by_seat": {1: "ana"}, "x": 0.1, "u": "Свара"})

    expected = {"cards": ["As", "Kd"], "by_seat": {"1": "ana"}, "x": 0.1, "u": "Свара"}
    assert created.doc == expected
    assert (await store.get("t1")) == Versioned(version=1, doc=expected)


@pytest.mark.parametrize(
    "bad_doc",
    [
        {"x": float("nan")},
        # Deep inside, and the infinities: the fast writer (orjson) would store each as null.
        {"seats": [None, {"chips": 5, "at": [1.5, float("nan")]}]},
        {"timer": {"at": float("inf")}},
        {"timer": {"at": float("-inf")}, "by_seat": {1: "ana"}},
        {"x": object()},
        {"x": {1, 2}},
        ["not", "a", "dict"],
    ],
)
async def test_non_json_docs_are_refused_and_nothing_is_written(store: StateStore, bad_doc: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        await store.create("t1", bad_doc)  # type: ignore[arg-type]
    assert await store.get("t1") is None


@pytest.mark.parametrize("bad_id", [5, "", None])
async def test_table_ids_must_be_non_empty_strings(store: StateStore, bad_id: object) -> None:
    # 5 and "5" would be one key on Redis and two in memory: refuse anything but str.
    with pytest.raises(TypeError):
        await store.create(bad_id, {"x": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await store.get(bad_id)  # type: ignore[arg-type]


# ---------------------------------------------------------------- delete and table_ids


async def test_table_ids_and_delete(store: StateStore) -> None:
    for table_id in ["b", "a", "table:7"]:
        await store.create(table_id, {"id": table_id})
    assert await store.table_ids() == ["a", "b", "table:7"]

    assert await store.delete("b") is True
    assert await store.delete("b") is False
    assert await store.get("b") is None
    assert await store.table_ids() == ["a", "table:7"]

    # A deleted table can be created again; its versions start over.
    assert (await store.create("b", {"again": True})).version == 1


async def test_delete_removes_the_deadline(store: StateStore) -> None:
    await store.create("t1", {"x": 1}, deadline=Deadline(at=PAST))
    await store.create("t2", {"x": 2}, deadline=Deadline(at=PAST + 1))

    await store.delete("t1")

    assert await store.next_deadline() == PAST + 1
    assert await store.claim_due(now=time.time()) == [DueDeadline(table_id="t2", at=PAST + 1, version=1)]


# ---------------------------------------------------------------- deadlines written with the state


async def test_deadline_set_in_the_same_step_as_the_write(store: StateStore) -> None:
    await store.create("t1", {"turn": 0})

    written = await store.compare_and_set(
        "t1", expected_version=1, doc={"turn": 1}, deadline=Deadline(at=PAST)
    )

    # version=None means "the version this write creates"
    assert written == Versioned(version=2, doc={"turn": 1}, deadline=Deadline(at=PAST, version=2))
    assert await store.get("t1") == written
    assert await store.next_deadline() == PAST
    assert await store.claim_due(now=PAST) == [DueDeadline(table_id="t1", at=PAST, version=2)]


async def test_deadline_with_an_explicit_version_keeps_it(store: StateStore) -> None:
    created = await store.create("t1", {"turn": 0}, deadline=Deadline(at=PAST, version=42))

    assert created.deadline == Deadline(at=PAST, version=42)
    assert await store.claim_due(now=PAST) == [DueDeadline(table_id="t1", at=PAST, version=42)]


async def test_deadline_keep_leaves_it_pending_and_attached(store: StateStore) -> None:
    await store.create("t1", {"turn": 0}, deadline=Deadline(at=PAST))

    written = await store.compare_and_set("t1", expected_version=1, doc={"turn": 0, "chat": ["hi"]})  # KEEP

    assert written == Versioned(
        version=2, doc={"turn": 0, "chat": ["hi"]}, deadline=Deadline(at=PAST, version=1)
    )
    claimed = await store.claim_due(now=PAST)
    assert claimed == [DueDeadline(table_id="t1", at=PAST, version=1)]
    # The state moved on only by a KEEP write: the claimed deadline still applies.
    assert claimed[0].matches(await store.get("t1"))


async def test_deadline_clear_removes_it(store: StateStore) -> None:
    await store.create("t1", {"turn": 0}, deadline=Deadline(at=PAST))

    written = await store.compare_and_set("t1", expected_version=1, doc={"over": True}, deadline=None)

    assert written is not None and written.deadline is None
    assert (await store.get("t1")) == written
    assert await store.next_deadline() is None
    assert await store.claim_due(now=time.time()) == []


async def test_a_new_deadline_replaces_the_old_one(store: StateStore) -> None:
    await store.create("t1", {"turn": 0}, deadline=Deadline(at=PAST))

    await store.compare_and_set("t1", expected_version=1, doc={"turn": 1}, deadline=Deadline(at=FAR))

    assert await store.next_deadline() == FAR
    assert await store.claim_due(now=time.time()) == []


async def test_a_refused_write_leaves_the_deadline_alone(store: StateStore) -> None:
    await store.create("t1", {"turn": 0}, deadline=Deadline(at=PAST))

    assert await store.compare_and_set("t1", expected_version=7, doc={"x": 1}, deadline=None) is None
    assert (
        await store.compare_and_set("t1", expected_version=7, doc={"x": 1}, deadline=Deadline(at=FAR)) is None
    )

    assert await store.next_deadline() == PAST
    assert (await store.get("t1")) == Versioned(
        version=1, doc={"turn": 0}, deadline=Deadline(at=PAST, version=1)
    )


async def test_float_deadlines_come_back_exactly(store: StateStore) -> None:
    at = time.time() + 0.123456789
    await store.create("t1", {}, deadline=Deadline(at=at))

    assert await store.next_deadline() == at
    assert (await store.claim_due(now=at))[0].at == at


async def test_claim_due_takes_only_due_deadlines_earliest_first_up_to_limit(store: StateStore) -> None:
    now = 2_000_000.0
    for i, at in enumerate([now - 3, now + 10, now - 1, now, now - 2]):
        await store.create(f"t{i}", {}, deadline=Deadline(at=at))

    first = await store.claim_due(now=now, limit=2)
    rest = await store.claim_due(now=now, limit=100)

    assert [(d.table_id, d.at) for d in first] == [("t0", now - 3), ("t4", now - 2)]
    assert [(d.table_id, d.at) for d in rest] == [("t2", now - 1), ("t3", now)]
    assert await store.claim_due(now=now) == []
    assert await store.next_deadline() == now + 10


async def test_a_claimed_deadline_stays_attached_until_the_next_write_replaces_it(store: StateStore) -> None:
    await store.create("t1", {"turn": "ana"}, deadline=Deadline(at=PAST))
    [due] = await store.claim_due(now=PAST)

    # Claimed: no longer pending, but the state still says which turn clock it carries.
    assert await store.next_deadline() is None
    assert due.matches(await store.get("t1"))

    # A player acts between the claim and the timeout handler: the claim no longer matches.
    await store.compare_and_set("t1", expected_version=1, doc={"turn": "boris"}, deadline=Deadline(at=FAR))
    assert not due.matches(await store.get("t1"))
    assert not due.matches(None)


async def test_claim_due_is_exactly_once_across_racing_store_instances(make_store: MakeStore) -> None:
    stores = [make_store() for _ in range(3)]
    table_ids = [f"t{i}" for i in range(50)]
    for i, table_id in enumerate(table_ids):
        await stores[0].create(table_id, {"i": i}, deadline=Deadline(at=PAST + i))

    async def claimer(s: StateStore) -> list[DueDeadline]:
        claimed: list[DueDeadline] = []
        for _ in range(100):  # bounded: a claim that removes nothing must fail, not hang
            batch = await s.claim_due(now=time.time(), limit=3)
            if not batch:
                break
            claimed.extend(batch)
            await asyncio.sleep(0)  # let the others race
        return claimed

    # Two racing claimers on each of three instances (three Redis clients, six concurrent callers).
    results = await asyncio.gather(*(claimer(s) for s in stores for _ in range(2)))

    counts = Counter(d.table_id for claimed in results for d in claimed)
    assert sorted(counts) == sorted(table_ids), "every due deadline is claimed"
    assert set(counts.values()) == {1}, f"claimed more than once: {[t for t, n in counts.items() if n > 1]}"
    assert all(d.version == 1 for claimed in results for d in claimed)
    assert await stores[1].claim_due(now=time.time()) == []


async def test_redis_deadlines_and_state_survive_dropping_every_store(
    redis_url: str, redis_prefix: str
) -> None:
    first = RedisStateStore.from_url(redis_url, prefix=redis_prefix)
    second = RedisStateStore.from_url(redis_url, prefix=redis_prefix)
    try:
        await first.create("t1", {"turn": "ana"}, deadline=Deadline(at=PAST))
        await first.aclose()
        del first  # every "process" is gone

        assert await second.get("t1") == Versioned(1, {"turn": "ana"}, Deadline(at=PAST, version=1))
        assert await second.next_deadline() == PAST
        assert await second.claim_due(now=time.time()) == [DueDeadline(table_id="t1", at=PAST, version=1)]
    finally:
        await second.aclose()
        client = RedisStateStore.from_url(redis_url, prefix=redis_prefix)
        await client.delete("t1")
        await client.aclose()


async def test_redis_prefixes_keep_stores_apart(redis_url: str, redis_prefix: str) -> None:
    a = RedisStateStore.from_url(redis_url, prefix=redis_prefix + "a:")
    b = RedisStateStore.from_url(redis_url, prefix=redis_prefix + "b:")
    try:
        await a.create("t1", {"who": "a"}, deadline=Deadline(at=PAST))
        assert await b.get("t1") is None
        assert await b.table_ids() == []
        assert await b.claim_due(now=time.time()) == []
    finally:
        await a.delete("t1")
        await a.aclose()
        await b.aclose()


# ---------------------------------------------------------------- retry_update


def _increment(current: Versioned) -> tuple[dict, Deadline | None]:
    return {"n": current.doc["n"] + 1}, Deadline(at=FAR)


async def test_retry_update_applies_and_sets_the_deadline(store: StateStore) -> None:
    await store.create("t1", {"n": 0})

    result = await retry_update(store, "t1", _increment)

    assert result == Versioned(version=2, doc={"n": 1}, deadline=Deadline(at=FAR, version=2))


async def test_retry_update_with_no_change_writes_nothing(store: StateStore) -> None:
    created = await store.create("t1", {"n": 0})

    assert await retry_update(store, "t1", lambda current: None) == created
    assert (await store.get("t1")) == created


async def test_retry_update_lets_a_refusal_propagate_and_writes_nothing(store: StateStore) -> None:
    created = await store.create("t1", {"n": 0})

    def refuse(current: Versioned) -> tuple[dict, None]:
        raise ValueError("not your turn")

    with pytest.raises(ValueError, match="not your turn"):
        await retry_update(store, "t1", refuse)
    assert (await store.get("t1")) == created


async def test_retry_update_on_a_missing_table(store: StateStore) -> None:
    with pytest.raises(TableMissing):
        await retry_update(store, "ghost", _increment)


class OvertakenStore(StateStore):
    """A real store whose first ``overtakes`` reads are each followed by a rival's write.

    It makes "someone wrote between my read and my write" happen on purpose, through a second
    store instance, so retry_update's conflict path runs deterministically on both backends.
    """

    def __init__(self, inner: StateStore, rival: StateStore, *, overtakes: int) -> None:
        self.inner, self.rival, self.overtakes = inner, rival, overtakes

    async def get(self, table_id: str) -> Versioned | None:
        current = await self.inner.get(table_id)
        if current is not None and self.overtakes > 0:
            self.overtakes -= 1
            rival_doc = {"n": current.doc["n"] + 100}
            assert await self.rival.compare_and_set(table_id, expected_version=current.version, doc=rival_doc)
        return current

    async def compare_and_set(self, table_id: str, **kwargs: Any) -> Versioned | None:
        return await self.inner.compare_and_set(table_id, **kwargs)

    async def delete(self, table_id: str) -> bool:
        return await self.inner.delete(table_id)

    async def table_ids(self) -> list[str]:
        return await self.inner.table_ids()

    async def claim_due(self, *, now: float, limit: int = 100) -> list[DueDeadline]:
        return await self.inner.claim_due(now=now, limit=limit)

    async def next_deadline(self) -> float | None:
        return await self.inner.next_deadline()


async def test_retry_update_retries_a_conflict_with_a_fresh_read(make_store: MakeStore) -> None:
    base = make_store()
    await base.create("t1", {"n": 0})
    overtaken = OvertakenStore(base, make_store(), overtakes=2)
    seen: list[int] = []

    def increment(current: Versioned) -> tuple[dict, object]:
        seen.append(current.version)
        return {"n": current.doc["n"] + 1}, KEEP

    result = await retry_update(overtaken, "t1", increment)  # type: ignore[arg-type]

    # Read v1 (rival writes v2), read v2 (rival writes v3), read v3 and win with v4.
    assert seen == [1, 2, 3]
    assert result == Versioned(version=4, doc={"n": 201})
    assert await base.get("t1") == result


async def test_retry_update_gives_up_with_state_conflict(make_store: MakeStore) -> None:
    base = make_store()
    await base.create("t1", {"n": 0})
    overtaken = OvertakenStore(base, make_store(), overtakes=1000)

    with pytest.raises(StateConflict):
        await retry_update(overtaken, "t1", lambda current: ({"n": -1}, KEEP), attempts=3)

    # Three rival writes, none of ours.
    assert await base.get("t1") == Versioned(version=4, doc={"n": 300})


async def test_concurrent_retry_updates_lose_no_update(make_store: MakeStore) -> None:
    stores = [make_store(), make_store()]
    await stores[0].create("counter", {"n": 0, "by": {}})
    tasks, per_task = 10, 10

    def increment(worker: str) -> object:
        def fn(current: Versioned) -> tuple[dict, object]:
            by = dict(current.doc["by"])
            by[worker] = by.get(worker, 0) + 1
            return {"n": current.doc["n"] + 1, "by": by}, Deadline(at=FAR)

        return fn

    async def worker(index: int) -> None:
        s = stores[index % len(stores)]
        for _ in range(per_task):
            await retry_update(s, "counter", increment(f"w{index}"))  # type: ignore[arg-type]
            await asyncio.sleep(0)

    await asyncio.gather(*(worker(i) for i in range(tasks)))

    final = await stores[1].get("counter")
    assert final is not None
    assert final.doc["n"] == tasks * per_task
    assert final.doc["by"] == {f"w{i}": per_task for i in range(tasks)}
    assert final.version == 1 + tasks * per_task
    assert final.deadline == Deadline(at=FAR, version=final.version)


# ---------------------------------------------------------------- the factory


def test_factory_without_redis_url_gives_one_memory_store(settings: object) -> None:
    from games.live.store import get_state_store

    settings.REDIS_URL = ""  # type: ignore[attr-defined]
    first = get_state_store()
    assert isinstance(first, MemoryStateStore)
    assert get_state_store() is first


async def test_factory_with_redis_url_gives_a_redis_store_per_loop(
    settings: object, redis_url: str, redis_prefix: str
) -> None:
    from games.live.store import get_state_store

    settings.REDIS_URL = redis_url  # type: ignore[attr-defined]
    settings.LIVE_STATE_PREFIX = redis_prefix  # type: ignore[attr-defined]
    store = get_state_store()
    try:
        assert isinstance(store, RedisStateStore)
        assert store.prefix == redis_prefix
        assert get_state_store() is store
        await store.create("t1", {"ok": True})
        assert (await store.get("t1")) == Versioned(1, {"ok": True})
    finally:
        await store.delete("t1")
        await store.aclose()


async def test_retry_update_trusts_a_remembered_state_only_through_the_compare_and_set(
    make_store: MakeStore,
) -> None:
    # Two instances are two processes on Redis (one shared store in memory): ``a`` remembers
    # version 1, ``b`` writes version 2 behind its back.
    a, b = make_store(), make_store()
    await a.create("t1", {"n": 1})
    await b.compare_and_set("t1", expected_version=1, doc={"n": 2})
    seen: list[int] = []

    def increment(current: Versioned) -> tuple[dict, object]:
        seen.append(current.doc["n"])
        return {"n": current.doc["n"] + 1}, KEEP

    result = await retry_update(a, "t1", increment)

    assert result.doc == {"n": 3} and result.version == 3  # built on b's write, not on the stale one
    # On Redis the first try was on the remembered state (a read saved), and it lost.
    assert seen == ([1, 2] if isinstance(a, RedisStateStore) else [2])
    assert await b.get("t1") == result


async def test_retry_update_decides_again_on_the_stored_state_when_refused_on_a_remembered_one(
    make_store: MakeStore,
) -> None:
    a, b = make_store(), make_store()
    await a.create("t1", {"turn": "ann"})
    await b.compare_and_set("t1", expected_version=1, doc={"turn": "bob"})
    calls: list[str] = []

    def bob_moves(current: Versioned) -> tuple[dict, object]:
        calls.append(current.doc["turn"])
        if current.doc["turn"] != "bob":
            raise ValueError("not your turn")
        return {"turn": "ann"}, KEEP

    result = await retry_update(a, "t1", bob_moves)

    assert result.doc == {"turn": "ann"} and result.version == 3
    assert calls == (["ann", "bob"] if isinstance(a, RedisStateStore) else ["bob"])
    # A refusal on the stored state itself still reaches the caller, and writes nothing.
    with pytest.raises(ValueError, match="not your turn"):
        await retry_update(a, "t1", bob_moves)
    assert (await b.get("t1")).version == 3


async def test_a_redis_store_remembers_what_it_read_and_wrote(redis_url: str, redis_prefix: str) -> None:
    store = RedisStateStore.from_url(redis_url, prefix=redis_prefix)
    try:
        assert store.recent("t1") is None
        written = await store.create("t1", {"n": 1}, deadline=Deadline(at=FAR))
        assert store.recent("t1") == written
        # The state remembered itself, not a decoded copy: read-only, like every document handed out.
        assert store.recent("t1") is store.recent("t1")
        read = await store.get("t1")
        assert store.recent("t1") is read  # what a read found is remembered
        again = await store.get("t1")
        assert again == read and again.doc is not read.doc  # each read decodes afresh
        await store.delete("t1")
        assert store.recent("t1") is None
    finally:
        await store.aclose()


async def test_a_state_remembered_from_before_a_loss_never_overwrites_the_rebuilt_table(
    make_store: MakeStore,
) -> None:
    # Versions start again at 1 after a loss: ``a`` remembers version 2 of the lost table while
    # the rebuilt one reaches version 2 too. The same number must not let a's old state through.
    a, b = make_store(), make_store()
    await a.create("t1", {"life": "old", "n": 10})
    await a.compare_and_set("t1", expected_version=1, doc={"life": "old", "n": 11})
    assert await b.delete("t1")  # Redis flushed
    await b.create("t1", {"life": "new", "n": 0})
    await b.compare_and_set("t1", expected_version=1, doc={"life": "new", "n": 1})

    def increment(current: Versioned) -> tuple[dict, object]:
        return {**current.doc, "n": current.doc["n"] + 1}, KEEP

    result = await retry_update(a, "t1", increment)

    assert result.doc == {"life": "new", "n": 2} and result.version == 3
    assert await b.get("t1") == result


# ---------------------------------------------------------------- observing another process's write


def bump_n(current: Versioned) -> tuple[dict, object]:
    return {**current.doc, "n": current.doc["n"] + 1}, KEEP


async def test_a_state_another_process_announced_is_observed_as_the_recent_one(make_store: MakeStore) -> None:
    a, b = make_store(), make_store()
    await a.create("t1", {"n": 1})
    second = await a.compare_and_set("t1", expected_version=1, doc={"n": 2}, deadline=Deadline(at=FAR))
    b.observe("t1", second)
    if not isinstance(b, RedisStateStore):
        assert b.recent("t1") is None  # always current, remembers nothing
        return
    assert b.recent("t1") == second and b.recent("t1").incarnation == second.incarnation != ""

    async def no_reads(table_id: str) -> Versioned | None:
        raise AssertionError("read the store: the observed state should have served")

    b.get = no_reads  # type: ignore[method-assign]

    third = await retry_update(b, "t1", bump_n)
    assert (third.version, third.doc, third.deadline) == (3, {"n": 3}, second.deadline)
    # An older announcement arriving late changes nothing.
    b.observe("t1", second)
    assert b.recent("t1") == third


async def test_an_observed_state_from_before_a_loss_never_overwrites_the_rebuilt_table(
    make_store: MakeStore,
) -> None:
    a, b = make_store(), make_store()
    await a.create("t1", {"life": "old", "n": 0})
    old = await a.compare_and_set("t1", expected_version=1, doc={"life": "old", "n": 1})
    assert await a.delete("t1")  # Redis flushed
    await a.create("t1", {"life": "new", "n": 0})
    await a.compare_and_set("t1", expected_version=1, doc={"life": "new", "n": 1})
    b.observe("t1", old)  # the old life's announcement, late: same version as the new table's

    result = await retry_update(b, "t1", bump_n)
    assert result.doc == {"life": "new", "n": 2} and result.version == 3
