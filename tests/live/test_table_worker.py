"""LIVE_TABLE_WORKER: serving processes run no clock and settle no hand; the worker does both.

In one process first (the service with the setting on, then as the worker), then with real
processes: two Daphne servers and ``manage.py run_table_clock`` on one Redis and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from accounts.services import seat_balance
from bench import harness as procs
from games.live import process, runtime, service
from games.live.clock import TurnClock
from games.live.store import get_state_store
from games.models import PlayedHand
from tests.live.test_multiprocess import Player, delete_prefix, hand_over, moves, sit_both, to_act
from tests.live.test_service_hands import act, audit_clean, seated_table
from tests.live.test_service_hands import to_act as user_to_act


@pytest.fixture
def serving_under_the_worker(settings: Any, redis_url: str, postgres_db: None) -> None:
    settings.REDIS_URL = redis_url  # the worker shares the tables through Redis
    settings.LIVE_TABLE_WORKER = True


@pytest.mark.django_db(transaction=True)
async def test_a_serving_process_leaves_the_hand_it_ended_to_the_worker(
    serving_under_the_worker: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert runtime.ensure_clock() is None  # the sweep alone: the worker fires the deadlines
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await user_to_act(table)
    folder = ann if first == ann.pk else bob
    state = await act(table, folder, "fold")

    # Ended here, not settled here: due for settling at once, the ledger untouched.
    assert state.doc["ended"] is not None and state.doc["timer"]["kind"] == "settle"
    assert state.deadline is not None and state.deadline.at <= time.time()
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.status != PlayedHand.Status.FINISHED
    assert await sync_to_async(seat_balance)(user=folder, table_id=table.pk) == 500

    # The worker's clock takes it on its next tick: settled, the next hand due after the pause.
    monkeypatch.setattr(process, "_worker", True)
    assert await TurnClock(get_state_store(), runtime.handle_due).tick() == 1
    state = await service.load_table_state(table.pk)
    assert state.doc["ended"] is None and state.doc["timer"]["kind"] == "start"
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.status == PlayedHand.Status.FINISHED
    assert await sync_to_async(seat_balance)(user=folder, table_id=table.pk) == 500 - 10  # the ante
    await sync_to_async(audit_clean)()


# ---------------------------------------------------------------- real processes


@pytest.fixture
def worker_cluster(redis_url: str, postgres_db: None, tmp_path: Path) -> Iterator[dict[str, Any]]:
    prefix = f"svara:worker:{uuid.uuid4().hex}:"
    database_url = procs.fresh_database(os.environ["DATABASE_URL"], stem="svara_worker")
    env = procs.server_env(
        database_url=database_url, redis_url=redis_url, prefix=prefix, LIVE_TABLE_WORKER="1"
    )
    started: dict[str, Any] = {"env": env, "servers": []}
    try:
        procs.manage(env, "migrate", "--noinput")
        started["servers"] = [procs.Daphne.start(env=env, log=tmp_path / f"daphne-{i}.log") for i in range(2)]
        started["worker"] = procs.TableWorker.start(env=env, log=tmp_path / "worker.log")
        yield started
    finally:
        for proc in [*started["servers"], started.get("worker")]:
            if proc is not None:
                proc.stop()
        delete_prefix(redis_url, prefix)
        procs.drop_database(database_url)


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.timeout(120)
async def test_the_worker_deals_and_settles_for_two_servers_and_the_sweep_stands_in_for_it(
    worker_cluster: dict[str, Any],
) -> None:
    env, servers, worker = worker_cluster["env"], worker_cluster["servers"], worker_cluster["worker"]
    tag = uuid.uuid4().hex[:6]
    made = procs.django_call(
        env, "seed", players=[f"ann{tag}", f"bob{tag}"], tables=[{"dark_play": False, "turn_seconds": 2}]
    )
    table_id = made["tables"][0]
    ann, bob = (Player(name=n, user_id=u["id"], cookie=u["cookie"]) for n, u in made["users"].items())
    try:
        await ann.connect(servers[0], table_id)
        await bob.connect(servers[1], table_id)
        await sit_both(ann, bob)
        # The start timer (3 s), fired by the worker's clock: the servers' sweep alone takes 8 s or more.
        first = await to_act([ann, bob], timeout=6)
        await first.act("fold")
        for p in (ann, bob):
            await p.until(hand_over, what="the result")
        # Settled by the worker, and the next hand dealt after the showdown pause (4 s).
        second_hand = await to_act([ann, bob], timeout=7)
        # Without the worker the servers' sweep still fires this hand's turn deadline (2 s), 5 s
        # late or more. Killed at once, before its clock could fire it; timed from the deal, as the
        # facts below take a subprocess's start (over a second on a loaded machine).
        dealt = time.monotonic()
        worker.kill()
        facts = procs.django_call(env, "facts", table=table_id, users=[ann.user_id, bob.user_id])
        assert [h["status"] for h in facts["hands"]][:1] == ["finished"]
        assert sorted(facts["seats"].values()) == [490, 510]
        assert facts["audit_ok"], facts["audit"]

        other = bob if second_hand is ann else ann
        await other.until(lambda f: "ran out of time" in f, what="the timeout, by the sweep", timeout=20)
        assert time.monotonic() - dealt >= 2 + runtime.OVERDUE_GRACE - 1
        # The player who ran out of time gets that frame too (it may come a moment after the other's).
        timed_out = await second_hand.until(lambda f: "ran out of time" in f, what="its timeout", timeout=5)
        assert not moves(timed_out)
        ann.assert_no_leaks()
        bob.assert_no_leaks()
    finally:
        await asyncio.gather(ann.close(), bob.close(), return_exceptions=True)
