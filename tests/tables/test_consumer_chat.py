"""Table chat over the real table socket: a line reaches every socket at the table, worded for
each reader (language, ignore list); a refusal answers its sender only and stores and broadcasts
nothing; a staff deletion (the ``chat.deleted`` group event) removes the line from every page."""

from __future__ import annotations

import html
import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from accounts.models import Ban
from games.live import service
from games.models import ChatMessage, ChatMode
from games.social.chat import FLOOD_LIMIT
from games.social.ignores import ignore_player, unignore_player
from svara_site.asgi import application
from tests.live.tablekit import Viewer, connect, make_player, make_table, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

NOTICE = 'id="chat-notice" class="chat-notice error"'


async def three_at_a_table(**table_fields):
    """ann and bob seated, eve watching."""
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    eve = await sync_to_async(make_player)("eve")
    table = await sync_to_async(make_table)(**table_fields)
    a = await connect(ann, table.pk)
    b = await connect(bob, table.pk)
    e = await connect(eve, table.pk)
    await a.send(verb="sit", position="0", buy_in="500")
    await a.until(lambda f: "ann sits down" in f)
    await b.send(verb="sit", position="1", buy_in="500")
    await b.until(lambda f: "bob sits down" in f)
    for viewer in (a, b, e):
        await viewer.drain()
    return table, (ann, bob, eve), (a, b, e)


def chat_line(frame: str, message_id: int) -> bool:
    return f'id="chat-msg-{message_id}"' in frame


async def stored() -> list[ChatMessage]:
    return await sync_to_async(lambda: list(ChatMessage.objects.order_by("pk")))()


async def test_a_line_reaches_everyone_at_the_table_escaped_and_unlinked():
    table, (ann, _bob, _eve), sockets = await three_at_a_table()
    a = sockets[0]
    text = "hi <3 & see https://example.com/x"
    await a.send(verb="chat", text=text)
    await a.until(lambda f: "chat-msg-" in f)
    rows = await stored()
    assert len(rows) == 1 and rows[0].text == text and rows[0].user_id == ann.pk
    for viewer in sockets:
        frame = await viewer.until(lambda f: chat_line(f, rows[0].id))
        assert html.escape(text, quote=False) in frame
        assert 'href="https://example.com' not in frame  # a link stays text
        assert 'href="/players/ann/"' in frame  # the sender's name goes to their page
    # The sender's notice is cleared (before the line comes back); the others get nothing more.
    assert '<p id="chat-notice" class="chat-notice" hx-swap-oob="true"></p>' in a.frames
    assert await sockets[1].comm.receive_nothing(timeout=0.3)


async def test_bad_input_is_refused_to_the_sender_only_and_nothing_is_stored():
    table, (ann, _bob, _eve), (a, b, e) = await three_at_a_table()
    bad = [
        {"text": ""},
        {"text": "   "},
        {"text": "x" * 201},
        {"text": "ding\x07"},
        {"text": "line\nbreak"},
        {"text": "<b>loud</b>"},
        {"text": "<script>alert(1)</script>"},
        {"text": ["not", "text"]},
        {"text": {"a": 1}},
        {"phrase": "nope"},
        {},
    ]
    for fields in bad:
        await a.send(verb="chat", **fields)
        frame = await a.until(lambda f: NOTICE in f)
        assert "table-version" not in frame, fields  # the notice only, not the table again
    assert await b.comm.receive_nothing(timeout=0.3)
    assert await e.comm.receive_nothing(timeout=0.3)
    assert await stored() == []


async def test_banned_and_muted_players_are_refused():
    table, (ann, bob, _eve), (a, b, e) = await three_at_a_table()
    from datetime import timedelta

    from django.utils import timezone

    from games.models import ChatMute

    await sync_to_async(ChatMute.objects.create)(
        user=bob, until=timezone.now() + timedelta(minutes=30), reason="rude"
    )
    await b.send(verb="chat", text="hello")
    assert "muted until" in await b.until(lambda f: NOTICE in f)
    # A ban closes the player's sockets (staff's ban); one made behind its back is still refused.
    await sync_to_async(Ban.objects.create)(user=ann, reason="abuse")
    await a.send(verb="chat", text="hello")
    assert "banned" in await a.until(lambda f: NOTICE in f)
    assert await e.comm.receive_nothing(timeout=0.3)
    assert await stored() == []


async def test_chat_off_and_players_only():
    table, _users, (a, b, e) = await three_at_a_table(chat=ChatMode.PLAYERS)
    await e.send(verb="chat", text="from the rail")
    assert "Only the players" in await e.until(lambda f: NOTICE in f)
    await a.send(verb="chat", phrase="gl")
    await a.until(lambda f: "chat-msg-" in f)
    rows = await stored()
    assert len(rows) == 1
    await e.until(lambda f: chat_line(f, rows[0].id))  # spectators still read
    await b.until(lambda f: chat_line(f, rows[0].id))
    table.chat = ChatMode.OFF
    await sync_to_async(table.save)()
    await a.send(verb="chat", text="anyone?")
    assert "Chat is off" in await a.until(lambda f: NOTICE in f)
    assert await b.comm.receive_nothing(timeout=0.3)
    assert len(await stored()) == 1


