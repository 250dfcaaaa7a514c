"""Shared fixtures.

Services: a test that needs Redis or PostgreSQL asks for the ``redis_url`` or ``postgres_db``
fixture. Outside CI a missing service skips the test with the reason; in CI (CI=true) it fails,
because there every service must be there.
"""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def service_missing(reason: str) -> None:
    """Skip outside CI, fail in CI: a missing service must never pass silently there."""
    if IN_CI:
        pytest.fail(f"required service missing in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_url() -> str:
    import redis

    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        service_missing(f"Redis not reachable at {url}: {exc}")
    return url


@pytest.fixture
def postgres_db(settings) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        service_missing("needs PostgreSQL: set DATABASE_URL=postgres://...")


@pytest.fixture(autouse=True)
def isolated_live_state(settings):
    """Each test gets its own live-state key prefix and a fresh memory store.

    Table ids restart with every test database, while Redis outlives test runs: without this a
    test could read a table left in the store by an earlier test or run.
    """
    import uuid

    import games.live.store as store_module

    settings.LIVE_STATE_PREFIX = f"svara:test:{uuid.uuid4().hex}:"
    store_module._memory_store = None
    yield
    store_module._memory_store = None


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the default language (English).

    Django's test client runs LocaleMiddleware in the test's own thread, and nothing deactivates
    the language it chose: after a request with ``Accept-Language: bg`` the next test would word
    everything it computes (card labels, log lines) in Bulgarian.
    """
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()
