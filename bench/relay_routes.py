"""The relays' ASGI application: one WebSocket route to a relay consumer of bench/relay.py, no auth."""

from __future__ import annotations

from typing import Any


def relay_application(consumer: str) -> Any:
    from django.core.asgi import get_asgi_application

    http = get_asgi_application()  # sets Django up before the consumers' module is imported

    from channels.routing import ProtocolTypeRouter, URLRouter
    from django.urls import path

    from bench import relay

    route = path("ws/relay/<int:table_id>/<int:seat>/", getattr(relay, consumer).as_asgi())
    return ProtocolTypeRouter({"http": http, "websocket": URLRouter([route])})