async def test_the_sixth_quick_message_mutes_with_a_notice():
    table, _users, (a, b, e) = await three_at_a_table()
    for n in range(FLOOD_LIMIT):
        await a.send(verb="chat", text=f"spam {n}")
    for n in range(FLOOD_LIMIT):
        await b.until(lambda f, n=n: f"spam {n}" in f)
    await a.send(verb="chat", text="spam 5")
    assert "muted for 60 seconds" in await a.until(lambda f: NOTICE in f)
    assert await b.comm.receive_nothing(timeout=0.3)
    assert len(await stored()) == FLOOD_LIMIT


async def test_quick_phrases_in_each_readers_language():
    ann = await sync_to_async(make_player)("ann")
    ivan = await sync_to_async(make_player)("ivan")
    table = await sync_to_async(make_table)()
    a = await connect(ann, table.pk)
    cookie = await sync_to_async(session_cookie)(ivan)
    comm = WebsocketCommunicator(
        application,
        f"/ws/table/{table.pk}/",
        headers=[
            (b"origin", b"http://127.0.0.1:8000"),
            (b"host", b"127.0.0.1"),
            (b"cookie", cookie[1] + b"; django_language=bg"),
        ],
    )
    assert (await comm.connect(timeout=5))[0]
    i = Viewer(comm)
    await i.receive()
    await a.send(verb="chat", phrase="nh")
    assert "Nice hand" in await a.until(lambda f: "chat-msg-" in f)
    assert "Хубава ръка" in await i.until(lambda f: "chat-msg-" in f)


async def test_an_ignored_players_lines_are_hidden_from_the_ignorer_only():
    table, (ann, bob, eve), (a, b, e) = await three_at_a_table()
    await a.send(verb="chat", text="before")
    for viewer in (a, b, e):
        await viewer.until(lambda f: "before" in f)
    await sync_to_async(ignore_player)(user=eve, ignored=ann)
    # eve's socket is told and shows the lines again without ann's.
    frame = await e.until(lambda f: 'id="chat-lines" hx-swap-oob="innerHTML"' in f)
    assert "before" not in frame
    await a.send(verb="chat", text="after")
    await b.until(lambda f: "after" in f)
    assert await e.comm.receive_nothing(timeout=0.3)
    # Ignored across sessions: a new socket (a new page) hides ann's lines too, and ann is not told.
    e2 = await connect(eve, table.pk)
    assert "before" not in e2.last and "after" not in e2.last
    assert await a.comm.receive_nothing(timeout=0.3) or "ignore" not in a.last.lower()
    await sync_to_async(unignore_player)(user=eve, ignored=ann)
    frame = await e.receive()
    assert "before" in frame and "after" in frame


async def test_whoever_opens_the_table_gets_the_recent_lines_in_the_first_frame():
    table, (ann, bob, eve), (a, b, e) = await three_at_a_table()
    await b.send(verb="chat", text="first words")
    await a.until(lambda f: "first words" in f)
    late = await connect(await sync_to_async(make_player)("late"), table.pk)
    assert "table-version" in late.last and "first words" in late.last


async def test_a_staff_deletion_event_removes_the_line_from_every_socket():
    table, _users, (a, b, e) = await three_at_a_table()
    await a.send(verb="chat", text="regrettable")
    await a.until(lambda f: "chat-msg-" in f)
    rows = await stored()
    for viewer in (a, b, e):
        await viewer.until(lambda f: chat_line(f, rows[0].id))
    layer = get_channel_layer()
    await layer.group_send(service.group_name(table.pk), {"type": "chat.deleted", "message_id": rows[0].id})
    for viewer in (a, b, e):
        frame = await viewer.until(lambda f: "hx-swap-oob" in f and "delete" in f)
        assert frame == f'<li id="chat-msg-{rows[0].id}" hx-swap-oob="delete"></li>'


async def test_a_chat_message_for_another_table_is_refused():
    table, _users, (a, b, e) = await three_at_a_table()
    await a.comm.send_to(text_data=json.dumps({"verb": "chat", "text": "hi", "table": str(table.pk + 1)}))
    assert "another table" in await a.until(lambda f: '<p class="error">' in f)
    assert await stored() == []


async def test_the_staffs_deletion_service_removes_the_line_live_and_from_new_pages():
    from games.social.moderation import delete_chat_message
    from tests.staff_roles import superuser

    table, _users, (a, b, e) = await three_at_a_table()
    await a.send(verb="chat", text="rude words")
    await a.until(lambda f: "chat-msg-" in f)
    (row,) = await stored()
    for viewer in (b, e):
        await viewer.until(lambda f: chat_line(f, row.id))
    staff = await sync_to_async(superuser)()
    await sync_to_async(delete_chat_message)(message=row, staff=staff, reason="insult")
    for viewer in (a, b, e):
        await viewer.until(lambda f: f'<li id="chat-msg-{row.id}" hx-swap-oob="delete"></li>' == f)
    late = await connect(await sync_to_async(make_player)("late"), table.pk)
    assert "rude words" not in late.last
