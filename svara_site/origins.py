"""Which pages may open the room's WebSockets: the whole origin (scheme, host and port) compared.

Channels' ``AllowedHostsOriginValidator`` compares only the host, so a page on any port or scheme
of an allowed host (``http://localhost:9999``, another program's page) could open a player's
table socket with their cookies. With ``PUBLIC_URL`` only its origin may; without it, the pages
this process serves itself: ``http://<an allowed host>:<the port it listens on>``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings

from svara_site.proxy import Scope, header

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_key(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an Origin header, the port filled in; None when it is not one."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def allowed_origin(origin: str, *, scope: Scope) -> bool:
    key = origin_key(origin)
    if key is None:
        return False
    if settings.PUBLIC_URL:
        return key == origin_key(settings.PUBLIC_URL)
    server = scope.get("server") or (None, settings.PORT)
    scheme, host, port = key
    hosts = [h.lower() for h in settings.ALLOWED_HOSTS]
    return scheme == "http" and port == server[1] and ("*" in hosts or host in hosts or f"[{host}]" in hosts)


class SameOriginValidator:
    """ASGI middleware for sockets: refuse one opened from any other origin."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if allowed_origin(header(scope, b"origin"), scope=scope):
            await self.app(scope, receive, send)
        else:
            await WebsocketDenier()(scope, receive, send)
