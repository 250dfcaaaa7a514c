"""No frame the table's socket sends is over the socket's message limit (Daphne's
``--websocket-max-message-size``, which its WebSocket library applies to what the server sends
too: a frame over it closes the socket with 1011). A table that talked a lot (50 lines of 200
characters) opens for everyone, its chat history in frames of its own; the largest table there can
be (6 seats, names of 150 characters, a full log of the longest lines, 50 chat lines of escaped
multi-byte text) is sent in frames under the limit, and nothing of it is lost on the way."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core.cache import cache
from django.utils import translation
from django.utils.translation import gettext_noop

from games.live import service
from games.live.entries import LOG_KEPT, entry
from games.live.views import build_view
from games.social.chat import RECENT_LINES, _flood_key, recent_messages, send_chat
from games.tables.socket_limits import SERVER_FRAME_BYTES
from games.tables.ui.chat import all_lines_frame
from games.tables.ui.frames import within_limit
from games.tables.ui.regions import render_regions
from tests.live.tablekit import connect, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]

# 200 characters a player may type, each as many bytes as text gets once escaped: Cyrillic (two
# bytes) with the characters that become five (&amp; &#34; &#39;).
LONG_LINE = ("Жъ&\"'щЮ" * 29)[:200]
CHAT_ID = re.compile(r'id="chat-msg-(\d+)"')


def nbytes(frame: str) -> int:
    return len(frame.encode("utf-8"))


def say(user, table_id: int, count: int, **what) -> None:
    for _ in range(count):
        # The flood limit is not what is tested here: its count goes (never cache.clear(): on
        # Redis that empties the whole database, other runs' keys included).
        cache.delete(_flood_key(user.pk, "flood"))
        send_chat(user=user, table_id=table_id, **what)


def test_the_limit_is_the_one_make_run_and_the_deploy_kit_give_daphne():
    assert f"WS_MAX_MESSAGE ?= {SERVER_FRAME_BYTES}\n" in (ROOT / "Makefile").read_text()
    for kit in ("deploy/systemd/svara-web@.service", "deploy/local.py"):
        text = (ROOT / kit).read_text()
        assert re.search(rf"--websocket-max-message-size\"?,? \"?{SERVER_FRAME_BYTES}\b", text), kit


@pytest.mark.parametrize("what", [{"phrase": "gl"}, {"text": LONG_LINE}], ids=["phrases", "long-lines"])
async def test_a_table_that_talked_a_lot_opens_for_a_player_and_a_spectator(what):
    ann, bob, eve = [await sync_to_async(make_player)(n) for n in ("ann", "bob", "eve")]
    table = await sync_to_async(make_table)()
    await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=500)
    await service.table_sit(user=bob, table_id=table.pk, position=1, buy_in=500)
    await sync_to_async(say)(ann, table.pk, RECENT_LINES + 5, **what)
    said = [line.id for line in await sync_to_async(recent_messages)(table_id=table.pk)]
    assert len(said) == RECENT_LINES
    for user in (ann, eve):  # a seated player reconnecting, and a spectator
        viewer = await connect(user, table.pk)
        await viewer.drain()
        sizes = [nbytes(f) for f in viewer.frames]
        assert max(sizes) <= SERVER_FRAME_BYTES, sizes
        assert 'id="table-seats"' in viewer.frames[0]  # the table comes first, whole
        shown = [int(m) for f in viewer.frames for m in CHAT_ID.findall(f)]
        assert shown == said  # every line once, in order
        await viewer.comm.disconnect()


def largest_table():
    """6 seats of 150-character names (three bytes a character, nine in a link), a hand in play,
    a full log of its longest line (six names tied), 50 chat lines of escaped Cyrillic."""
    names = [f"{'語' * 149}{i}" for i in range(6)]
    users = [make_player(name) for name in names]
    table = make_table(seat_count=6, dark_play=False)
    for position, user in enumerate(users):
        async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=1000)
    state = async_to_sync(service.start_next_hand)(table_id=table.pk)
    tie = gettext_noop("Svara! %(names)s tie on %(points)s; the pot of %(pot)s is replayed")
    state.doc["log"] = [entry(tie, names=names, points=33, pot=123_456_789)] * LOG_KEPT
    for user in users[:5]:
        say(user, table.pk, RECENT_LINES // 5, text=LONG_LINE)
    return table, users, state


def test_the_largest_table_is_sent_in_frames_under_the_limit_and_nothing_is_lost():
    table, users, state = largest_table()
    lines = recent_messages(table_id=table.pk)
    largest = split_largest = count = 0
    for language in ("en", "bg"):
        with translation.override(language):
            for user in (users[0], None):
                view = build_view(state.doc, user_id=user.pk if user else None, version=state.version)
                whole = str(render_regions(view=view))
                chat = all_lines_frame(lines, reader_id=user.pk if user else None)
                largest = max(largest, nbytes(whole), nbytes(chat))
                for original in (whole, chat):
                    frames = within_limit(original)
                    split_largest = max(split_largest, *(nbytes(f) for f in frames))
                    count = max(count, len(frames))
                    assert split_largest <= SERVER_FRAME_BYTES
                    assert pieces(frames) == pieces([original])
                    assert all('id="table-version"' in f for f in frames) == (
                        'id="table-version"' in original
                    )
    # The figure docs/protocol.md gives: what one frame would be without splitting.
    print(f"largest frame unsplit: {largest} bytes; split: {count} frames, the largest {split_largest} bytes")
    assert largest > 4 * SERVER_FRAME_BYTES


PIECE = re.compile(r"<(?:li|div) (?:id|class)=\"(?:chat-msg-\d+|seat pos-\d+)|<li>.*?</li>")


def pieces(frames: list[str]) -> list[str]:
    """The seats, log lines and chat lines across the frames, in order."""
    return [m.group(0) for f in frames for m in PIECE.finditer(f)]


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.timeout(180)
def test_through_daphne_with_the_deploy_kits_limit_a_table_that_talked_a_lot_opens(
    redis_url, postgres_db, tmp_path
):
    """The real thing: Daphne as the deploy kit runs it (``--websocket-max-message-size``), on a
    database of its own, and a ``websockets`` client. Before, its socket closed with 1011."""
    import asyncio
    import os
    import uuid

    import websockets

    from bench import harness as procs
    from deploy.local import DAPHNE_OPTIONS

    prefix = f"svara:frames:{uuid.uuid4().hex}:"

    def env_for(url: str) -> dict[str, str]:
        return procs.server_env(database_url=url, redis_url=redis_url, prefix=prefix)

    with procs.dedicated_database(os.environ["DATABASE_URL"], stem="svara_frames", env_for=env_for) as url:
        env = env_for(url)
        made = procs.django_call(env, "seed", players=["ann", "eve"], tables=[{}])
        table, ann, eve = made["tables"][0], made["users"]["ann"], made["users"]["eve"]
        said = procs.django_call(env, "chat", table=table, user=ann["id"], count=RECENT_LINES, text=LONG_LINE)
        server = procs.Daphne.start(env=env, log=tmp_path / "daphne.log", options=DAPHNE_OPTIONS)

        async def open_table(cookie: str) -> tuple[list[str], int | None]:
            frames: list[str] = []
            async with websockets.connect(
                f"{server.ws_base}/ws/table/{table}/",
                origin=server.origin,  # type: ignore[arg-type]
                additional_headers={"Cookie": cookie},
                proxy=None,
                open_timeout=10,
            ) as ws:
                try:
                    while True:
                        message = await asyncio.wait_for(ws.recv(), 2)
                        frames.append(message if isinstance(message, str) else message.decode())
                except TimeoutError:
                    return frames, None
                except websockets.ConnectionClosed as exc:
                    return frames, exc.rcvd.code if exc.rcvd else None

        try:
            for who in (ann, eve):  # the one who talked, and a spectator
                frames, closed = asyncio.run(open_table(who["cookie"]))
                assert closed is None, f"closed with {closed}: {server.tail()}"
                assert max(nbytes(f) for f in frames) <= SERVER_FRAME_BYTES
                assert [int(m) for f in frames for m in CHAT_ID.findall(f)] == said["ids"]
        finally:
            server.stop()
