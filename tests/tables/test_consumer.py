"""The table socket protocol: who may connect, bad input, reconnects, spectators, and that no
frame ever carries another player's cards before the showdown."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from games.live import service, testing
from svara_site.asgi import application
from tests.live.framecheck import assert_hidden, label, labels_in
from tests.live.tablekit import connect, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

# ann deals (if the dealer draw says so); the deck gives the left-of-dealer player 7C 8C 8D.
CARDS_LEFT = ["7C", "8C", "8D"]
CARDS_DEALER = ["AH", "KH", "9S"]
DECK = [CARDS_LEFT[0], CARDS_DEALER[0], CARDS_LEFT[1], CARDS_DEALER[1], CARDS_LEFT[2], CARDS_DEALER[2]]


async def two_seated(dark_play: bool = False):
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)(dark_play=dark_play)
    a = await connect(ann, table.pk)
    b = await connect(bob, table.pk)
    await a.send(verb="sit", position="0", buy_in="500", action_id="s-a")
    await a.until(lambda f: "ann sits down" in f)
    await b.send(verb="sit", position="1", buy_in="500", action_id="s-b")
    await b.until(lambda f: "bob sits down" in f)
    await a.until(lambda f: "bob sits down" in f)
    return table, ann, bob, a, b


async def start(table, a, b):
    await testing.stack_decks(table_id=table.pk, decks=[DECK])
    state = await service.start_next_hand(table_id=table.pk)
    await a.until(lambda f: "Hand 1" in f)
    await b.until(lambda f: "Hand 1" in f)
    dealer_pos = state.doc["dealer"]
    hidden = {}
    for pos, seat in enumerate(state.doc["seats"]):
        hidden[seat["name"]] = CARDS_DEALER if pos == dealer_pos else CARDS_LEFT
    return state, hidden


SEALED = 'class="fair-sealed"'  # the fair-deck badge once a hand is over


async def test_a_hand_where_every_frame_hides_the_other_players_cards():
    table, ann, bob, a, b = await two_seated()
    state, hidden = await start(table, a, b)
    viewers = {"ann": a, "bob": b}
    for name, viewer in viewers.items():
        assert {label(c) for c in hidden[name]} <= labels_in(viewer.last), "own cards are shown"
    actor = next(v for v in (a, b) if "verb-raise" in v.last)
    other = b if actor is a else a
    await actor.act("raise", 20)
    await other.until(lambda f: "verb-call" in f)
    await other.act("call")
    await a.until(lambda f: SEALED in f)
    await b.until(lambda f: SEALED in f)
    for name, viewer in viewers.items():
        # Every frame up to the showdown hid the other's cards; the showdown frame shows both.
        showdown_at = next(i for i, f in enumerate(viewer.frames) if SEALED in f)
        for frame in viewer.frames[:showdown_at]:
            assert_hidden(frame, hidden=hidden, viewer=name)
        every = {label(c) for cards in hidden.values() for c in cards}
        assert every <= labels_in(viewer.frames[showdown_at])
    assert state.doc["hand"]["seed_hash"] in a.frames[-1]
    # The seed stays secret once the hand is over: its seed series deals on (RULES.md §6).
    assert not any(state.doc["hand"]["server_seed"] in f for f in a.frames + b.frames)


async def test_spectator_never_receives_hidden_cards_and_cannot_act():
    table, ann, bob, a, b = await two_seated()
    cem = await sync_to_async(make_player)("cem")
    c = await connect(cem, table.pk)
    _, hidden = await start(table, a, b)
    await c.until(lambda f: "Hand 1" in f)
    assert not labels_in(c.last)
    assert "verb-" not in c.last  # no action buttons for a spectator
    version, epoch = c.version
    await c.send(verb="fold", version=str(version), epoch=epoch, action_id="c-1")
    await c.until(lambda f: '<p class="error">' in f)
    assert "not seated" in c.error()
    for frame in c.frames:
        assert_hidden(frame, hidden=hidden, viewer="cem")


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a form"),
        (json.dumps({"verb": "allin"}), "unknown command"),
        (json.dumps({"verb": "fold", "table": "999"}), "another table"),
        (json.dumps({"verb": "raise", "amount": "ten"}), "whole number"),
        (json.dumps({"verb": "raise", "amount": "1.5"}), "whole number"),
    ],
)
async def test_bad_input_gets_an_error_to_that_socket_only_and_changes_nothing(message, error):
    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    await a.drain()
    await b.drain()
    before = await service.load_table_state(table.pk)
    await a.comm.send_to(text_data=message)
    frame = await a.until(lambda f: '<p class="error">' in f)
    assert error in frame
    assert await b.comm.receive_nothing(timeout=0.3)  # the other player heard nothing
    after = await service.load_table_state(table.pk)
    assert after.version == before.version and after.doc == before.doc
    # The connection stays usable.
    await a.send(verb="sync")
    assert "table-version" in await a.receive()


async def test_not_your_turn_and_out_of_range_raise_are_refused_with_reasons():
    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    actor = next(v for v in (a, b) if "verb-raise" in v.last)
    waiting = b if actor is a else a
    await waiting.act("raise", 20)
    assert "not your turn" in waiting.error()
    await actor.act("raise", 100000)
    assert "the most you can raise to is 490" in actor.error()
    await actor.act("raise", 5)
    assert "the smallest raise is to 10" in actor.error()


async def test_stale_version_is_refused_and_a_repeated_action_id_applies_once():
    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    actor = next(v for v in (a, b) if "verb-raise" in v.last)
    version, epoch = actor.version
    fields = {"verb": "raise", "amount": "20", "version": str(version), "epoch": epoch, "action_id": "same"}
    await actor.send(**fields)
    await actor.until(lambda f: actor.version[0] == version + 1)
    await actor.send(**fields)  # a double click: the same action id again
    await actor.drain()
    state = await service.load_table_state(table.pk)
    assert state.version == version + 1
    await actor.send(**{**fields, "action_id": "new", "amount": "30"})  # version is stale now
    await actor.until(lambda f: '<p class="error">' in f)
    assert "changed since" in actor.error()
    assert (await service.load_table_state(table.pk)).version == version + 1


async def test_reconnecting_mid_hand_shows_own_cards_again():
    table, ann, bob, a, b = await two_seated()
    _, hidden = await start(table, a, b)
    await a.comm.disconnect()
    again = await connect(ann, table.pk)
    assert {label(c) for c in hidden["ann"]} <= labels_in(again.last)
    assert_hidden(again.last, hidden=hidden, viewer="ann")


async def test_anonymous_sockets_and_unknown_tables_are_refused():
    table = await sync_to_async(make_table)()
    comm = WebsocketCommunicator(
        application, f"/ws/table/{table.pk}/", headers=[(b"origin", b"http://127.0.0.1:8000")]
    )
    connected, code = await comm.connect()
    assert not connected and code == 4401
    ann = await sync_to_async(make_player)("ann")
    from tests.live.tablekit import session_cookie

    cookie = await sync_to_async(session_cookie)(ann)
    comm = WebsocketCommunicator(
        application, f"/ws/table/{table.pk + 1000}/", headers=[(b"origin", b"http://127.0.0.1:8000"), cookie]
    )
    connected, code = await comm.connect()
    assert not connected and code == 4404


async def test_private_tables_refuse_sockets_from_strangers_but_not_the_invited():
    from tests.live.tablekit import session_cookie

    owner = await sync_to_async(make_player)("ann")
    stranger = await sync_to_async(make_player)("eve")
    table = await sync_to_async(make_table)(private=True, created_by=owner)
    viewer = await connect(owner, table.pk)  # the creator may watch
    assert "table-version" in viewer.last
    cookie = await sync_to_async(session_cookie)(stranger)
    comm = WebsocketCommunicator(
        application, f"/ws/table/{table.pk}/", headers=[(b"origin", b"http://127.0.0.1:8000"), cookie]
    )
    connected, code = await comm.connect()
    assert not connected and code == 4404

    def invite(cookie_header):
        from django.contrib.sessions.backends.db import SessionStore

        key = cookie_header[1].decode().split("=", 1)[1]
        session = SessionStore(session_key=key)
        session["invited_tables"] = [table.pk]
        session.save()

    await sync_to_async(invite)(cookie)
    comm = WebsocketCommunicator(
        application, f"/ws/table/{table.pk}/", headers=[(b"origin", b"http://127.0.0.1:8000"), cookie]
    )
    connected, _ = await comm.connect()
    assert connected
    await comm.disconnect()


async def test_a_socket_behind_its_table_catches_up_in_one_frame_and_skips_the_rest():
    """A busy process: announcements queue up for a socket while it renders. The first it takes
    shows the newest state this process has (the whole table at that version), and the ones
    still queued for older versions send nothing more; no version is lost, none sent twice."""
    from channels.layers import get_channel_layer

    from games.live import announced
    from games.live.document import copy_doc
    from games.live.store import Versioned

    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    await a.drain()
    current = await service.load_table_state(table.pk)
    assert a.version == (current.version, current.doc["epoch"])
    newer = copy_doc(current.doc)
    newer["notice"] = "the newest state"
    announced.remember(table.pk, Versioned(version=current.version + 1, doc=newer, deadline=None))
    layer = get_channel_layer()
    stale = {
        "type": "table.version",
        "version": current.version,
        "epoch": current.doc["epoch"],
        "doc": current.doc,
    }
    await layer.group_send(service.group_name(table.pk), stale)  # queued before the newer one

    frame = await a.receive()

    assert a.version == (current.version + 1, current.doc["epoch"])
    assert "the newest state" in frame
    caught_up = announced.announcement(Versioned(version=current.version + 1, doc=newer, deadline=None))
    await layer.group_send(service.group_name(table.pk), caught_up)
    assert await a.comm.receive_nothing(timeout=0.5)  # already shown


async def test_with_someone_watching_the_table_s_frames_share_one_render_of_each_version():
    from games.tables.ui import regions

    table, ann, bob, a, b = await two_seated()
    regions.forget_shared()
    eve = await sync_to_async(make_player)("eve")
    watching = await connect(eve, table.pk)  # a third socket of the table in this process
    _, hidden = await start(table, a, b)
    await watching.until(lambda f: "Hand 1" in f)
    assert table.pk in regions._SHARED  # the frames came from the shared part
    assert_hidden(watching.last, hidden=hidden, viewer="eve")
    assert_hidden(a.last, hidden=hidden, viewer="ann")
    assert {label(c) for c in hidden["ann"]} <= labels_in(a.last)  # ann's own cards spliced in
