"""``/healthz``: what this process and the room say of themselves, as a list of checks.

A middleware, first in the list: a load balancer or the rolling restart polls each process
directly (any Host, plain http), and the answer costs one ``SELECT 1`` and one Redis round trip
(a ``PING``, then the room's figures in one pipeline), no session, no template.

Each check names itself and says ``ok``, ``degraded`` or ``unavailable``:

- ``database``, ``redis``: this process's services ("ok" or "unavailable": 503, the balancer
  should send players elsewhere).
- ``worker`` (with ``LIVE_TABLE_WORKER``): who holds the worker's lease and how long since it
  renewed it; degraded when nobody does or the renewal is late (deadlines then fire 5-10 s late,
  by the serving processes' sweep).
- ``tables``: the last sweep's findings (games/live/watch.py): degraded when a table's deadline
  is past and could not be fired (a table stuck for good).
- ``quarantined``: records the store set aside as unreadable (games.live.store): each table was
  rebuilt from the database, but a person should look (``manage.py live_tables`` lists them).

``degraded`` answers 200 (this process serves; taking it out would help nobody) with
``"status": "degraded"``, for monitoring to alert on. Nothing else is said (no address, no error
text). A check is a function returning a ``Check`` (or None when it does not apply): another one
is one more entry in ``CHECKS``.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse

from games.live import watch
from games.live.lease import LEASE_SECONDS

log = logging.getLogger("svara.health")

PATH = "/healthz"
TIMEOUT = 1.0  # seconds: a service slower than this to answer a ping counts as down
OK, DEGRADED, UNAVAILABLE = "ok", "degraded", "unavailable"
SHOWN_TABLES = 10  # stuck tables named in the answer (their count is always there)

_clients: dict[str, object] = {}
_clients_lock = threading.Lock()


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # OK, DEGRADED or UNAVAILABLE
    detail: dict[str, Any] | None = None  # shown in place of the bare status, with it


def database_answers() -> bool:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        return False


def redis_client(url: str) -> Any:
    """One client per URL for the process's checks and metrics, with a short timeout."""
    from games.live.redis_target import sync_client

    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = sync_client(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    return client


def redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis_client(url).ping())
    except (redis.RedisError, OSError):
        return False


def quarantined_tables() -> int:
    """How many tables' records the store set aside as unreadable (games.live.store): each table
    was rebuilt from the database, but a person should look (``manage.py live_tables``). One
    SCARD on Redis, asked once Redis answered a PING."""
    import redis

    from games.live.store import _memory_singleton, quarantine_set_key

    if not settings.REDIS_URL:
        return _memory_singleton().quarantined_count()
    client = redis_client(settings.REDIS_URL)
    try:
        return int(client.scard(quarantine_set_key(settings.LIVE_STATE_PREFIX)))  # type: ignore[attr-defined]
    except (redis.RedisError, OSError):
        return 0


class Probe:
    """What the checks of one ``/healthz`` share: the room's figures, read once, and not at all
    when Redis did not answer its ping."""

    def __init__(self) -> None:
        self.redis_down = False
        self._view: watch.RoomView | None = None
        self._read = False

    def room(self) -> watch.RoomView | None:
        import redis

        if self.redis_down:
            return None
        if not self._read:
            self._read = True
            client = redis_client(settings.REDIS_URL) if settings.REDIS_URL else None
            try:
                self._view = watch.read_room(redis_client=client, prefix=settings.LIVE_STATE_PREFIX)
            except (redis.RedisError, OSError):
                self._view = None
        return self._view


def check_database(probe: Probe) -> Check:
    return Check("database", OK if database_answers() else UNAVAILABLE)


def check_redis(probe: Probe) -> Check | None:
    if not settings.REDIS_URL:
        return None
    answers = redis_answers(settings.REDIS_URL)
    probe.redis_down = not answers
    return Check("redis", OK if answers else UNAVAILABLE)


def check_worker(probe: Probe) -> Check | None:
    view = probe.room()
    if not settings.LIVE_TABLE_WORKER or view is None:
        return None
    if view.worker is None:
        return Check("worker", DEGRADED, {"holder": None, "lease_age_s": None})
    age = round(view.worker_age or 0.0, 1)
    # The worker renews every third of the lease: two thirds without a renewal is a stalled one.
    late = age > LEASE_SECONDS * 2 / 3
    return Check("worker", DEGRADED if late else OK, {"holder": view.worker, "lease_age_s": age})


def check_tables(probe: Probe) -> Check | None:
    view = probe.room()
    if view is None or view.sweep is None:
        return None  # no sweep ran lately (no clock anywhere yet): nothing to say
    stuck = sorted(view.sweep.stuck.items(), key=lambda item: -item[1])
    detail: dict[str, Any] = {"in_store": view.tables, "stuck": len(stuck)}
    if stuck:
        detail["oldest_overdue_s"] = stuck[0][1]
        detail["stuck_tables"] = [table_id for table_id, _ in stuck[:SHOWN_TABLES]]
    return Check("tables", DEGRADED if stuck else OK, detail)


def check_quarantine(probe: Probe) -> Check | None:
    if probe.redis_down:
        return None
    count = quarantined_tables()
    # Degraded, not unavailable: every process still serves every other table, and a balancer
    # taking them all out for one bad record would stop the whole room.
    return Check("quarantined", DEGRADED, {"count": count}) if count else None


# In this order (the Redis check first tells the others whether to read the room).
CHECKS: list[Callable[[Probe], Check | None]] = [
    check_database,
    check_redis,
    check_worker,
    check_tables,
    check_quarantine,
]


def health() -> tuple[int, dict[str, Any]]:
    """The status code and what each check said."""
    probe = Probe()
    found = [check for run in CHECKS if (check := run(probe)) is not None]
    statuses = {check.status for check in found}
    overall = UNAVAILABLE if UNAVAILABLE in statuses else DEGRADED if DEGRADED in statuses else OK
    report: dict[str, Any] = {"status": overall}
    for check in found:
        report[check.name] = (
            check.status if check.detail is None else {"status": check.status, **check.detail}
        )
    return (503 if overall == UNAVAILABLE else 200), report


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info != PATH:
            return self.get_response(request)
        status, body = health()
        response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
        response["Cache-Control"] = "no-store"
        if status != 200:
            # A balancer polls every second: a failing check is a warning in the log, not a
            # server error for django.request to mail to ADMINS once per poll (22 mails from one
            # process in a 4-second Redis failover, issue 31). Django skips a response so marked.
            failing = sorted(k for k, v in body.items() if k != "status" and v == UNAVAILABLE)
            log.warning("healthz %s: %s", status, ", ".join(failing))
            response._has_been_logged = True  # type: ignore[attr-defined]
        return response
