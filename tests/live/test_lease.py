"""One table worker at a time (games/live/lease.py): the lease itself on a real Redis, then two
real ``run_table_clock`` processes, the second standing by until the first is killed."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
import redis

from bench import harness as procs
from deploy.local import free_port
from games.live.lease import WorkerLease
from tests.live.test_multiprocess import delete_prefix


async def test_one_holder_at_a_time_and_the_next_after_it_stops_renewing(redis_url: str) -> None:
    prefix = f"test:lease:{uuid.uuid4().hex}:"
    first = WorkerLease.from_url(redis_url, prefix=prefix, seconds=0.5)
    second = WorkerLease.from_url(redis_url, prefix=prefix, seconds=0.5)
    try:
        assert await first.acquire()
        assert not await second.acquire()
        assert await second.held_by() == first.holder
        await asyncio.sleep(0.3)
        assert await first.renew()  # renewed: still its own after the first half-second
        await asyncio.sleep(0.3)
        assert not await second.acquire()
        await asyncio.sleep(0.6)  # the first stopped renewing (it died)
        assert await second.acquire()
        assert not await first.renew()  # and it finds out, without taking it back
        assert not await first.acquire()
        await first.release()  # releasing what it does not hold changes nothing
        assert await second.held_by() == second.holder
    finally:
        await second.release()
        await first.aclose()
        await second.aclose()


@pytest.mark.timeout(120)
def test_a_second_worker_stands_by_and_takes_over_when_the_first_is_killed(
    redis_url: str, postgres_db: None, tmp_path: Path
) -> None:
    prefix = f"svara:lease:{uuid.uuid4().hex}:"
    database_url = procs.fresh_database(os.environ["DATABASE_URL"], stem="svara_lease")
    env = procs.server_env(
        database_url=database_url,
        redis_url=redis_url,
        prefix=prefix,
        LIVE_TABLE_WORKER="1",
        WORKER_LEASE_SECONDS="2",
    )
    workers: list[procs.TableWorker] = []
    try:
        procs.manage(env, "migrate", "--noinput")
        workers.append(procs.TableWorker.start(env=env, log=tmp_path / "first.log"))
        workers.append(procs.TableWorker.start(env=env, log=tmp_path / "second.log", ready="standing by"))
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        held = client.get(f"{prefix}worker")
        assert held and held in workers[0].log.read_text()
        assert "table clock running" not in workers[1].log.read_text()

        workers[0].kill()
        procs.wait_until(
            lambda: workers[1].says("table clock running"), timeout=10, what="the standby's takeover"
        )
        assert client.get(f"{prefix}worker") in workers[1].log.read_text()
        assert "Traceback" not in workers[1].log.read_text()
    finally:
        for worker in workers:
            worker.stop()
        delete_prefix(redis_url, prefix)
        procs.drop_database(database_url)


def worker_metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return response.read().decode()


@pytest.mark.timeout(120)
def test_a_worker_stopped_with_sigterm_releases_the_lease_and_the_standby_takes_it_at_once(
    redis_url: str, postgres_db: None, tmp_path: Path
) -> None:
    """systemd stops the worker with SIGTERM: it must release its lease as on SIGINT, so the
    standby does not wait the whole lease out (15 s, every table frozen meanwhile)."""
    prefix = f"svara:lease:{uuid.uuid4().hex}:"
    database_url = procs.fresh_database(os.environ["DATABASE_URL"], stem="svara_lease")
    env = procs.server_env(
        database_url=database_url,
        redis_url=redis_url,
        prefix=prefix,
        LIVE_TABLE_WORKER="1",
        WORKER_LEASE_SECONDS="15",
        WORKER_METRICS_PORT=str(port := free_port()),
    )
    workers: list[procs.TableWorker] = []
    try:
        procs.manage(env, "migrate", "--noinput")
        workers.append(procs.TableWorker.start(env=env, log=tmp_path / "first.log"))
        workers.append(procs.TableWorker.start(env=env, log=tmp_path / "second.log", ready="standing by"))
        # The worker's own metrics, on the loopback: it holds the lease.
        assert "svara_worker_lease_held 1.0" in worker_metrics(port)

        signal_sent = time.monotonic()
        os.kill(workers[0].proc.pid, signal.SIGTERM)
        assert workers[0].proc.wait(timeout=10) == 0, workers[0].tail()
        procs.wait_until(
            lambda: workers[1].says("table clock running"), timeout=8, what="the standby's takeover"
        )
        # The standby polls every second; waiting the lease out would take 15 s.
        assert time.monotonic() - signal_sent < 5
        assert "Traceback" not in workers[0].log.read_text()
        # The standby serves the metrics now (the port was the stopped worker's).
        procs.wait_until(lambda: workers[1].says("metrics on"), timeout=12, what="the standby's metrics")
        assert "svara_deadline_lateness_seconds_count" in worker_metrics(port)
    finally:
        for worker in workers:
            worker.stop()
        delete_prefix(redis_url, prefix)
        procs.drop_database(database_url)
