"""The lobby's socket sends its list in frames under the socket's message limit (Daphne's, which
its WebSocket library applies to what the server sends: one over it closes the socket with 1011).
A busy room's first page, 30 full tables of six players, is about 28 KB in one piece: it goes out
as several frames, the first replacing the list and the rest appending rows, none of them lost."""

# Bulgarian table and player names on purpose: Cyrillic letters that look Latin are expected here.
# ruff: noqa: RUF001

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.live import service
from games.lobby.service import LOBBY_PAGE_SIZE
from games.tables.socket_limits import SERVER_FRAME_BYTES
from svara_site.asgi import application
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)
ROW = re.compile(r'<tr data-table-id="(\d+)"')


async def full_tables() -> list[int]:
    """Thirty public tables of six seats, every seat taken."""
    ids = []
    for t in range(LOBBY_PAGE_SIZE):
        table = await sync_to_async(make_table)(name=f"Маса за шестима {t}", seat_count=6)
        for position in range(6):
            user = await sync_to_async(make_player)(f"играч{t}x{position}")
            await service.table_sit(user=user, table_id=table.pk, position=position, buy_in=500)
        ids.append(table.pk)
    return ids


async def test_a_busy_lobby_page_comes_in_frames_under_the_limit_with_every_table():
    ids = await full_tables()
    comm = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1")]
    )
    connected, _ = await comm.connect()
    assert connected
    frames = [await comm.receive_from(timeout=3)]
    while not await comm.receive_nothing(timeout=0.5):
        frames.append(await comm.receive_from(timeout=3))
    await comm.disconnect()
    assert max(len(f.encode()) for f in frames) <= SERVER_FRAME_BYTES, [len(f.encode()) for f in frames]
    assert 'id="lobby-tables"' in frames[0]
    assert sorted(int(i) for f in frames for i in ROW.findall(f)) == sorted(ids)
