"""What the night shift sees (issue 31): ``/metrics`` (prometheus_client's text, parsed back
here), ``/healthz`` naming the worker and the tables stuck past their deadline, JSON log lines
with nginx's request id and a line for each socket opened and closed."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import websockets
from django.db import connections
from django.test import Client
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from bench import harness as procs
from games.live import runtime, service
from games.live.lease import WorkerLease
from games.live.store import Deadline, get_state_store
from svara_site import health
from tests.live.test_service_hands import act, seated_table, to_act
from tests.svara_site.test_real_server import get


def scrape(client: Client, **headers: str) -> dict[str, float]:
    """``/metrics`` parsed by prometheus_client's own parser: sample name and labels -> value."""
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


def test_metrics_answer_the_loopback_and_the_token_only(settings: Any) -> None:
    client = Client()  # REMOTE_ADDR 127.0.0.1, no X-Forwarded-For: straight from this machine
    samples = scrape(client)
    for name in ("svara_moves_total", "svara_tables_in_store", "svara_tables_stuck", "process_open_fds"):
        assert name in samples, sorted(samples)[:50]
    assert samples["svara_tables_in_store"] == 0
    # Through nginx (it appends X-Forwarded-For) or from elsewhere: not found, like any unknown path.
    assert client.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 404
    settings.METRICS_TOKEN = "s3cret-token"
    remote = {"REMOTE_ADDR": "203.0.113.9"}
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}, **remote).status_code == 404
    assert (
        client.get("/metrics", headers={"Authorization": "Bearer s3cret-token"}, **remote).status_code == 200
    )


