"""``/healthz``: 200 when the database and (when configured) Redis answer, 503 naming what does not;
"degraded" (still 200) with ``"tables": "N quarantined"`` while the store holds unreadable records
set aside (games.live.store; ``manage.py live_tables`` lists them).

A middleware, first in the list: a load balancer or the rolling restart polls each process
directly (any Host, plain http), and the answer costs one ``SELECT 1`` and one ``PING``, no
session, no template. It says which service is down and nothing else (no address, no error text).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse

PATH = "/healthz"
TIMEOUT = 1.0  # seconds: a service slower than this to answer a ping counts as down

_clients: dict[str, object] = {}
_clients_lock = threading.Lock()


def database_answers() -> bool:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        return False


def redis_answers(url: str) -> bool:
    import redis

    from games.live.redis_target import sync_client

    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = sync_client(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    try:
        return bool(client.ping())  # type: ignore[attr-defined]
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
    client = _clients[settings.REDIS_URL]  # made by redis_answers, which health() asked first
    try:
        return int(client.scard(quarantine_set_key(settings.LIVE_STATE_PREFIX)))  # type: ignore[attr-defined]
    except (redis.RedisError, OSError):
        return 0


def health() -> tuple[int, dict[str, str]]:
    """The status code and what each service said. Quarantined tables make the room "degraded"
    but keep the 200: every process still serves every other table, and a load balancer taking
    them all out for one bad record would stop the whole room."""
    report = {"database": "ok" if database_answers() else "unavailable"}
    if settings.REDIS_URL:
        report["redis"] = "ok" if redis_answers(settings.REDIS_URL) else "unavailable"
    if any(v == "unavailable" for v in report.values()):
        return 503, report
    if quarantined := quarantined_tables():
        report["tables"] = f"{quarantined} quarantined"
    return 200, report


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info != PATH:
            return self.get_response(request)
        status, report = health()
        overall = "ok" if all(v == "ok" for v in report.values()) else "degraded"
        body = {"status": overall if status == 200 else "unavailable", **report}
        response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
        response["Cache-Control"] = "no-store"
        return response
