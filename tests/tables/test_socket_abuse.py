"""What a cheater or a script sends down a table or lobby socket: refused, bounded, and never a
traceback. Each message gets the refusal notice and changes nothing; a flood closes the socket
with 4008; commands queued behind a socket that closed are not run."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.ledger.audit import audit_ledger
from accounts.services import seat_balance
from games.live import service
from games.models import Seat
from svara_site.asgi import application
from tests.live.tablekit import connect, make_player, make_table
from tests.tables.test_consumer import start, two_seated

pytestmark = pytest.mark.django_db(transaction=True)

NESTED = "[" * 1500 + "]" * 1500  # deeper than Python's JSON parser goes; under the size limit


async def _refused(viewer, message: str) -> str:
    """Send raw text; the error frame that answers it."""
    await viewer.drain()
    await viewer.comm.send_to(text_data=message)
    await viewer.until(lambda f: '<p class="error">' in f)
    return viewer.error() or ""


def _move(viewer, **fields) -> str:
    version, epoch = viewer.version
    return json.dumps({"verb": "fold", "version": str(version), "epoch": epoch, "action_id": "m-1", **fields})


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"version": "²"}, "which table version"),
        ({"version": "٣"}, "which table version"),  # an Arabic-Indic digit: isdigit() but not ours
        ({"verb": "raise", "amount": "²"}, "whole number"),
        ({"verb": "raise", "amount": [1]}, "whole number"),
        ({"verb": "raise", "amount": 10**40}, "whole number"),
        ({"verb": ["fold"]}, "unknown command"),
        ({"verb": {"fold": 1}}, "unknown command"),
        ({"amount": json.loads("[" * 900 + "]" * 900)}, "whole number"),
        ({"epoch": []}, "restarted"),
        ({"epoch": {}}, "restarted"),
        ({"epoch": 0}, "restarted"),
        ({"epoch": ""}, "restarted"),
        ({"action_id": "\ud800"}, "action id"),
        ({"action_id": ["x"]}, "action id"),
    ],
)
async def test_a_malformed_move_is_refused_and_changes_nothing(fields, error) -> None:
    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    actor = next(v for v in (a, b) if "verb-raise" in v.last)
    other = b if actor is a else a
    await other.drain()
    before = await service.load_table_state(table.pk)
    assert error in await _refused(actor, _move(actor, **fields))
    after = await service.load_table_state(table.pk)
    assert (after.version, after.doc) == (before.version, before.doc)
    assert await other.comm.receive_nothing(timeout=0.3)  # nothing was announced
    await actor.send(verb="sync")  # the socket is still usable
    assert "table-version" in await actor.receive()


@pytest.mark.parametrize(
    "message",
    [
        NESTED,
        '{"verb": "sync", "x": ' + NESTED + "}",
        json.dumps({"verb": "sit", "position": "²", "buy_in": "500"}),
        json.dumps({"verb": "sit", "position": "0", "buy_in": "\uff15\uff10\uff10"}),  # full-width 500
        json.dumps({"verb": "add", "amount": "¹⁰⁰"}),
        '{"verb": "seed", "client_seed": "\\ud800x"}',  # a lone surrogate: no UTF-8 form
        json.dumps({"verb": "seed", "client_seed": "ab\x00cd"}),  # PostgreSQL's jsonb refuses NUL
        json.dumps({"verb": "seed", "client_seed": "ab\u202ecd"}),  # a format character
        json.dumps({"verb": "seed", "client_seed": "   "}),
        json.dumps({"verb": "seed", "client_seed": "x" * 65}),
    ],
)
async def test_malformed_table_commands_are_refused_and_change_nothing(message) -> None:
    table, ann, bob, a, b = await two_seated()
    cem = await sync_to_async(make_player)("cem")
    c = await connect(cem, table.pk)
    before = await service.load_table_state(table.pk)
    seeds_before = await database_sync_to_async(
        lambda: sorted(Seat.objects.values_list("client_seed", flat=True))
    )()
    for viewer in (a, c):  # a seated player and a spectator
        assert await _refused(viewer, message)
    after = await service.load_table_state(table.pk)
    assert (after.version, after.doc) == (before.version, before.doc)
    seeds_after = await database_sync_to_async(
        lambda: sorted(Seat.objects.values_list("client_seed", flat=True))
    )()
    assert seeds_after == seeds_before


async def test_a_settable_client_seed_with_accents_and_symbols_is_taken() -> None:
    table, ann, bob, a, b = await two_seated()
    await a.send(verb="seed", client_seed=" Ана ♥ 7♣ ", action_id="seed-1")
    await asyncio.sleep(0.3)
    state = await service.load_table_state(table.pk)
    assert state.doc["seats"][0]["client_seed"] == "Ана ♥ 7♣"


async def test_a_repeated_action_id_is_answered_to_its_sender_and_announced_to_nobody() -> None:
    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    actor = next(v for v in (a, b) if "verb-raise" in v.last)
    other = b if actor is a else a
    message = _move(actor, verb="raise", amount="20", action_id="once-1")
    await actor.comm.send_to(text_data=message)
    await other.until(lambda f: "raises to 20" in f)
    await actor.until(lambda f: "raises to 20" in f)
    await actor.drain()
    await other.drain()
    applied = await service.load_table_state(table.pk)

    await actor.comm.send_to(text_data=message)  # the page replays it (a reconnect)
    frame = await actor.receive()
    assert 'id="table-version"' in frame and '<p class="error">' not in frame
    assert await other.comm.receive_nothing(timeout=0.4)
    again = await service.load_table_state(table.pk)
    assert again.version == applied.version


async def _closed_with(comm: WebsocketCommunicator, *, timeout: float = 5) -> tuple[int | None, int]:
    """Read until the server closes: its close code and how many frames came before."""
    frames = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        output = await comm.receive_output(timeout=deadline - time.monotonic())
        if output["type"] == "websocket.close":
            return output.get("code"), frames
        frames += 1
    return None, frames


async def test_a_table_socket_that_floods_is_closed_with_4008() -> None:
    ann = await sync_to_async(make_player)("ann")
    table = await sync_to_async(make_table)()
    viewer = await connect(ann, table.pk)
    for _ in range(200):
        await viewer.comm.send_to(text_data='{"verb": "sync"}')
    code, frames = await _closed_with(viewer.comm)
    assert code == 4008
    assert frames <= 25  # the burst was answered, the flood was not


async def test_the_lobby_socket_does_no_work_for_a_message_and_closes_on_a_flood() -> None:
    comm = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://127.0.0.1:8000")])
    connected, _ = await comm.connect(timeout=5)
    assert connected
    await comm.receive_from(timeout=3)  # the list, once
    while not await comm.receive_nothing(timeout=0.5):  # a seat change left by an earlier test
        await comm.receive_from()
    for _ in range(3):
        await comm.send_to(text_data="x")
    assert await comm.receive_nothing(timeout=0.4)  # no render, no query: nothing comes back
    for _ in range(100):
        await comm.send_to(text_data="x")
    code, _frames = await _closed_with(comm)
    assert code == 4008


async def test_commands_queued_behind_a_closed_socket_are_not_run() -> None:
    ann = await sync_to_async(make_player)("ann")
    table = await sync_to_async(make_table)()
    viewer = await connect(ann, table.pk)
    await viewer.send(verb="sit", position="0", buy_in="500", action_id="sit")
    await viewer.until(lambda f: "ann sits down" in f)
    busy = asyncio.ensure_future(database_sync_to_async(time.sleep)(1.0))  # the database thread is busy
    await asyncio.sleep(0.05)
    for n in range(5):
        await viewer.send(verb="add", amount="100", action_id=f"add-{n}")
    await asyncio.sleep(0.1)
    await viewer.comm.disconnect()
    await busy
    await asyncio.sleep(0.5)
    balance = await database_sync_to_async(seat_balance)(user=ann, table_id=table.pk)
    assert balance <= 600  # the one add that was running, not the four queued behind it
    assert (await database_sync_to_async(audit_ledger)()).ok


NASTY = ["²", "", None, [], {}, 0, -1, 10**30, "\ud800", "\x00", "1" * 5000, True, 1.5, "٣", "<b>x</b>"]
FIELDS = ["verb", "amount", "version", "epoch", "action_id", "position", "buy_in", "client_seed", "table"]
VERBS = ["fold", "raise", "sit", "add", "seed", "leave", "sitout", "newgame", "sync", "dark"]


async def test_fuzzed_messages_all_get_an_answer_and_no_traceback(caplog) -> None:
    """Every field of every command with every nasty value: an answer each time, nothing raised,
    no chip created or lost."""
    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    caplog.set_level(logging.ERROR)
    messages = [
        json.dumps({"verb": verb, field: value, "action_id": f"f{n}"})
        for n, (verb, field, value) in enumerate(itertools.product(VERBS, FIELDS, NASTY))
        if not (field == "verb" and value is None)
    ][::7]  # a spread over every verb, field and value, in a test that stays quick
    viewer = a
    for count, message in enumerate(messages):
        if count % 15 == 0:  # a fresh socket before the message budget runs out
            await viewer.comm.disconnect()
            viewer = await connect(ann, table.pk)
        await viewer.comm.send_to(text_data=message)
        await viewer.receive(timeout=5)
        await viewer.drain(timeout=0.05)
    await viewer.comm.disconnect()
    report = await database_sync_to_async(audit_ledger)()
    assert report.ok, report.lines()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
