"""The channel layer's and the cache's Redis settings: which layer, on which Redis (a URL or
Redis Sentinel: games/live/redis_target.py), under which key prefix."""

from __future__ import annotations

from typing import Any

from games.live.redis_target import SENTINEL_SCHEME, channel_layer_host, check_url
from svara_site.config import stop


def check_redis_url(url: str) -> str:
    """``REDIS_URL`` as given, or start-up stops naming it; '' (unset) means no Redis."""
    if not url:
        return url
    try:
        return check_url(url)
    except ValueError as exc:
        stop(
            "REDIS_URL",
            f"{exc}: {SENTINEL_SCHEME}://host1:26379,host2:26379/master-name/0 or redis://host:6379/0",
        )


def cache_options(url: str) -> dict[str, Any]:
    """The Redis cache's extra settings for ``url``: a pool that asks the sentinels, when it names them."""
    if url.startswith(f"{SENTINEL_SCHEME}://"):
        return {"OPTIONS": {"pool_class": "games.live.redis_target.SentinelPool"}}
    return {}


def channel_layers(*, redis_url: str, state_prefix: str, kind: str = "pubsub") -> dict[str, Any]:
    """``CHANNEL_LAYERS`` for a process: in memory without Redis, else channels-redis's Pub/Sub
    layer (``kind="core"``: its original one).

    The layer's names start with the live-state prefix: Pub/Sub channels belong to the whole
    Redis server, not to a database number, so two rooms (or a test run and a benchmark) on one
    Redis under the layer's default prefix heard each other's table announcements, and showed
    each other's tables.
    """
    if not redis_url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    prefix = f"{state_prefix}asgi"
    if kind == "core":
        # The original layer: each message a sorted-set entry that the receiving process pops with
        # four round trips, one message at a time (measured in bench/load.py: updates queued for
        # seconds behind that loop at 200 tables).
        return {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {
                    # socket_timeout=None: the layer blocks 5 s on receive, so a 5 s socket timeout
                    # kills idle consumers (channels_redis issue 422); the pool must outgrow busy tables.
                    "hosts": [channel_layer_host(redis_url, socket_timeout=None, max_connections=1000)],
                    # capacity is per process, not per socket; drops are silent past it.
                    "capacity": 5000,
                    "expiry": 30,
                    "prefix": prefix,
                },
            }
        }
    # Redis Pub/Sub (the default here): a group message is one PUBLISH, pushed to every subscribed
    # process at once. At most once, like every layer: a table update is only a hint, and a socket
    # that misses one catches up by the version.
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [channel_layer_host(redis_url)], "prefix": prefix},
        }
    }
