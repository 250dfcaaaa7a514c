"""The bare relay: the floor of our stack (Daphne + Channels + channels-redis + Django templates).

It does what the table consumer does minus the game: a message in becomes one group message to the
table's group, and every recipient renders one small template and sends it. No state store, no
database, no engine. ``bench/load.py`` drives it with the same scripted players and socket count as
the real tables, so the real figures can be read as ratios to this floor.

The protocol mirrors the table's: frames carry ``data-version``; the recipient whose turn it is
(``version % 2`` is its seat) gets the move buttons. ``{"verb": "go"}`` starts a table once both
seats are connected (a group message sent before a seat joined would never reach it).

Two of them, as two floors:

- ``StockRelayConsumer`` is the stack as it comes: Channels' own dispatch, channels-redis's
  default layer with its default settings, CPython's default collector
  (``bench/relay_stock_asgi.py``). The target's figure for the bare stack (about 460 relays a
  second unpaced on this machine) is this one's.
- ``RelayConsumer`` is the stack as our consumers use it: our dispatch (games/tables/dispatch.py), the
  Pub/Sub layer and the collector settings of the site's servers (``bench/relay_asgi.py``).
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.template import engines

from games.tables.dispatch import DirectDispatch

FRAME = engines["django"].from_string(
    '<div id="table-version" hx-swap-oob="true" data-version="{{ version }}" data-epoch="relay" hidden></div>'
    '<section id="table-actions" hx-swap-oob="true" class="actions">{% if my_turn %}'
    '<form ws-send><input type="hidden" name="verb" value="call">'
    '<button class="verb-call">CALL</button></form>'
    '<form ws-send><input type="hidden" name="verb" value="raise">'
    '<input type="number" name="amount" min="{{ raise_min }}">'
    '<button class="verb-raise">RAISE</button></form>'
    "{% endif %}</section>"
)


class StockRelayConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"relay.{self.scope['url_route']['kwargs']['table_id']}"
        self.seat = int(self.scope["url_route"]["kwargs"]["seat"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=self.render(0))

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = json.loads(text_data or "{}")
        version = int(message.get("version") or 0) + 1
        await self.channel_layer.group_send(self.group, {"type": "relay.update", "version": version})

    async def relay_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=self.render(event["version"]))

    def render(self, version: int) -> str:
        my_turn = version > 0 and version % 2 == self.seat
        # The raise minimum climbs like a hand's stake to match, so the players' script raises, then calls.
        return FRAME.render({"version": version, "my_turn": my_turn, "raise_min": 10 * (1 + version % 8)})


class RelayConsumer(DirectDispatch, StockRelayConsumer):
    """The same relay dispatching as the table's consumer does."""
