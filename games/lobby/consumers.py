"""The lobby's socket: the list of public tables, sent again whenever seats change anywhere."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils import translation

from games.live import service
from games.lobby import service as lobby
from games.tables import socket_limits
from games.tables.dispatch import DirectDispatch
from games.tables.sockets import language_from_scope

log = logging.getLogger(__name__)


class LobbyConsumer(DirectDispatch, AsyncWebsocketConsumer):
    """The lobby's list of public tables, re-sent whenever seats change anywhere (games/lobby/service.py).

    ``ws/lobby/?stake=50`` keeps the page's stake filter. The table service sends
    ``lobby.changed`` hints to the "lobby" group; bursts of them (a whole table sitting down) are
    folded into one re-render a moment later. The list is public, so anyone may watch it.
    """

    COALESCE_SECONDS = 0.2

    async def connect(self) -> None:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.stake = lobby.parse_stake((query.get("stake") or [""])[0])
        self.language = language_from_scope(self.scope)
        self.budget = socket_limits.lobby_budget()
        self.dirty = False
        self.render_task: Any = None
        await self.channel_layer.group_add(service.LOBBY_GROUP, self.channel_name)
        await self.accept()
        await self.send_tables()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "render_task", None) is not None:
            self.render_task.cancel()
        await self.channel_layer.group_discard(service.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The page sends nothing: the list comes when seats change. A message costs nothing (no
        # query, no render), and a stream of them closes the socket.
        if not self.budget.take():
            log.warning("lobby socket closed, over its message budget")
            await self.close(code=socket_limits.POLICY_VIOLATION)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        self.dirty = True
        if self.render_task is None or self.render_task.done():
            self.render_task = asyncio.create_task(self._render_while_dirty())

    async def _render_while_dirty(self) -> None:
        while self.dirty:
            self.dirty = False
            await _sleep(self.COALESCE_SECONDS)
            await self.send_tables()

    async def send_tables(self) -> None:
        with translation.override(self.language):
            html = await database_sync_to_async(_render_lobby_tables)(stake=self.stake)
        await self.send(text_data=html)


def _render_lobby_tables(*, stake: int | None) -> str:
    return render_to_string(
        "games/lobby/_tables.html", {"rows": lobby.open_tables(stake=stake), "stake": stake}
    )


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)
