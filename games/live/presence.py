"""Who has a table open now: the table sockets of every process, counted for the staff's dashboard.

A table socket says when it opens and when it closes. In memory (one process) this process's own
list is the whole room. With Redis every process adds its sockets to one sorted set under the live
prefix, scored by when the process last vouched for them; the sweep vouches every few seconds
(``vouch``), so the sockets of a process that died without closing them stop counting after
``STALE`` seconds instead of forever.

Each socket also names its table, so a player's friends can see at which table they are
(``tables_of``; games/social/friends.py keeps the public ones).

A count, not a record: a Redis error is logged and the socket carries on.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import redis

from games.live.store import RedisStateStore, get_state_store

log = logging.getLogger(__name__)

STALE = 30.0  # seconds without a word from a socket's process before it stops counting

# This process's open table sockets: socket (channel name) -> (user id, table id). Written on the
# sockets' loop, read by the dashboard's thread in the memory setup.
_local: dict[str, tuple[int, int]] = {}
_lock = threading.Lock()
_sync_clients: dict[str, Any] = {}


@dataclass(frozen=True)
class Online:
    sockets: int  # table sockets open, a player's or a spectator's
    people: int  # distinct accounts behind them


def _key(prefix: str) -> str:
    return f"{prefix}presence"


def _member(socket_id: str, user_id: int, table_id: int) -> str:
    return f"{user_id}:{table_id}:{socket_id}"


def _user_and_table(member: str) -> tuple[int, int] | None:
    user, _sep, rest = member.partition(":")
    table = rest.partition(":")[0]
    if not user.isdigit():
        return None
    # A process from before tables were named ("user:socket") still counts, at no table (0).
    return int(user), int(table) if table.isdigit() else 0


def _redis_store() -> RedisStateStore | None:
    store = get_state_store()
    return store if isinstance(store, RedisStateStore) else None


async def socket_opened(*, socket_id: str, user_id: int, table_id: int) -> None:
    with _lock:
        _local[socket_id] = (user_id, table_id)
    store = _redis_store()
    if store is None:
        return
    try:
        await store.client.zadd(_key(store.prefix), {_member(socket_id, user_id, table_id): time.time()})
    except (redis.RedisError, OSError):
        log.warning("presence: could not count socket %s", socket_id, exc_info=True)


async def socket_closed(*, socket_id: str) -> None:
    with _lock:
        opened = _local.pop(socket_id, None)
    store = _redis_store()
    if store is None or opened is None:
        return
    try:
        await store.client.zrem(_key(store.prefix), _member(socket_id, *opened))
    except (redis.RedisError, OSError):
        log.warning("presence: could not uncount socket %s", socket_id, exc_info=True)


async def vouch() -> None:
    """Say again that this process's sockets are open (the sweep calls it every few seconds)."""
    store = _redis_store()
    with _lock:
        mine = dict(_local)
    if store is None or not mine:
        return
    now = time.time()
    await store.client.zadd(_key(store.prefix), {_member(s, u, t): now for s, (u, t) in mine.items()})


def _open_sockets(now: float | None) -> list[tuple[int, int]] | None:
    """(user id, table id) of every table socket open in the room; None when Redis does not answer."""
    from django.conf import settings

    url: str = getattr(settings, "REDIS_URL", "") or ""
    if not url:
        with _lock:
            return list(_local.values())
    key = _key(getattr(settings, "LIVE_STATE_PREFIX", ""))
    cutoff = (time.time() if now is None else now) - STALE
    try:
        pipe = _sync_client(url).pipeline()
        pipe.zremrangebyscore(key, "-inf", f"({cutoff}")
        pipe.zrange(key, 0, -1)
        members = pipe.execute()[1]
    except (redis.RedisError, OSError):
        log.warning("presence: could not read the count", exc_info=True)
        return None
    return [pair for pair in map(_user_and_table, members) if pair is not None]


def online(*, now: float | None = None) -> Online | None:
    """The table sockets open in the room and the accounts behind them; None when Redis does not
    answer. Synchronous, for pages."""
    sockets = _open_sockets(now)
    if sockets is None:
        return None
    return Online(sockets=len(sockets), people=len({user for user, _table in sockets}))


def tables_of(*, user_ids: set[int] | frozenset[int], now: float | None = None) -> dict[int, set[int]]:
    """The tables each of these players has open now (as a player or a spectator); a player with
    none is left out. Empty when Redis does not answer: nobody is shown at a table."""
    found: dict[int, set[int]] = {}
    for user, table in _open_sockets(now) or []:
        if user in user_ids:
            found.setdefault(user, set()).add(table)
    return found


def _sync_client(url: str) -> Any:
    from games.live.redis_target import sync_client

    with _lock:
        client = _sync_clients.get(url)
        if client is None:
            client = _sync_clients[url] = sync_client(url, decode_responses=True, socket_timeout=2.0)
        return client


def forget_local() -> None:
    """Tests: start from no sockets (a test's sockets belong to its own store)."""
    with _lock:
        _local.clear()
