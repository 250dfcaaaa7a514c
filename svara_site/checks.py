"""``manage.py check --deploy``: a room behind PUBLIC_URL on one machine's defaults.

SQLite and the in-memory store serve one process; the kit runs several web processes and the
table worker, which then could not see each other's tables (nor share log-in limits).
"""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def services_for_a_public_room(app_configs: object = None, **kwargs: object) -> list[Warning]:
    if not settings.PUBLIC_URL:
        return []
    found = []
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        found.append(
            Warning(
                "PUBLIC_URL is set but DATABASE_URL is SQLite: one process only.",
                hint="Set DATABASE_URL to PostgreSQL (docs/deploy.md).",
                id="svara.W001",
            )
        )
    if not settings.REDIS_URL:
        found.append(
            Warning(
                "PUBLIC_URL is set without REDIS_URL: tables, sockets and log-in limits in one process.",
                hint="Set REDIS_URL (docs/deploy.md).",
                id="svara.W002",
            )
        )
    if settings.ADMINS and settings.EMAIL_BACKEND == "django.core.mail.backends.console.EmailBackend":
        found.append(
            Warning(
                "ADMINS is set without EMAIL_HOST: error mails would only be printed to the log.",
                hint="Set EMAIL_HOST (and its user and password), or SENTRY_DSN and no ADMINS.",
                id="svara.W003",
            )
        )
    return found
