"""``/metrics``: this process's Prometheus metrics (prometheus_client's text format), and the
room's figures read at scrape time.

Scrape every process on its own port (``127.0.0.1:8001/metrics``, ``:8002``, the worker's
``WORKER_METRICS_PORT``): each counts its own sockets, moves and frames. Through nginx the path is
refused (deploy/nginx/svara.conf), and here it is answered only to a caller on the loopback that
came straight, not through nginx (no ``X-Forwarded-For``), or, with ``METRICS_TOKEN`` set, to
``Authorization: Bearer <token>``: anyone else gets a 404, as for any unknown path.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from svara_site import health

PATH = "/metrics"
LOOPBACK = frozenset({"127.0.0.1", "::1"})


def allowed(request: HttpRequest) -> bool:
    token = getattr(settings, "METRICS_TOKEN", "")
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    return request.META.get("REMOTE_ADDR") in LOOPBACK and "x-forwarded-for" not in request.headers


class RoomCollector(Collector):
    """The room as Redis holds it, read once per scrape (games/live/watch.py)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        view = health.Probe().room()
        if view is None:
            return
        yield GaugeMetricFamily(
            "svara_tables_in_store", "tables in play held by the store", value=view.tables or 0
        )
        stuck = view.sweep.stuck if view.sweep else {}
        yield GaugeMetricFamily(
            "svara_tables_stuck", "tables whose deadline is past and could not be fired", value=len(stuck)
        )
        yield GaugeMetricFamily(
            "svara_deadline_overdue_seconds",
            "how far past due the most overdue stuck table's deadline is (0: none)",
            value=max(stuck.values(), default=0.0),
        )
        yield GaugeMetricFamily(
            "svara_tables_quarantined",
            "unreadable table records the store set aside (each table rebuilt; manage.py live_tables)",
            value=health.quarantined_tables(),
        )
        if settings.REDIS_URL:
            yield GaugeMetricFamily(
                "svara_worker_lease_held",
                "1 when a table worker holds the lease",
                value=int(bool(view.worker)),
            )
            yield GaugeMetricFamily(
                "svara_worker_lease_age_seconds",
                "seconds since the table worker last renewed its lease (renewed every 5 s)",
                value=view.worker_age if view.worker_age is not None else float("nan"),
            )


_room = RoomCollector()
_registered = False


def register_room_collector() -> None:
    """Once per process (the web processes and the worker)."""
    global _registered
    if not _registered:
        REGISTRY.register(_room)
        _registered = True


class MetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        register_room_collector()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info != PATH:
            return self.get_response(request)
        if not allowed(request):
            return HttpResponseNotFound()
        response = HttpResponse(generate_latest(REGISTRY), content_type="text/plain; version=0.0.4")
        response["Cache-Control"] = "no-store"
        return response
