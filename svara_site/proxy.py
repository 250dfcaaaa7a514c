"""The player's real address behind proxies, and one log line per request with it.

Each proxy appends the address it saw to ``X-Forwarded-For``; what a client wrote there comes
first. So with ``TRUSTED_PROXIES`` = N in front, the player's address is the N-th entry from the
right, and anything left of it is the client's own say (Daphne's ``--proxy-headers`` takes the
first entry: the one a client writes). ``RealClient`` puts that address in the ASGI scope's
``client``, which is Django's ``REMOTE_ADDR`` (allauth's log-in limits per address read it) and
what the consumers and the access log see.

The header is believed only from a peer in ``TRUSTED_PROXY_NETWORKS`` (this machine by default,
where nginx runs): a client that reaches a serving process directly (one bound to more than
127.0.0.1, or a port opened by mistake) is its own address, whatever it writes (issue 37: a
spoofed header got round the per-address log-in limit that way).
"""

from __future__ import annotations

import ipaddress
import logging
import time
from typing import Any

from games.live import metrics
from svara_site import logs
from svara_site.config import ip_address

Scope = dict[str, Any]
access_log = logging.getLogger("svara.access")


def header(scope: Scope, name: bytes) -> str:
    """All values of one request header, joined as HTTP joins repeated ones."""
    values = [v.decode("latin1") for k, v in scope.get("headers", ()) if k == name]
    return ",".join(values)


Networks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


def proxy_networks(text: str) -> Networks:
    """``TRUSTED_PROXY_NETWORKS`` ("127.0.0.0/8, ::1/128") as networks; a bad entry raises ValueError."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


LOCAL_PROXIES = proxy_networks("127.0.0.0/8, ::1/128")


def from_proxy(scope: Scope, networks: Networks) -> bool:
    """Whether the connection came from one of our proxies. No peer at all is a Unix socket: local."""
    peer = (scope.get("client") or (None,))[0]
    if not peer:
        return True
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address in network for network in networks)


def real_client(scope: Scope, *, trusted: int, networks: Networks = LOCAL_PROXIES) -> str | None:
    """The player's address by ``X-Forwarded-For`` and ``trusted`` proxies; None: keep the peer's
    (no proxies trusted, or a peer that is none of them)."""
    if trusted <= 0 or not from_proxy(scope, networks):
        return None
    entries = [e.strip() for e in header(scope, b"x-forwarded-for").split(",") if e.strip()]
    if len(entries) < trusted:
        return None  # not through every proxy (a direct connection): the peer is the client
    return ip_address(entries[-trusted])


class RealClient:
    """ASGI middleware: ``scope["client"]`` becomes the player's address."""

    def __init__(self, app: Any, *, trusted: int, networks: Networks = LOCAL_PROXIES) -> None:
        self.app = app
        self.trusted = trusted
        self.networks = networks

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            address = real_client(scope, trusted=self.trusted, networks=self.networks)
            if address is not None:
                scope = {**scope, "client": (address, 0)}
        await self.app(scope, receive, send)


class AccessLog:
    """ASGI middleware: one line per HTTP request and per socket opened or refused, and one when
    an opened socket closes (its close code and how long it was open), naming the client as
    ``RealClient`` left it (so it sits inside that one). It sets the request id every line logged
    while serving carries (svara_site/logs.py: nginx's ``X-Request-ID``, or a new one), answers
    it back in an ``X-Request-ID`` header, and keeps the count of open sockets for ``/metrics``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        token = logs.request_id.set(logs.accept_request_id(header(scope, b"x-request-id")))
        started = time.perf_counter()
        status: list[int] = []
        close_code: list[int] = []

        async def logged_send(message: dict[str, Any]) -> None:
            kind = message["type"]
            if not status:
                if kind == "http.response.start":
                    status.append(message["status"])
                    message = {
                        **message,
                        "headers": [
                            *message.get("headers", []),
                            (b"x-request-id", logs.request_id.get().encode()),
                        ],
                    }
                elif kind == "websocket.accept":
                    status.append(101)
                    opened(scope)
                elif kind == "websocket.close":
                    status.append(403)
                if status:
                    self.log(scope, status[0], started)
            elif kind == "websocket.close" and not close_code:
                close_code.append(int(message.get("code") or 1000))
            await send(message)

        async def watched_receive() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "websocket.disconnect" and not close_code:
                close_code.append(int(message.get("code") or 1005))
            return message

        try:
            await self.app(scope, receive if scope["type"] == "http" else watched_receive, logged_send)
        finally:
            if status == [101]:
                closed(scope, code=close_code[0] if close_code else 1006, started=started)
            logs.request_id.reset(token)

    @staticmethod
    def log(scope: Scope, status: int, started: float) -> None:
        client = (scope.get("client") or ("-",))[0]
        method = scope.get("method", "WS")
        path = scope.get("path", "")
        query = scope.get("query_string", b"")
        target = f"{path}?{query.decode('latin1')}" if query else path
        elapsed = (time.perf_counter() - started) * 1000
        access_log.info("%s %s %s %s %.1fms", client, method, target, status, elapsed)


def opened(scope: Scope) -> None:
    kind = metrics.socket_kind(scope.get("path", ""))
    metrics.SOCKETS.labels(kind=kind).inc()
    metrics.SOCKETS_OPENED.labels(kind=kind).inc()


def closed(scope: Scope, *, code: int, started: float) -> None:
    """The close line of an opened socket: who, which path, the close code, how long it was open."""
    metrics.SOCKETS.labels(kind=metrics.socket_kind(scope.get("path", ""))).dec()
    client = (scope.get("client") or ("-",))[0]
    access_log.info(
        "%s WS %s closed %s after %.1fs", client, scope.get("path", ""), code, time.perf_counter() - started
    )
