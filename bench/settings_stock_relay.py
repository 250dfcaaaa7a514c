"""The site's settings with channels-redis's own layer at its defaults, for the stock relay
(bench/relay_stock_asgi.py): the bare stack the throughput target's floor was first measured on.

Its defaults: every message a sorted-set entry popped by the receiving process, at most 100 queued
per channel (more are dropped, which the bench counts as losses), expiring after 60 s.
"""

from svara_site.settings import *  # noqa: F403
from svara_site.settings import LIVE_STATE_PREFIX, REDIS_URL

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": f"{LIVE_STATE_PREFIX}asgi"},
    }
}
