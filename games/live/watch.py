"""What the night shift sees of the tables in play: what the last sweep found overdue, which
worker holds the lease and how long since it renewed it, how many tables the store holds.

The sweep (games/live/runtime.py) already reads every table every few seconds, in every process;
it leaves what it found in Redis (``<prefix>watch:sweep``, expiring after ``REPORT_SECONDS``), so
``/healthz`` and ``/metrics`` read the room with one pipelined round trip instead of scanning
thousands of tables per poll. Without Redis (one process) the report stays in this process.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Final

from games.live.lease import LEASE_SECONDS

REPORT_SECONDS: Final = 30  # a report older than this is gone: no sweep ran (no process serves)
# A deadline this far past due that the sweep could not fire is a table stuck for good (the sweep
# fires any other at OVERDUE_GRACE, 5 s).
STUCK_AFTER: Final = 10.0

_local: dict[str, Any] = {}
_local_lock = threading.Lock()


@dataclass
class SweepReport:
    at: float  # when the sweep ran
    stuck: dict[str, float] = field(default_factory=dict)  # table id -> seconds past its deadline

    def to_json(self) -> str:
        return json.dumps({"at": self.at, "stuck": self.stuck})

    @classmethod
    def from_json(cls, text: str | bytes) -> SweepReport:
        data = json.loads(text)
        return cls(at=float(data["at"]), stuck={str(k): float(v) for k, v in data["stuck"].items()})


@dataclass
class RoomView:
    tables: int | None  # table documents the store holds
    sweep: SweepReport | None
    worker: str | None  # the lease's holder
    worker_age: float | None  # seconds since the holder last renewed its lease


def _sweep_key(prefix: str) -> str:
    return f"{prefix}watch:sweep"


async def publish_sweep(report: SweepReport) -> None:
    """Leave the sweep's findings where every process's health check and metrics read them."""
    from games.live.store import RedisStateStore, get_state_store

    store = get_state_store()
    if isinstance(store, RedisStateStore):
        await store.client.set(_sweep_key(store.prefix), report.to_json(), ex=REPORT_SECONDS)
    else:
        with _local_lock:
            _local["sweep"] = report


def read_room(*, redis_client: Any | None, prefix: str) -> RoomView:
    """The room as the store and the lease say (one round trip on Redis); raises redis errors."""
    if redis_client is None:
        from games.live.store import _memory_singleton

        with _local_lock:
            sweep = _local.get("sweep")
        if sweep is not None and time.time() - sweep.at > REPORT_SECONDS:
            sweep = None
        return RoomView(tables=_memory_singleton().count(), sweep=sweep, worker=None, worker_age=None)
    pipe = redis_client.pipeline(transaction=False)
    pipe.scard(f"{prefix}tables")
    pipe.get(_sweep_key(prefix))
    pipe.get(f"{prefix}worker")
    pipe.pttl(f"{prefix}worker")
    tables, sweep_text, holder, ttl_ms = pipe.execute()
    if isinstance(holder, bytes):
        holder = holder.decode()
    age = max(0.0, LEASE_SECONDS - ttl_ms / 1000) if holder and ttl_ms and ttl_ms > 0 else None
    return RoomView(
        tables=int(tables),
        sweep=SweepReport.from_json(sweep_text) if sweep_text else None,
        worker=holder,
        worker_age=age,
    )


def forget_local() -> None:
    """Tests: no report from an earlier test."""
    with _local_lock:
        _local.clear()
