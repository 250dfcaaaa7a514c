"""A bad record for one table in the store (not JSON, or JSON of the wrong shape) holds up no
other table: the sweep, the worker's start and every command quarantine it under its own key and
rebuild the table from the database; ``/healthz`` and ``manage.py live_tables`` show it."""

from __future__ import annotations

import json
from io import StringIO

import pytest
import redis.asyncio as aioredis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from games.live import runtime, service
from games.live.store import MemoryStateStore, RedisStateStore, get_state_store
from tests.live.test_service_hands import seated_table
from tests.svara_site.test_observability import scrape

pytestmark = pytest.mark.django_db(transaction=True)

BAD_RECORDS = {
    "not JSON": '{"table": {"stake": 10}, "seats": [',
    "a JSON list": "[1, 2, 3]",
    "the wrong shape": json.dumps({"table": {"stake": 10}, "seats": "ann and bob", "hand": None}),
    "a seat without chips": json.dumps(
        {
            "table": {"stake": 10},
            "seats": [{"user_id": 1}, None],
            "hand": None,
            "ended": None,
            "timer": None,
            "log": [],
            "action_ids": [],
        }
    ),
}


async def write_bad_record(table_id: int, text: str) -> None:
    """Put ``text`` in the store as the table's record, as a hand or a bug would."""
    store = get_state_store()
    if isinstance(store, MemoryStateStore):
        store.put_raw(str(table_id), text)
        return
    assert isinstance(store, RedisStateStore)
    client = aioredis.Redis.from_url(settings.REDIS_URL, decode_responses=True)
    try:
        key = f"{store.prefix}t:{table_id}"
        await client.delete(key)
        await client.hset(key, mapping={"v": "999", "doc": text, "i": "by-hand", "dat": "1.0", "dv": "999"})
        await client.zadd(f"{store.prefix}deadlines", {str(table_id): 1.0})
    finally:
        await client.aclose()


@pytest.fixture(params=sorted(BAD_RECORDS))
def bad_record(request: pytest.FixtureRequest) -> str:
    return BAD_RECORDS[request.param]


async def test_the_sweep_survives_a_bad_record_and_rebuilds_that_table(backend, bad_record, caplog):
    good, _ = await seated_table(["ann", "bob"])
    bad, _ = await seated_table(["cid", "dan"])
    await write_bad_record(bad.pk, bad_record)
    store = get_state_store()
    due = (await store.get(str(good.pk))).doc["timer"]["at"]

    await runtime.sweep_overdue(now=due + 60)  # as the worker does at its start

    assert (await store.get(str(good.pk))).doc["hand"] is not None  # the good table dealt
    rebuilt = await store.get(str(bad.pk))  # the bad one: rebuilt from the database
    assert rebuilt is not None and [s["name"] for s in rebuilt.doc["seats"]] == ["cid", "dan"]
    assert rebuilt.doc["timer"]["kind"] == "start"  # and deals on
    [kept] = await store.quarantined()
    assert kept.table_id == str(bad.pk) and kept.raw == bad_record and kept.reason
    assert "quarantined" in caplog.text


async def test_a_command_on_a_bad_record_rebuilds_the_table(backend, bad_record):
    table, (ann, _bob) = await seated_table(["ann", "bob"])
    await write_bad_record(table.pk, bad_record)

    state = await service.table_sit_out(user=ann, table_id=table.pk, sitting_out=True)

    assert state.doc["seats"][0]["sitting_out"] is True
    assert [q.table_id for q in await get_state_store().quarantined()] == [str(table.pk)]


async def test_a_bad_record_is_read_as_none_and_set_aside(backend, bad_record):
    table, _ = await seated_table(["ann", "bob"])
    await write_bad_record(table.pk, bad_record)

    assert await service.read_table(table.pk) is None
    assert await get_state_store().get(str(table.pk)) is None  # gone from the tables in play
    assert await service.load_table_state(table.pk) is not None


