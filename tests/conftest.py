"""Shared fixtures.

Services: a test that needs Redis or PostgreSQL asks for the ``redis_url`` or ``postgres_db``
fixture, which use only what ``REDIS_URL`` and ``DATABASE_URL`` name: never a server that merely
happens to run on the machine, whose data is not the tests' to write. A missing service skips
the test with the reason, as on a new user's machine; with ``SVARA_SERVICES=required`` (CI's run
on PostgreSQL and Redis) it fails instead, because there every service must be there. Chromium is
installed by CI for both of its runs, so under ``CI=true`` a missing browser fails too.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
SERVICES_REQUIRED = os.environ.get("SVARA_SERVICES", "").lower() == "required"


def service_missing(reason: str, *, required: bool | None = None) -> None:
    """Skip the test, or fail it where the service must be there: a missing service must never
    pass silently in CI's run on the services. ``required`` defaults to ``SVARA_SERVICES=required``."""
    if SERVICES_REQUIRED if required is None else required:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_url() -> str:
    import redis

    url = os.environ.get("REDIS_URL", "")
    if not url:
        service_missing("needs Redis: set REDIS_URL=redis://...")
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
    from games.live import presence, socket_counts, watch

    settings.LIVE_STATE_PREFIX = f"svara:test:{uuid.uuid4().hex}:"
    store_module._memory_store = None
    presence.forget_local()
    socket_counts.forget_local()
    watch.forget_local()
    yield
    store_module._memory_store = None
    presence.forget_local()
    socket_counts.forget_local()
    watch.forget_local()


@pytest.fixture(autouse=True)
def stop_turn_clocks(request: pytest.FixtureRequest) -> None:
    """Every coroutine test gets ``_stopped_turn_clocks``, wherever it lives: a clock left running
    fails later tests at teardown. Synchronous tests (the browser's among them, whose Playwright
    runs a loop of its own) open no table socket on a loop of the test's, and get nothing."""
    if inspect.iscoroutinefunction(getattr(request, "function", None)):
        request.getfixturevalue("_stopped_turn_clocks")


@pytest.fixture
async def _stopped_turn_clocks() -> AsyncIterator[None]:
    """A test that connects a table socket starts this loop's turn clock: stop it with the test,
    and let the commands its sockets sent finish (a hand's settlement may outlive the sockets),
    or the database would be flushed under a running transaction."""
    yield
    from games.live import runtime
    from games.tables.consumers import drain_commands

    await runtime.stop_clocks()
    await drain_commands()


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
