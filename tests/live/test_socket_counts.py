"""Table sockets per account and per address (games/live/socket_counts.py), on real sockets, in
memory and on Redis: one past the limit is closed with 4429 and counts for nothing, a closed one
frees its place, and on Redis the places other processes hold count too (issue 37: 300 of 300
sockets from one account opened and stayed open)."""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.live import socket_counts
from svara_site.asgi import application
from tests.live.tablekit import connect, make_player, make_table, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

TOO_MANY = 4429


async def try_connect(user, table_id: int, *, address: str = "203.0.113.7") -> tuple[bool, int | None]:
    """(True, None): the socket got its table; (False, code): it was closed with ``code``."""
    cookie = await sync_to_async(session_cookie)(user)
    comm = WebsocketCommunicator(
        application,
        f"/ws/table/{table_id}/",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1"), cookie],
    )
    comm.scope["client"] = [address, 50000]
    connected, code = await comm.connect(timeout=5)
    if not connected:
        return False, code
    first = await comm.receive_output(timeout=5)
    if first["type"] == "websocket.close":
        # Accepted, then closed with its code and reason: the page is told, and does not retry.
        assert first.get("reason", "").startswith("too many table pages open")
        return False, first.get("code")
    await comm.disconnect()
    return True, None


async def test_one_socket_past_the_accounts_limit_is_refused_and_a_closed_one_frees_its_place(
    backend, settings
) -> None:
    settings.SOCKETS_PER_USER = 3
    ann, bob = [await sync_to_async(make_player)(name) for name in ("ann", "bob")]
    oak = await sync_to_async(make_table)(name="oak")
    open_ = [await connect(ann, oak.pk) for _ in range(3)]
    assert await try_connect(ann, oak.pk) == (False, TOO_MANY)
    assert (await try_connect(bob, oak.pk))[0]  # another account is not held up by ann's
    await open_[0].comm.disconnect()
    viewer = await connect(ann, oak.pk)  # a place is free again
    assert await try_connect(ann, oak.pk) == (False, TOO_MANY)  # and the refused one took none
    for each in (*open_[1:], viewer):
        await each.comm.disconnect()


async def test_one_socket_past_the_addresss_limit_is_refused(backend, settings) -> None:
    settings.SOCKETS_PER_USER, settings.SOCKETS_PER_ADDRESS = 100, 2
    players = [await sync_to_async(make_player)(name) for name in ("ann", "bob", "cem")]
    oak = await sync_to_async(make_table)(name="oak")
    first = await socket_counts.claim(socket_id="elsewhere-1", user_id=None, address="203.0.113.7")
    second = await socket_counts.claim(socket_id="elsewhere-2", user_id=None, address="203.0.113.7")
    assert first is None and second is None
    assert await try_connect(players[0], oak.pk) == (False, TOO_MANY)
    assert (await try_connect(players[1], oak.pk, address="198.51.100.1"))[0]
    await socket_counts.release(socket_id="elsewhere-1")
    assert (await try_connect(players[2], oak.pk))[0]
    await socket_counts.release(socket_id="elsewhere-2")


async def test_places_held_by_another_process_count_until_it_stops_vouching(redis_url, settings) -> None:
    settings.REDIS_URL = redis_url
    settings.SOCKETS_PER_USER = 2
    ann = await sync_to_async(make_player)("ann")
    oak = await sync_to_async(make_table)(name="oak")
    for n in range(2):  # another process's sockets: in Redis, not in this process's list
        assert await socket_counts.claim(socket_id=f"other-{n}", user_id=ann.pk, address=None) is None
    socket_counts.forget_local()
    assert await try_connect(ann, oak.pk) == (False, TOO_MANY)
    # That process died: from STALE seconds after its last word its places are free.
    key = f"{settings.LIVE_STATE_PREFIX}sockets:user:{ann.pk}"
    from games.live.store import get_state_store

    store = get_state_store()
    long_ago = time.time() - socket_counts.STALE - 1
    await store.client.zadd(key, {"other-0": long_ago, "other-1": long_ago})
    assert (await try_connect(ann, oak.pk))[0]


async def test_two_claims_for_the_last_place_at_once_let_one_in(redis_url, settings) -> None:
    import asyncio

    settings.REDIS_URL = redis_url
    settings.SOCKETS_PER_USER = 1
    answers = await asyncio.gather(
        *(socket_counts.claim(socket_id=f"s{n}", user_id=7, address=None) for n in range(10))
    )
    assert sum(answer is None for answer in answers) == 1
    assert {answer.over for answer in answers if answer is not None} == {"user"}
    for n in range(10):
        await socket_counts.release(socket_id=f"s{n}")
