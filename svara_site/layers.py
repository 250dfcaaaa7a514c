"""The channel layer's settings: which layer, on which Redis, under which key prefix."""

from __future__ import annotations

from typing import Any


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
                    "hosts": [{"address": redis_url, "socket_timeout": None, "max_connections": 1000}],
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
            "CONFIG": {"hosts": [{"address": redis_url}], "prefix": prefix},
        }
    }
