"""Consumer dispatch without a trip to the database thread for every message.

Channels' ``AsyncConsumer.dispatch`` awaits ``aclose_old_connections()`` before each handler:
``sync_to_async(close_old_connections)`` on the one thread that also runs every
``database_sync_to_async`` call. So every WebSocket frame and every group message of every
socket waited in line behind whatever database work was queued there: bench/load.py saw table
updates reach sockets up to 9 s late while hand settlements queued, with the event loop idle
half the time. Our handlers never touch the ORM themselves; their database work goes through
``database_sync_to_async``, which closes stale connections in the thread around each call. So
these consumers dispatch straight to the handler.
"""

from __future__ import annotations

from typing import Any

from channels.consumer import get_handler_name


class DirectDispatch:
    """Mixin for an ``AsyncConsumer`` whose handlers reach the database only through
    ``database_sync_to_async``: list it before the consumer class."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