async def test_healthz_says_degraded_while_a_record_is_quarantined(backend):
    from svara_site.health import health

    table, _ = await seated_table(["ann", "bob"])
    status, report = await sync_to_async(health)()
    assert status == 200 and "quarantined" not in report
    await write_bad_record(table.pk, "{")
    await runtime.sweep_overdue()

    status, report = await sync_to_async(health)()
    assert status == 200  # every process serves on: the table was rebuilt
    assert report["quarantined"] == {"status": "degraded", "count": 1}
    response = await sync_to_async(Client().get)("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "degraded"
    # And in the metrics, for the operator's alerts (parsed, the sample found).
    samples = await sync_to_async(scrape)(Client())
    assert samples["svara_tables_quarantined"] == 1

    await get_state_store().forget_quarantined(str(table.pk))
    assert "quarantined" not in (await sync_to_async(health)())[1]


async def test_live_tables_lists_overdue_and_quarantined_tables_and_rebuilds_one(backend):
    stuck, _ = await seated_table(["ann", "bob"])
    bad, _ = await seated_table(["cid", "dan"])
    await write_bad_record(bad.pk, "not a document")
    await service.read_table(bad.pk)  # quarantined
    store = get_state_store()
    due = (await store.get(str(stuck.pk))).doc["timer"]["at"]

    out = StringIO()
    await sync_to_async(call_command)("live_tables", now=due + 60, stdout=out)
    text = out.getvalue()
    assert f"table {stuck.pk}: overdue" in text
    assert f"table {bad.pk}: quarantined" in text

    before = (await store.get(str(stuck.pk))).doc["epoch"]
    out = StringIO()
    await sync_to_async(call_command)("live_tables", rebuild=stuck.pk, stdout=out)
    after = await store.get(str(stuck.pk))
    assert after is not None and after.doc["epoch"] != before
    assert f"table {stuck.pk} rebuilt" in out.getvalue()
    assert {q.table_id for q in await store.quarantined()} == {str(bad.pk), str(stuck.pk)}

    await sync_to_async(call_command)("live_tables", forget=bad.pk, stdout=StringIO())
    assert {q.table_id for q in await store.quarantined()} == {str(stuck.pk)}


async def test_the_store_reads_a_bad_record_as_unreadable_and_sets_it_aside(make_store):
    from games.live.store import Deadline, UnreadableTable

    store = make_store()
    await store.create("7", {"ok": True}, deadline=Deadline(at=5.0))
    if isinstance(store, MemoryStateStore):
        store.put_raw("7", "{oops")
    else:
        await store.client.hset(f"{store.prefix}t:7", "doc", "{oops")
    with pytest.raises(UnreadableTable):
        await store.get("7")

    assert await store.quarantine("7", reason="not JSON", at=100.0) is True
    assert await store.get("7") is None and "7" not in await store.table_ids()
    assert await store.claim_due(now=10.0) == []  # its deadline went with it
    [kept] = await store.quarantined()
    assert (kept.table_id, kept.reason, kept.at, kept.raw) == ("7", "not JSON", 100.0, "{oops")
    assert (await store.create("7", {"rebuilt": 1})).version == 1
    assert await store.forget_quarantined("7") is True and await store.quarantined() == []
    assert await store.quarantine("8", reason="none", at=1.0) is False


async def test_a_table_key_of_the_wrong_redis_type_is_set_aside_too(redis_url, settings):
    settings.REDIS_URL = redis_url
    table, _ = await seated_table(["ann", "bob"])
    store = get_state_store()
    assert isinstance(store, RedisStateStore)
    await store.client.delete(f"{store.prefix}t:{table.pk}")
    await store.client.set(f"{store.prefix}t:{table.pk}", "a plain string")

    assert await service.read_table(table.pk) is None
    [kept] = await store.quarantined()
    assert (kept.reason, kept.raw) == ("not a Redis hash", "a plain string")
    assert (await service.load_table_state(table.pk)).version == 1  # rebuilt


async def test_live_tables_refuses_to_rebuild_a_table_that_is_not_open(backend):
    from django.core.management.base import CommandError

    from games.models import Table

    with pytest.raises(CommandError, match="no such table"):
        await sync_to_async(call_command)("live_tables", rebuild=987654, stdout=StringIO())
    table, _ = await seated_table(["ann", "bob"])
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(status=Table.Status.CLOSED)
    with pytest.raises(CommandError, match="closed"):
        await sync_to_async(call_command)("live_tables", rebuild=table.pk, stdout=StringIO())
    assert await get_state_store().get(str(table.pk)) is not None  # nothing was set aside
    assert await get_state_store().quarantined() == []
