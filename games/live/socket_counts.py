"""How many table sockets one account and one address hold open, in every process: a limit on both.

Every table socket renders its own view on each change of its table, so one account with hundreds
of sockets multiplied the cost of every change (issue 37: 300 of 300 opened, about 120 MB a
process). A socket claims a place under its account and its address before it is accepted; one past
``SOCKETS_PER_USER`` or ``SOCKETS_PER_ADDRESS`` is refused, closed with ``TOO_MANY_CLOSE_CODE``.

With Redis the places of every process are in one sorted set per account and per address, under
the live prefix, and a Lua script checks and claims in one step, so two processes cannot both take
the last place. A place is scored by when its process last vouched for it (the sweep vouches every
few seconds, as for ``presence``): a process that died without closing its sockets frees their
places after ``STALE`` seconds. Without Redis the one process's own list is the whole room.

A limit, not a record: a Redis error is logged and the socket is let in (the table needs Redis
anyway, and refusing every player because a count failed is worse than one flood).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

import redis
from django.conf import settings

from games.live.store import RedisStateStore, get_state_store

log = logging.getLogger(__name__)

STALE = 30.0  # seconds without a word from a socket's process before its place is free again
# 4429: "too many", the application's range (as 4008 is; HTTP's 429 means the same).
TOO_MANY_CLOSE_CODE = 4429

# Check every key first, then claim in all of them: a refusal claims nothing.
_CLAIM_LUA = """
local now = tonumber(ARGV[1])
local cutoff = tonumber(ARGV[2])
local member = ARGV[3]
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. cutoff)
  if redis.call('ZSCORE', key, member) == false
     and redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then
    return i
  end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, member)
  redis.call('EXPIRE', key, math.ceil(tonumber(ARGV[#ARGV])))
end
return 0
"""


@dataclass(frozen=True)
class TooMany:
    """Why a socket was refused: ``over`` is "user" or "address", ``limit`` the number allowed."""

    over: str
    limit: int


# This process's places: socket (channel name) -> the keys it holds a place in.
_local: dict[str, tuple[str, ...]] = {}
_lock = threading.Lock()


def limits() -> tuple[int, int]:
    """(per account, per address), from the settings: a player with a few tables open in a few
    tabs is far below the first; a household or an office behind one address below the second."""
    return int(settings.SOCKETS_PER_USER), int(settings.SOCKETS_PER_ADDRESS)


def _keys(*, prefix: str, user_id: int | None, address: str | None) -> list[tuple[str, str, int]]:
    per_user, per_address = limits()
    keys = []
    if user_id is not None and per_user > 0:
        keys.append((f"{prefix}sockets:user:{user_id}", "user", per_user))
    if address and per_address > 0:
        keys.append((f"{prefix}sockets:addr:{address}", "address", per_address))
    return keys


def _redis_store() -> RedisStateStore | None:
    store = get_state_store()
    return store if isinstance(store, RedisStateStore) else None


async def claim(*, socket_id: str, user_id: int | None, address: str | None) -> TooMany | None:
    """Take a place for this socket under its account and address; ``TooMany`` if either is full
    (nothing is taken then). Call ``release`` when the socket closes, whatever the answer."""
    store = _redis_store()
    prefix = store.prefix if store is not None else settings.LIVE_STATE_PREFIX
    keys = _keys(prefix=prefix, user_id=user_id, address=address)
    if not keys:
        return None
    if store is None:
        return _claim_here(socket_id=socket_id, keys=keys)
    now = time.time()
    args = [now, now - STALE, socket_id, *(limit for _key, _over, limit in keys), STALE * 4]
    try:
        refused = int(await store.client.eval(_CLAIM_LUA, len(keys), *(k for k, _o, _l in keys), *args))
    except (redis.RedisError, OSError):
        log.warning("socket counts: could not count socket %s; let in", socket_id, exc_info=True)
        return None
    if refused:
        _key, over, limit = keys[refused - 1]
        return TooMany(over=over, limit=limit)
    with _lock:
        _local[socket_id] = tuple(k for k, _o, _l in keys)
    return None


def _claim_here(*, socket_id: str, keys: list[tuple[str, str, int]]) -> TooMany | None:
    with _lock:
        held: dict[str, int] = {}
        for places in _local.values():
            for key in places:
                held[key] = held.get(key, 0) + 1
        for key, over, limit in keys:
            if held.get(key, 0) >= limit:
                return TooMany(over=over, limit=limit)
        _local[socket_id] = tuple(k for k, _o, _l in keys)
    return None


async def release(*, socket_id: str) -> None:
    """Give back the socket's places (nothing if it held none)."""
    with _lock:
        keys = _local.pop(socket_id, ())
    store = _redis_store()
    if store is None or not keys:
        return
    try:
        pipe = store.client.pipeline(transaction=False)
        for key in keys:
            pipe.zrem(key, socket_id)
        await pipe.execute()
    except (redis.RedisError, OSError):
        log.warning("socket counts: could not free the places of socket %s", socket_id, exc_info=True)


async def vouch() -> None:
    """Say again that this process's sockets are open (the sweep calls it every few seconds)."""
    store = _redis_store()
    with _lock:
        mine = dict(_local)
    if store is None or not mine:
        return
    now = time.time()
    pipe = store.client.pipeline(transaction=False)
    for socket_id, keys in mine.items():
        for key in keys:
            pipe.zadd(key, {socket_id: now})
            pipe.expire(key, int(STALE * 4))
    await pipe.execute()


def forget_local() -> None:
    """Forget this process's places (tests: a new test is a new process)."""
    with _lock:
        _local.clear()
