"""Fixtures for the live state store: one contract, two backends.

``make_store`` returns a function that makes store instances sharing one backend: on Redis each
call opens a new client (its own connections) on the same unique key prefix, which is how several
processes see one store; in memory every call returns the same store, which is all one process has.
Redis keys are removed by prefix afterwards, never with FLUSHDB: other tests share that Redis.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import redis.asyncio as aioredis

from games.live import process
from games.live.store import MemoryStateStore, RedisStateStore, StateStore

MakeStore = Callable[[], StateStore]


@pytest.fixture
def redis_prefix() -> str:
    return f"test:live:{uuid.uuid4().hex}:"


async def _delete_prefix(url: str, prefix: str) -> None:
    client = aioredis.Redis.from_url(url, decode_responses=True)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=500)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@pytest.fixture(params=["memory", "redis"])
async def make_store(request: pytest.FixtureRequest, redis_prefix: str) -> AsyncIterator[MakeStore]:
    if request.param == "memory":
        memory = MemoryStateStore()
        yield lambda: memory
        return

    url: str = request.getfixturevalue("redis_url")
    opened: list[RedisStateStore] = []

    def make() -> StateStore:
        store = RedisStateStore.from_url(url, prefix=redis_prefix)
        opened.append(store)
        return store

    try:
        yield make
    finally:
        for store in opened:
            await store.aclose()
        await _delete_prefix(url, redis_prefix)


@pytest.fixture
def store(make_store: MakeStore) -> StateStore:
    return make_store()


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest, settings) -> str:
    """The room's own store, as the settings choose it: in memory, then on Redis."""
    if request.param == "redis":
        settings.REDIS_URL = request.getfixturevalue("redis_url")
    return request.param


class FakeTime:
    """A clock that stands still until a test moves it (``at``): the table's timers then fire when
    the test says, not seconds later."""

    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


@pytest.fixture
def fake_time() -> Iterator[FakeTime]:
    """Every command and turn clock of this process reads the test's clock (process.time_source)."""
    clock = FakeTime(time.time())
    with process.time_source(clock):
        yield clock
