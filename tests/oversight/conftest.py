"""The oversight pages cache what they compute in the room's cache (Redis on the services, shared
by the whole run): each test starts without the figures an earlier test left there."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from games.oversight import dashboard
from games.oversight.patterns import DAYS
from games.oversight.views import PATTERNS_KEY


@pytest.fixture(autouse=True)
def _nothing_cached():
    keys = [dashboard.ROOM_KEY, dashboard.AUDIT_KEY, *(PATTERNS_KEY.format(days=d) for d in DAYS)]
    cache.delete_many(keys)
    yield
    cache.delete_many(keys)