@pytest.mark.django_db(transaction=True)
async def test_moves_and_settlements_are_counted() -> None:
    def value(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    moves, settled = value("svara_moves_total"), value("svara_settlement_seconds_count")
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    await act(table, ann if first == ann.pk else bob, "fold")
    assert value("svara_moves_total") == moves + 1
    assert value("svara_settlement_seconds_count") == settled + 1
    assert value("svara_settlement_seconds_sum") > 0


async def healthz() -> tuple[int, dict[str, Any]]:
    """``health()`` in a thread, as Django runs it; that thread's database connection closed."""

    def run() -> tuple[int, dict[str, Any]]:
        try:
            return health.health()
        finally:
            connections.close_all()

    return await asyncio.to_thread(run)


async def corrupt_table(table_id: str, *, overdue: float) -> None:
    """A table document the clock cannot handle, its start deadline past: of a table's shape (one
    of the wrong shape is quarantined and rebuilt, tests/live/test_bad_records.py), but its seats
    lack their flags, as a bug would leave them."""
    store = get_state_store()
    at = time.time() - overdue
    doc = {
        "table": {"id": int(table_id), "stake": 10},
        "seats": [{"user_id": 1, "chips": 500}, {"user_id": 2, "chips": 500}],
        "hand": None,
        "ended": None,
        "timer": {"kind": "start", "at": at},
        "log": [],
        "action_ids": [],
    }
    await store.create(table_id, doc, deadline=Deadline(at=at))


@pytest.mark.django_db(transaction=True)
async def test_a_stuck_table_makes_healthz_degraded_and_shows_in_the_metrics() -> None:
    status, report = await healthz()
    assert status == 200 and report["status"] == "ok" and "tables" not in report  # no sweep yet
    await corrupt_table("990001", overdue=30)
    try:
        await runtime.sweep_overdue()
    finally:
        runtime._failing.pop("990001", None)
    status, report = await healthz()
    assert status == 200 and report["status"] == "degraded"
    assert report["tables"]["status"] == "degraded" and report["tables"]["stuck_tables"] == ["990001"]
    assert report["tables"]["oldest_overdue_s"] >= 30
    samples = await asyncio.to_thread(scrape, Client())
    assert samples["svara_tables_stuck"] == 1 and samples["svara_tables_in_store"] == 1
    assert samples["svara_deadline_overdue_seconds"] >= 30


@pytest.mark.django_db(transaction=True)
async def test_healthz_names_the_worker_and_its_lease_age_on_redis(
    settings: Any, redis_url: str, postgres_db: None
) -> None:
    settings.REDIS_URL = redis_url
    settings.LIVE_TABLE_WORKER = True
    status, report = await healthz()
    # Nobody holds the lease: the serving processes' sweep fires deadlines, 5-10 s late.
    assert status == 200 and report["status"] == "degraded"
    assert report["worker"] == {"status": "degraded", "holder": None, "lease_age_s": None}

    lease = WorkerLease.from_url(redis_url, prefix=settings.LIVE_STATE_PREFIX)
    try:
        assert await lease.acquire()
        await corrupt_table("990002", overdue=20)
        try:
            await runtime.sweep_overdue()  # its report goes through Redis, for every process
        finally:
            runtime._failing.pop("990002", None)
        status, report = await healthz()
        assert report["worker"]["status"] == "ok" and report["worker"]["holder"] == lease.holder
        assert 0 <= report["worker"]["lease_age_s"] < 2
        assert report["tables"]["stuck_tables"] == ["990002"] and report["status"] == "degraded"
        samples = await asyncio.to_thread(scrape, Client())
        assert samples["svara_worker_lease_held"] == 1 and samples["svara_worker_lease_age_seconds"] < 2
        assert samples["svara_tables_stuck"] == 1
    finally:
        await lease.release()
        await lease.aclose()
        await get_state_store().delete("990002")


# ---------------------------------------------------------------- a real server's log lines


def test_json_log_lines_carry_the_request_id_and_each_socket_opens_and_closes(tmp_path: Path) -> None:
    env = procs.server_env(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        redis_url=None,
        prefix=f"svara:o:{uuid.uuid4().hex}:",
        LOG_FORMAT="json",
        SVARA_VAR_DIR=str(tmp_path),
    )
    procs.manage(env, "migrate", "--noinput", "-v", "0")
    server = procs.Daphne.start(env=env, log=tmp_path / "daphne.log")
    try:
        request = f"nginx-{uuid.uuid4().hex[:12]}"
        status, _body = get(f"http://127.0.0.1:{server.port}/healthz", **{"X-Request-ID": request})
        assert status == 200

        async def one_socket() -> None:
            url = f"{server.ws_base}/ws/ping/"
            async with websockets.connect(url, origin=server.origin, proxy=None, open_timeout=10) as ws:  # type: ignore[arg-type]
                await ws.send(json.dumps({"hello": 1}))
                await ws.recv()

        asyncio.run(one_socket())
        procs.wait_until(lambda: "closed" in server.tail(100_000), timeout=10, what="the close line")
        status, text = get(f"http://127.0.0.1:{server.port}/metrics")
    finally:
        server.stop()
    records = []
    for line in server.log.read_text().splitlines():
        if line.startswith("{"):
            records.append(json.loads(line))  # every line the room logged is one JSON object
    access = [r for r in records if r["logger"] == "svara.access"]
    assert {"time", "level", "logger", "message", "request_id"} <= set(access[0])
    (health_line,) = [r for r in access if "/healthz" in r["message"]]
    assert health_line["request_id"] == request and health_line["level"] == "INFO"
    opened = [r for r in access if "WS /ws/ping/ 101" in r["message"]]
    closed = [r for r in access if "WS /ws/ping/ closed" in r["message"]]
    assert len(opened) == len(closed) == 1 and opened[0]["request_id"] == closed[0]["request_id"]
    assert opened[0]["request_id"] not in ("-", request)  # a socket without nginx gets an id of its own
    assert status == 200
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in text_string_to_metric_families(text.decode())
        for s in f.samples
    }
    assert samples[("svara_sockets_opened_total", (("kind", "other"),))] == 1
    assert samples[("svara_sockets_open", (("kind", "other"),))] == 0
