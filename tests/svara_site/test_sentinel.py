"""Redis Sentinel for real: a master, a replica and a sentinel (``redis-server --sentinel``) of our
own on free ports in a temporary directory. The state store, the channel layer, the worker's lease
and the cache reach the master through ``redis+sentinel://`` and find the new one after a failover."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from games.live.redis_target import parse_sentinel_url, sync_client
from games.live.store import RedisStateStore
from svara_site.layers import cache_options, channel_layers
from tests.conftest import service_missing

pytestmark = pytest.mark.timeout(120)
MASTER = "svara-test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Sentinels:
    url: str
    sentinel_port: int
    ports: list[int]

    def master_port(self) -> int:
        from redis.sentinel import Sentinel

        return int(Sentinel([("127.0.0.1", self.sentinel_port)]).discover_master(MASTER)[1])


def _wait(predicate, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (redis.RedisError, OSError):
            pass
        time.sleep(0.2)
    raise TimeoutError(what)


@pytest.fixture(scope="module")
def sentinels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sentinels]:
    server = shutil.which("redis-server")
    if server is None:
        service_missing("needs redis-server (Debian's redis-server package) to run a sentinel")
    tmp: Path = tmp_path_factory.mktemp("sentinel")
    master, replica, sentinel = _free_port(), _free_port(), _free_port()
    common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp)]
    procs: list[subprocess.Popen[bytes]] = []
    logs = tmp / "redis.log"
    try:
        with logs.open("ab") as log:
            for port, extra in ((master, []), (replica, ["--replicaof", "127.0.0.1", str(master)])):
                procs.append(
                    subprocess.Popen([server, "--port", str(port), *common, *extra], stdout=log, stderr=log)
                )
            conf = tmp / "sentinel.conf"
            conf.write_text(
                f"port {sentinel}\nbind 127.0.0.1\ndir {tmp}\n"
                f"sentinel monitor {MASTER} 127.0.0.1 {master} 1\n"
                f"sentinel down-after-milliseconds {MASTER} 1000\n"
                f"sentinel failover-timeout {MASTER} 5000\n"
            )
            procs.append(subprocess.Popen([server, str(conf), "--sentinel"], stdout=log, stderr=log))
        _wait(
            lambda: redis.Redis(port=replica).info("replication")["master_link_status"] == "up", "the replica"
        )
        _wait(
            lambda: len(redis.Redis(port=sentinel).sentinel_slaves(MASTER)) >= 1,
            "the sentinel to see the replica",
        )
        yield Sentinels(
            url=f"redis+sentinel://127.0.0.1:{sentinel}/{MASTER}/0",
            sentinel_port=sentinel,
            ports=[master, replica],
        )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_sentinel_url_is_read_whole() -> None:
    target = parse_sentinel_url("redis+sentinel://:s%40cret@10.0.0.1:26379,[::1]:26380/room-1/3")
    assert target.sentinels == (("10.0.0.1", 26379), ("::1", 26380))
    assert (target.master, target.db, target.password) == ("room-1", 3, "s@cret")
    for bad in (
        "redis+sentinel://h:26379",
        "redis+sentinel://h/m",
        "redis+sentinel://h:1/m/x",
        "redis://h/0",
    ):
        with pytest.raises(ValueError):
            parse_sentinel_url(bad)


async def _store_round_trip(url: str, table: str) -> dict:
    store = RedisStateStore.from_url(url, prefix=f"svara:sentinel:{uuid.uuid4().hex}:")
    try:
        await store.create(table, {"hand": None, "n": 1})
        got = await store.get(table)
        assert got is not None
        return got.doc
    finally:
        await store.aclose()


async def _layer_round_trip(url: str) -> dict:
    from django.utils.module_loading import import_string

    config = channel_layers(redis_url=url, state_prefix=f"svara:sentinel:{uuid.uuid4().hex}:")["default"]
    layer = import_string(config["BACKEND"])(**config["CONFIG"])
    try:
        channel = await layer.new_channel()
        await layer.group_add("table.1", channel)
        heard = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0.3)
        await layer.group_send("table.1", {"type": "table.version", "version": 7})
        return await asyncio.wait_for(heard, 5)
    finally:
        await layer.flush()


async def _lease_round_trip(url: str) -> bool:
    from games.live.lease import WorkerLease

    lease = WorkerLease.from_url(url, prefix=f"svara:sentinel:{uuid.uuid4().hex}:", seconds=5)
    try:
        taken = await lease.acquire()
        await lease.release()
        return taken
    finally:
        await lease.aclose()


def test_the_store_the_layer_and_the_cache_reach_the_master_and_follow_a_failover(
    sentinels: Sentinels,
) -> None:
    from django.core.cache.backends.redis import RedisCache

    before = sentinels.master_port()
    assert asyncio.run(_store_round_trip(sentinels.url, "1")) == {"hand": None, "n": 1}
    assert asyncio.run(_layer_round_trip(sentinels.url))["version"] == 7
    assert asyncio.run(_lease_round_trip(sentinels.url))  # the table worker's lease
    cache = RedisCache(sentinels.url, {"KEY_PREFIX": "svara:sentinel:cache", **cache_options(sentinels.url)})
    cache.set("k", "v")
    assert cache.get("k") == "v"
    # It went to the master the sentinel names, and the replica copied it.
    assert redis.Redis(port=before).exists("svara:sentinel:cache:1:k")

    redis.Redis(port=sentinels.sentinel_port).execute_command("SENTINEL", "FAILOVER", MASTER)
    _wait(lambda: sentinels.master_port() != before, "the failover")
    after = sentinels.master_port()
    _wait(lambda: redis.Redis(port=after).info("replication")["role"] == "master", "the new master")

    # New clients (a process started after the failover) find the new master at once.
    assert asyncio.run(_store_round_trip(sentinels.url, "2")) == {"hand": None, "n": 1}
    assert asyncio.run(_layer_round_trip(sentinels.url))["version"] == 7
    # A client made before it asks the sentinels again: a command or two may fail in between.
    client = sync_client(sentinels.url, socket_timeout=2)
    _wait(lambda: client.set("svara:sentinel:after", "1"), "the old client to write to the new master")
    assert redis.Redis(port=after).get("svara:sentinel:after") == b"1"
    _wait(lambda: cache.set("k2", "v2") is None and cache.get("k2") == "v2", "the cache on the new master")
