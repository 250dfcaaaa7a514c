"""What the room's log lines carry: the request id (nginx's ``X-Request-ID``, passed on, or one
made here), a JSON form for a log collector (``LOG_FORMAT=json``), and the count of errors for
``/metrics``.

The id is kept in a context variable set by the ASGI access log (svara_site/proxy.py) for each
request and each socket: Django's sync views and the consumers run in that context, so every line
logged while serving it (a refused command, a traceback) names the request or socket it belongs
to, and nginx's access log, with ``$request_id``, names the same.
"""

from __future__ import annotations

import contextvars
import logging
import re
import uuid

from games.live import metrics

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

# What nginx's $request_id looks like (32 hex digits); a client's own header passes only when it
# is that plain (nginx overwrites it in any case), so a log line never carries its bytes.
_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def accept_request_id(header: str) -> str:
    """The id for this request: the proxy's, when it is a plain token; else a new one."""
    header = header.strip()
    return header if _ID.fullmatch(header) else uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record (``%(request_id)s``; a JSON field)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get()
        return True


class ErrorCounter(logging.Handler):
    """Counts records at ERROR and above by logger: ``svara_errors_total`` in ``/metrics``."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)

    def emit(self, record: logging.LogRecord) -> None:
        metrics.ERRORS.labels(logger=record.name).inc()
