"""The staff's count of who has a table open: real table sockets opening and closing, in memory and
on Redis, and a process that died without closing its sockets stops counting."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async

from games.live import presence, runtime
from tests.live.tablekit import connect, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def counted() -> tuple[int, int]:
    now = presence.online()
    assert now is not None
    return now.sockets, now.people


async def test_sockets_count_while_open_and_one_person_counts_once(backend) -> None:
    ann, bob = [await sync_to_async(make_player)(name) for name in ("ann", "bob")]
    oak, elm = [await sync_to_async(make_table)(name=name) for name in ("oak", "elm")]
    assert await sync_to_async(counted)() == (0, 0)

    a1 = await connect(ann, oak.pk)
    a2 = await connect(ann, elm.pk)  # ann has two tables open
    b = await connect(bob, oak.pk)
    assert await sync_to_async(counted)() == (3, 2)

    await a2.comm.disconnect()
    await b.comm.disconnect()
    assert await sync_to_async(counted)() == (1, 1)
    await a1.comm.disconnect()
    assert await sync_to_async(counted)() == (0, 0)


async def test_a_refused_socket_is_not_counted(backend) -> None:
    ann = await sync_to_async(make_player)("ann")
    private = await sync_to_async(make_table)(name="hidden", private=True)
    from channels.testing import WebsocketCommunicator

    from svara_site.asgi import application
    from tests.live.tablekit import session_cookie

    cookie = await sync_to_async(session_cookie)(ann)
    comm = WebsocketCommunicator(
        application,
        f"/ws/table/{private.pk}/",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1"), cookie],
    )
    connected, code = await comm.connect(timeout=5)
    assert (connected, code) == (False, 4404)
    assert await sync_to_async(counted)() == (0, 0)


async def test_sockets_of_a_process_that_stopped_vouching_stop_counting(redis_url, settings) -> None:
    settings.REDIS_URL = redis_url
    ann = await sync_to_async(make_player)("ann")
    oak = await sync_to_async(make_table)(name="oak")
    viewer = await connect(ann, oak.pk)
    assert await sync_to_async(counted)() == (1, 1)
    later = time.time() + presence.STALE + 1
    # Nobody vouched for the socket since it opened: seen from STALE seconds on, it is gone ...
    gone = await sync_to_async(presence.online)(now=later)
    assert gone is not None and gone.sockets == 0
    # ... while a process that vouches keeps its sockets counted.
    await presence.vouch()
    assert await sync_to_async(counted)() == (1, 1)
    await viewer.comm.disconnect()


async def test_the_sweep_of_the_process_vouches_for_its_sockets(redis_url, settings, monkeypatch) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(runtime, "SWEEP_EVERY", 0.05)  # the sweep the socket started, every 50 ms
    ann = await sync_to_async(make_player)("ann")
    oak = await sync_to_async(make_table)(name="oak")
    viewer = await connect(ann, oak.pk)
    opened = time.time()
    # Still counted when seen from STALE seconds after it opened: only a later vouch can say so.
    seen_late = sync_to_async(lambda: presence.online(now=opened + presence.STALE + 0.1))
    for _ in range(60):
        await asyncio.sleep(0.05)
        late = await seen_late()
        assert late is not None
        if late.sockets == 1:
            break
    assert (late.sockets, late.people) == (1, 1)
    await viewer.comm.disconnect()


async def test_a_redis_that_does_not_answer_gives_no_count_rather_than_zero(settings) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    presence._sync_clients.clear()
    try:
        assert await sync_to_async(presence.online)() is None
    finally:
        presence._sync_clients.clear()


async def test_each_socket_names_its_table_for_the_friends_page(backend) -> None:
    ann, bob = [await sync_to_async(make_player)(name) for name in ("ann", "bob")]
    oak, elm = [await sync_to_async(make_table)(name=name) for name in ("oak", "elm")]
    a1 = await connect(ann, oak.pk)
    a2 = await connect(ann, elm.pk)
    b = await connect(bob, oak.pk)
    where = await sync_to_async(presence.tables_of)(user_ids={ann.pk, bob.pk})
    assert where == {ann.pk: {oak.pk, elm.pk}, bob.pk: {oak.pk}}
    assert await sync_to_async(presence.tables_of)(user_ids={bob.pk}) == {bob.pk: {oak.pk}}
    await a2.comm.disconnect()
    await b.comm.disconnect()
    assert await sync_to_async(presence.tables_of)(user_ids={ann.pk, bob.pk}) == {ann.pk: {oak.pk}}
    await a1.comm.disconnect()
    assert await sync_to_async(presence.tables_of)(user_ids={ann.pk, bob.pk}) == {}


async def test_a_socket_counted_by_an_older_process_still_counts_at_no_table(redis_url, settings) -> None:
    """During a deploy an older process writes "user:socket" (no table): counted, never misread."""
    settings.REDIS_URL = redis_url
    from games.live.store import get_state_store

    store = get_state_store()
    await store.client.zadd(f"{store.prefix}presence", {"7:specific.abc!def": time.time()})
    assert await sync_to_async(counted)() == (1, 1)
    assert await sync_to_async(presence.tables_of)(user_ids={7}) == {7: {0}}
