"""Table sockets are served while the database thread is busy (games/tables/dispatch.py).

Channels' own dispatch runs ``close_old_connections`` on the one database thread before every
handler, so a settlement running there held up every frame of every socket in the process.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async

from games.live import service
from games.live.document import copy_doc
from games.live.entries import set_notice
from tests.live.tablekit import connect, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

BUSY = 1.5  # seconds the database thread is kept busy
PROMPT = 0.75  # an answer within this is not waiting for it


async def _busy_database_thread() -> asyncio.Future:
    busy = asyncio.ensure_future(database_sync_to_async(time.sleep)(BUSY))
    await asyncio.sleep(0.05)  # the sleep now holds the thread
    return busy


async def _a_viewer_and_a_busy_database_thread():
    """A player watching a table, then the database thread kept busy for BUSY seconds."""
    ann = await sync_to_async(make_player)("ann")
    table = await sync_to_async(make_table)()
    viewer = await connect(ann, table.pk)
    return table, viewer, await _busy_database_thread()


async def test_a_socket_gets_the_table_it_asks_for_while_the_database_thread_is_busy():
    _table, viewer, busy = await _a_viewer_and_a_busy_database_thread()
    started = time.monotonic()

    await viewer.send(verb="sync")
    frame = await viewer.receive(timeout=BUSY + 1)

    assert time.monotonic() - started < PROMPT
    assert 'id="table-version"' in frame
    await busy
    await viewer.comm.disconnect()


async def test_a_table_update_reaches_its_sockets_while_the_database_thread_is_busy():
    table, viewer, busy = await _a_viewer_and_a_busy_database_thread()
    started = time.monotonic()

    def say_hello(state):
        doc = copy_doc(state.doc)
        set_notice(doc, "hello from the staff")
        return doc

    await service.update_table(table.pk, say_hello)
    frame = await viewer.until(lambda f: "hello from the staff" in f, timeout=BUSY + 1)

    assert time.monotonic() - started < PROMPT
    assert '<p class="notice">hello from the staff</p>' in frame
    await busy
    await viewer.comm.disconnect()
