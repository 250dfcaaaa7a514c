"""What one WebSocket may ask of the server: how big a message, how many, how many at once.

A page sends a message when its player clicks (a move, a seat, a seed) and, rarely, a ``sync``
after a gap in versions; a burst of a few a second is a player, hundreds are a script. A socket
over its budget is closed, as Lichess's socket server does: a refusal notice would cost a render
per message, which is what a flood wants. The close code is 4008, "policy violation" in the
application's range: RFC 6455's own 1008 is what Lichess sends, but Daphne's WebSocket library
(autobahn) lets an application close only with 1000 or 3000-4999, and raises on 1008. Daphne's own
``--websocket-max-message-size`` bounds a frame before it reaches Python at all (the Makefile
and the deploy kit set it); ``MAX_MESSAGE`` is the consumers' own bound on what they read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from games.live import socket_counts

MAX_MESSAGE = 4096  # characters of one message a consumer reads; a form is a few hundred
# Daphne's --websocket-max-message-size (the Makefile's WS_MAX_MESSAGE, the deploy kit): its
# WebSocket library (autobahn) refuses a message over it both ways, so it is also the most one
# frame the server sends may hold, in UTF-8 bytes (games/tables/ui/frames.py keeps them under it).
SERVER_FRAME_BYTES = 16384
POLICY_VIOLATION = 4008  # a client that broke the socket's rules (1008 in RFC 6455's own range)
MAX_COMMANDS_IN_FLIGHT = 8  # a table socket's commands queued or running: a page waits for answers
# One table socket too many for its account or address (games.live.socket_counts): the page
# says so and does not reconnect by itself.
TOO_MANY_SOCKETS = socket_counts.TOO_MANY_CLOSE_CODE


def too_many_reason(too_many: socket_counts.TooMany) -> str:
    """The close frame's reason (English, at most 123 bytes): the page words its own message."""
    if too_many.over == "user":
        return f"too many table pages open for this account (at most {too_many.limit})"
    return f"too many table pages open from this address (at most {too_many.limit})"


@dataclass
class MessageBudget:
    """A token bucket: ``burst`` messages at once, refilled at ``per_second``.

    ``take()`` is False once the socket sent more than the bucket holds; the consumer then closes
    it. The clock is injectable so tests need not sleep."""

    burst: int
    per_second: float
    clock: Callable[[], float] = time.monotonic
    _tokens: float = field(init=False)
    _at: float = field(init=False)

    def __post_init__(self) -> None:
        self._tokens = float(self.burst)
        self._at = self.clock()

    def take(self) -> bool:
        now = self.clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.per_second)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


def table_budget() -> MessageBudget:
    """A table socket: 20 at once (a reconnecting page replays what it queued), 5 a second."""
    return MessageBudget(burst=20, per_second=5.0)


def lobby_budget() -> MessageBudget:
    """The lobby's page sends nothing on its socket; a few messages are tolerated, not a stream."""
    return MessageBudget(burst=5, per_second=0.5)
