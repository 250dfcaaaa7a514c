"""The lobby's socket: the list of public tables, sent again whenever seats change anywhere."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Hashable
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils import translation

from games.live import metrics, service
from games.lobby import service as lobby
from games.lobby.renders import SharedRenders, now
from games.tables import socket_limits
from games.tables.dispatch import DirectDispatch
from games.tables.sockets import language_from_scope
from games.tables.ui.frames import within_limit
from games.tournaments.announce import TOURNAMENTS_GROUP

log = logging.getLogger(__name__)

# Swapped in by id, it loads the lists again (htmx processes what it swaps in: "load" fires).
TOURNAMENTS_HINT = (
    '<div id="tournaments-hint" hidden hx-swap-oob="true" hx-get="/tournaments/list/" hx-trigger="load"'
    ' hx-select="#tournament-lists" hx-target="#tournament-lists" hx-swap="outerHTML"></div>'
)


class LobbyConsumer(DirectDispatch, AsyncWebsocketConsumer):
    """The lobby's list of public tables, re-sent whenever seats change anywhere (games/lobby/service.py).

    ``ws/lobby/?stake=50&page=2`` keeps the page's stake filter and page. The table service sends
    ``lobby.changed`` hints to the "lobby" group; bursts of them (a whole table sitting down) are
    folded into one re-render a moment later, and that render is shared by every lobby socket of
    the process showing the same list in the same language. The list is public, so anyone may watch it.
    """

    COALESCE_SECONDS = 0.2

    async def connect(self) -> None:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        if (query.get("tab") or [""])[0] == "tournaments":
            # The tournament lobby's tab: only told when its lists changed (each page then fetches
            # its own, which shows the viewer's registrations).
            self.tournaments = True
            self.budget = socket_limits.lobby_budget()
            self.render_task = None
            await self.channel_layer.group_add(TOURNAMENTS_GROUP, self.channel_name)
            await self.accept()
            return
        self.tournaments = False
        self.stake = lobby.parse_stake((query.get("stake") or [""])[0])
        self.page = _page(query)
        self.language = language_from_scope(self.scope)
        self.budget = socket_limits.lobby_budget()
        self.dirty = False
        self.changed_at = now()
        self.render_task: Any = None
        await self.channel_layer.group_add(service.LOBBY_GROUP, self.channel_name)
        await self.accept()
        await self.send_tables()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "render_task", None) is not None:
            self.render_task.cancel()
        group = TOURNAMENTS_GROUP if getattr(self, "tournaments", False) else service.LOBBY_GROUP
        await self.channel_layer.group_discard(group, self.channel_name)

    async def tournaments_changed(self, event: dict[str, Any]) -> None:
        await self.send(text_data=TOURNAMENTS_HINT)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The page sends nothing: the list comes when seats change. A message costs nothing (no
        # query, no render), and a stream of them closes the socket.
        if not self.budget.take():
            log.warning("lobby socket closed, over its message budget")
            metrics.REFUSED.labels(reason="flood").inc()
            await self.close(code=socket_limits.POLICY_VIOLATION)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        self.dirty = True
        self.changed_at = now()
        if self.render_task is None or self.render_task.done():
            self.render_task = asyncio.create_task(self._render_while_dirty())

    async def _render_while_dirty(self) -> None:
        while self.dirty:
            self.dirty = False
            await _sleep(self.COALESCE_SECONDS)
            await self.send_tables()

    async def send_tables(self) -> None:
        html = await shared_renders.get((self.stake, self.page, self.language), begun_after=self.changed_at)
        # A page of 30 full tables is about 28 KB, past the socket's limit (Daphne would close it
        # with 1011): cut between its rows (games/tables/ui/frames.py).
        for frame in within_limit(html):
            await self.send(text_data=frame)


# The largest page number a socket keeps; the list clamps it to its last page anyway.
_MAX_PAGE = 10_000


def _page(query: dict[str, list[str]]) -> int:
    raw = (query.get("page") or [""])[0].strip()
    return min(int(raw), _MAX_PAGE) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else 1


def render_lobby_tables(*, stake: int | None, page: int, language: str) -> str:
    with translation.override(language):
        listed = lobby.lobby_page(stake=stake, page=page)
        return render_to_string(
            "games/lobby/_tables.html", {"rows": listed.rows, "page": listed.page, "stake": stake}
        )


async def _render(key: Hashable) -> str:
    stake, page, language = key  # the key SharedRenders was asked for: (stake, page, language)
    return await database_sync_to_async(render_lobby_tables)(stake=stake, page=page, language=language)


shared_renders = SharedRenders(_render)


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)
