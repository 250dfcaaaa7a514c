"""Where the room's Redis is: a plain URL, or Redis Sentinel (sentinel addresses and a master name).

One setting, ``REDIS_URL``, says either:

- ``redis://[:password@]host:6379/0`` (or ``rediss://``, ``unix://``): that server;
- ``redis+sentinel://[:password@]host1:26379,host2:26379/master-name/0``: ask those sentinels
  which server is the master named ``master-name`` (database 0), and ask again after a failover.
  The password, if any, is the data servers'; the sentinels are asked without one.

The state store, the channel layer and the cache all make their clients here, so one URL
serves them all and a failover moves them together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.sentinel import Sentinel as AsyncSentinel
from redis.sentinel import Sentinel, SentinelConnectionPool

SENTINEL_SCHEME = "redis+sentinel"
PLAIN_SCHEMES = ("redis", "rediss", "unix")


@dataclass(frozen=True)
class SentinelTarget:
    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int
    password: str | None


def parse_sentinel_url(url: str) -> SentinelTarget:
    """The parts of a ``redis+sentinel://`` URL; ``ValueError`` saying what is wrong."""
    parts = urlsplit(url)
    if parts.scheme != SENTINEL_SCHEME:
        raise ValueError(f"not a {SENTINEL_SCHEME}:// URL")
    credentials, _, hosts = parts.netloc.rpartition("@")
    password = unquote(credentials.partition(":")[2]) if credentials else None
    sentinels = []
    for address in hosts.split(","):
        host, _, port = address.strip().rpartition(":")
        if not host or not port.isascii() or not port.isdigit():
            raise ValueError(f"sentinel address {address!r} is not host:port")
        sentinels.append((host.strip("[]"), int(port)))
    path = [p for p in parts.path.split("/") if p]
    if not path or len(path) > 2:
        raise ValueError("the path must be /master-name or /master-name/db")
    db = path[1] if len(path) == 2 else "0"
    if not db.isascii() or not db.isdigit():
        raise ValueError(f"database {db!r} is not a number")
    return SentinelTarget(sentinels=tuple(sentinels), master=unquote(path[0]), db=int(db), password=password)


def check_url(url: str) -> str:
    """``url`` unchanged when it is one of the two forms; ``ValueError`` otherwise."""
    scheme = urlsplit(url).scheme
    if scheme == SENTINEL_SCHEME:
        parse_sentinel_url(url)
    elif scheme not in PLAIN_SCHEMES:
        raise ValueError(f"must start with redis://, rediss://, unix:// or {SENTINEL_SCHEME}://")
    return url


def async_client(url: str, **options: Any) -> aioredis.Redis:
    """A redis.asyncio client for ``url`` (the state store's)."""
    if urlsplit(url).scheme != SENTINEL_SCHEME:
        return aioredis.Redis.from_url(url, **options)
    target = parse_sentinel_url(url)
    sentinel = AsyncSentinel(list(target.sentinels), socket_timeout=options.get("socket_timeout"))
    return sentinel.master_for(target.master, db=target.db, password=target.password, **options)


def sync_client(url: str, **options: Any) -> redis.Redis:
    """A redis-py client for ``url`` (health checks, tools)."""
    if urlsplit(url).scheme != SENTINEL_SCHEME:
        return redis.Redis.from_url(url, **options)
    target = parse_sentinel_url(url)
    sentinel = Sentinel(list(target.sentinels), socket_timeout=options.get("socket_timeout"))
    return sentinel.master_for(target.master, db=target.db, password=target.password, **options)


def channel_layer_host(url: str, **options: Any) -> dict[str, Any]:
    """One entry of channels-redis's ``hosts`` (both its layers take sentinels this way)."""
    if urlsplit(url).scheme != SENTINEL_SCHEME:
        return {"address": url, **options}
    target = parse_sentinel_url(url)
    return {
        "sentinels": list(target.sentinels),
        "master_name": target.master,
        "db": target.db,
        "password": target.password,
        **options,
    }


class SentinelPool(SentinelConnectionPool):
    """Django's Redis cache makes its pools with ``pool_class.from_url(LOCATION)``: this one reads
    a ``redis+sentinel://`` URL (``OPTIONS={"pool_class": ...}``)."""

    @classmethod
    def from_url(cls, url: str, **options: Any) -> SentinelPool:
        target = parse_sentinel_url(url)
        options.setdefault("db", target.db)
        if target.password is not None:
            options.setdefault("password", target.password)
        return cls(target.master, Sentinel(list(target.sentinels)), **options)
