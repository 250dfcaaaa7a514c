"""``/healthz``: 200 when the database and (when configured) Redis answer, 503 naming what does not.

A middleware, first in the list: a load balancer or the rolling restart polls each process
directly (any Host, plain http), and the answer costs one ``SELECT 1`` and one ``PING``, no
session, no template. It says which service is down and nothing else (no address, no error text).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse

log = logging.getLogger("svara.health")

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


def health() -> tuple[int, dict[str, str]]:
    """The status code and what each service said."""
    report = {"database": "ok" if database_answers() else "unavailable"}
    if settings.REDIS_URL:
        report["redis"] = "ok" if redis_answers(settings.REDIS_URL) else "unavailable"
    return (200 if all(v == "ok" for v in report.values()) else 503), report


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info != PATH:
            return self.get_response(request)
        status, report = health()
        body = {"status": "ok" if status == 200 else "unavailable", **report}
        response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
        response["Cache-Control"] = "no-store"
        if status != 200:
            # A balancer polls every second: a failing check is a warning in the log, not a
            # server error for django.request to mail to ADMINS once per poll (22 mails from one
            # process in a 4-second Redis failover, issue 31). Django skips a response so marked.
            failing = sorted(name for name, value in report.items() if value != "ok")
            log.warning("healthz %s: %s", status, ", ".join(failing))
            response._has_been_logged = True  # type: ignore[attr-defined]
        return response
