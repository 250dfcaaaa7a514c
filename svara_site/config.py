"""Reading the settings' environment variables: each one parsed and checked where it is read.

A missing or malformed production variable must stop start-up with one line naming it, before
anything half-configured serves a request: ``stop`` raises ``SystemExit`` with that line (Python
prints it to standard error and exits 1; a traceback would bury the variable's name), and every
reader here calls it on a value it cannot use.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn
from urllib.parse import urlsplit

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off", ""})


def stop(name: str, problem: str) -> NoReturn:
    """End start-up with one line: which variable, and what is wrong with it."""
    raise SystemExit(f"svara: cannot start: {name} {problem}")


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    word = value.strip().lower()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    stop(name, f"must be true or false, not {value!r}")


def env_int(name: str, default: int, *, minimum: int = 0, maximum: int | None = None) -> int:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = int(value.strip())
    except ValueError:
        stop(name, f"must be a whole number, not {value!r}")
    if number < minimum or (maximum is not None and number > maximum):
        upper = f" and at most {maximum}" if maximum is not None else ""
        stop(name, f"must be at least {minimum}{upper}, not {number}")
    return number


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


@dataclass(frozen=True)
class PublicURL:
    """The https address players use: ``origin`` is what browsers send (scheme://host[:port])."""

    scheme: str
    host: str
    port: int | None

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{self.host}" + (f":{self.port}" if self.port else "")


def public_url(name: str = "PUBLIC_URL") -> PublicURL | None:
    """``PUBLIC_URL``, or None when unset: an https origin, with no path, query or credentials."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        stop(name, f"is not a URL: {value!r}")
    if parts.scheme != "https":
        stop(name, f"must start with https:// (the address players use behind TLS), not {value!r}")
    if not parts.hostname or parts.username or parts.password:
        stop(name, f"must name a host and nothing else before it, not {value!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        stop(name, f"must be the site's root (the room serves from /), not {value!r}")
    host = parts.hostname.lower()
    return PublicURL(scheme="https", host=host, port=port if port not in (None, 443) else None)


def secret_key(*, name: str = "SECRET_KEY", debug: bool, generated: Callable[[], str]) -> str:
    """``SECRET_KEY``; under DEBUG without one, the key generated into var/ (``generated``).

    Without DEBUG a key is required and must not be weak by Django's own measure (at least 50
    characters, 5 different ones, not a "django-insecure-" one), as ``check --deploy`` asks."""
    key = os.environ.get(name, "")
    if not key:
        if debug:
            return generated()
        stop(
            name,
            "must be set when DEBUG is off (the same on every machine of the room); make one with: "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'",
        )
    if not debug and (len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-")):
        stop(name, "is too weak: give at least 50 random characters")
    return key


def ip_address(value: str) -> str | None:
    """``value`` as an IP address (v4 or v6, without a port), or None when it is not one."""
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def admins(name: str = "ADMINS") -> list[tuple[str, str]]:
    """``ADMINS``: comma-separated addresses, each ``Name <address>`` or a bare address."""
    from email.utils import getaddresses

    value = os.environ.get(name, "").strip()
    if not value:
        return []
    people = getaddresses([value])
    if not people or any("@" not in address or " " in address for _, address in people):
        stop(
            name, f"must be e-mail addresses such as 'Ann <ann@example.com>, bob@example.com', not {value!r}"
        )
    return [(person or address, address) for person, address in people]


LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class OncePerKind:
    """A logging filter that lets one record per kind (logger and message template) through every
    ``seconds``: a failure that repeats on every table or every tick is one mail, not hundreds;
    each one still reaches the log through the other handlers."""

    def __init__(self, seconds: float = 600.0) -> None:
        self.seconds = seconds
        self._last: dict[tuple[str, object], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.name, record.msg)
        now = time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < self.seconds:
            return False
        self._last[kind] = now
        return True


LOG_FORMATS = ("plain", "json")


def logging_config(*, level: str, mail_admins: bool, fmt: str = "plain") -> dict[str, object]:
    """Everything to standard error (journald keeps it under systemd). With ADMINS: server errors
    by e-mail, and the tables' own errors (``games``: the worker's clock, settlements, the sweep)
    once per kind every 10 minutes. A failing ``/healthz`` is a warning in the log only
    (svara_site/health.py): a balancer polls it every second. ``svara.access`` is the one line per
    request. Every line carries the request id (svara_site/logs.py); ``fmt`` "json": one JSON
    object per line (time, level, logger, message, request_id, exc_info) for a log collector."""
    level = level.strip().upper()
    if level not in LEVELS:
        stop("LOG_LEVEL", f"must be one of {', '.join(LEVELS)}, not {level!r}")
    fmt = fmt.strip().lower() or "plain"
    if fmt not in LOG_FORMATS:
        stop("LOG_FORMAT", f"must be one of {', '.join(LOG_FORMATS)}, not {fmt!r}")
    handlers: dict[str, dict[str, object]] = {
        "console": {"class": "logging.StreamHandler", "formatter": fmt, "filters": ["request_id"]},
        "error_count": {"()": "svara_site.logs.ErrorCounter"},
    }
    loggers: dict[str, dict[str, object]] = {}
    if mail_admins:
        handlers["mail_admins"] = {
            "class": "django.utils.log.AdminEmailHandler",
            "level": "ERROR",
            "filters": ["require_debug_false"],
        }
        handlers["mail_admins_once"] = {
            "class": "django.utils.log.AdminEmailHandler",
            "level": "ERROR",
            "filters": ["require_debug_false", "once_per_kind"],
        }
        # Server errors: to the console (through the root) and to the admins.
        loggers["django.request"] = {"handlers": ["mail_admins"], "level": "ERROR"}
        loggers["games"] = {"handlers": ["mail_admins_once"]}
    else:
        loggers["django.request"] = {"handlers": [], "level": "ERROR"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
            "once_per_kind": {"()": "svara_site.config.OncePerKind"},
            "request_id": {"()": "svara_site.logs.RequestIdFilter"},
        },
        "formatters": {
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s [%(request_id)s]"},
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
                "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            },
        },
        "handlers": handlers,
        "root": {"handlers": ["console", "error_count"], "level": level},
        "loggers": loggers,
    }


def init_sentry(dsn: str, *, environment: str) -> bool:
    """Report errors to Sentry when ``SENTRY_DSN`` is set; nothing is sent otherwise. No personal
    data (addresses, user names) goes with a report: ``data_collection`` says so (it replaced
    ``send_default_pii``, which now warns)."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.utils import BadDsn, Dsn

    try:
        Dsn(dsn)
    except BadDsn:
        stop("SENTRY_DSN", "is not a Sentry DSN (https://key@host/project)")
    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration()],
        environment=environment,
        data_collection={"user_info": False},
        traces_sample_rate=0.0,
    )
    return True
