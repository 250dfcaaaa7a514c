"""Responsible play at the table, live (issue 36; games/tables/care.py): the reality check waits for
the end of the player's hand, sits them out while they read it, and answers Continue and Take a
break; the warnings 5 minutes and 1 minute before the daily play-time limit are said through the
table's live region."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from accounts.models import PlayBreak
from accounts.services import wallet_balance
from accounts.services.responsible import SESSION_CHECKED, SESSION_START, set_play_time_limit
from games.live import service
from games.models import Seat
from svara_site.asgi import application
from tests.live.tablekit import Viewer, connect, make_player, make_table
from tests.live.test_play_breaks import _played_today
from tests.tables.test_consumer_announce import said

pytestmark = pytest.mark.django_db(transaction=True)

CARE_RE = re.compile(r'<section id="table-care" hx-swap-oob="true"[^>]*>(.*?)</section>', re.S)


def care(frame: str) -> str | None:
    """The care region a frame carries (None: the frame leaves it as it was)."""
    match = CARE_RE.search(frame)
    return match.group(1) if match else None


def _cookie_with_session(user, *, began: timedelta) -> tuple[bytes, bytes]:
    """A session that logged in ``began`` ago and has not answered a reality check since."""
    client = Client()
    client.force_login(user)
    session = client.session
    moment = (timezone.now() - began).isoformat()
    session[SESSION_START] = session[SESSION_CHECKED] = moment
    session.save()
    return (b"cookie", f"sessionid={session.session_key}".encode())


async def connect_with_session(user, table_id: int, *, began: timedelta) -> Viewer:
    cookie = await sync_to_async(_cookie_with_session)(user, began=began)
    return await _connect_with_cookie(cookie, table_id)


async def _connect_with_cookie(cookie: tuple[bytes, bytes], table_id: int) -> Viewer:
    comm = WebsocketCommunicator(
        application,
        f"/ws/table/{table_id}/",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1"), cookie],
    )
    connected, code = await comm.connect(timeout=5)
    assert connected, code
    viewer = Viewer(comm)
    await viewer.receive()
    return viewer


async def _reality_check_every_15_minutes(user) -> None:
    user.reality_check_minutes = 15
    await sync_to_async(user.save)(update_fields=["reality_check_minutes"])


async def test_the_reality_check_waits_for_the_end_of_the_hand_sits_out_and_continue_deals_in_again():
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)(dark_play=False)
    await _reality_check_every_15_minutes(ann)
    await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=500)
    await service.table_sit(user=bob, table_id=table.pk, position=1, buy_in=500)
    state = await service.start_next_hand(table_id=table.pk)
    assert ann.pk in state.doc["hand"]["players"]
    # Due a second and a half after ann's socket connects, in the middle of her hand.
    a = await connect_with_session(ann, table.pk, began=timedelta(minutes=15) - timedelta(seconds=1.5))
    b = await connect(bob, table.pk)
    assert "Hand 1" in a.last and "Hand 1" in b.last

    await asyncio.sleep(2.5)  # due now (the socket woke for it), but ann is in the hand
    await a.drain()
    await b.drain()
    assert not any("Reality check" in (care(f) or "") for f in a.frames)

    actor = next(v for v in (a, b) if "verb-fold" in v.last)
    await actor.act("fold")
    frame = await a.until(lambda f: "Reality check" in (care(f) or ""))
    shown = care(frame)
    assert "15 minutes this session" in shown and "Net chips in your hands since you logged in" in shown
    assert 'value="carecontinue"' in shown and 'value="carebreak"' in shown and 'form="logout-form"' in shown
    assert any(line.startswith("Reality check: 15 minutes this session") for line in said(frame))
    # Sat out while reading it: the next hand is dealt without ann.
    await a.until(lambda f: "ann sits out" in f)
    state = await service.load_table_state(table.pk)
    assert state.doc["seats"][0]["sitting_out"]

    await a.send(verb="carecontinue")
    frame = await a.until(lambda f: care(f) is not None and "Reality check" not in care(f))
    await a.until(lambda f: "ann is back" in f or "ann comes back" in f)
    state = await service.load_table_state(table.pk)
    assert not state.doc["seats"][0]["sitting_out"]


async def test_a_spectators_reality_check_shows_at_once_and_take_a_break_closes_the_room():
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)()
    other = await sync_to_async(make_table)(name="other")
    await service.table_sit(user=ann, table_id=other.pk, position=0, buy_in=300)
    await service.table_sit(user=bob, table_id=other.pk, position=1, buy_in=300)
    await _reality_check_every_15_minutes(ann)
    a = await connect_with_session(ann, table.pk, began=timedelta(minutes=20))
    assert "20 minutes this session" in care(a.last)

    await a.send(verb="carebreak", period="6months")  # a self-exclusion is for the profile
    await a.until(lambda f: '<p class="error">' in f)
    assert "Pick one of the offered lengths" in a.error()
    assert not await sync_to_async(PlayBreak.objects.filter(user=ann).exists)()

    await a.send(verb="carebreak", period="24h")
    await a.until(lambda f: "taking a break from play" in f)
    closed = await a.comm.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4403}
    current = await sync_to_async(PlayBreak.objects.get)(user=ann)
    assert current.kind == PlayBreak.Kind.TIME_OUT
    # Every seat closed, chips back in the wallet.
    assert not await sync_to_async(Seat.objects.filter(user=ann).exists)()
    assert await sync_to_async(wallet_balance)(user=ann) == 1000


async def test_continue_at_one_table_answers_the_reality_check_at_the_others():
    ann = await sync_to_async(make_player)("ann")
    first = await sync_to_async(make_table)(name="first")
    second = await sync_to_async(make_table)(name="second")
    await _reality_check_every_15_minutes(ann)
    cookie = await sync_to_async(_cookie_with_session)(ann, began=timedelta(minutes=16))
    tabs = [await _connect_with_cookie(cookie, t.pk) for t in (first, second)]
    for tab in tabs:
        assert "16 minutes this session" in care(tab.last)

    await tabs[0].send(verb="carecontinue")
    for tab in tabs:
        await tab.until(lambda f: care(f) is not None and "Reality check" not in care(f))


async def test_no_reality_check_before_its_interval_or_when_it_is_off():
    ann = await sync_to_async(make_player)("ann")
    table = await sync_to_async(make_table)()
    a = await connect_with_session(ann, table.pk, began=timedelta(hours=5))  # off
    assert not (care(a.last) or "").strip()
    await _reality_check_every_15_minutes(ann)
    a2 = await connect_with_session(ann, table.pk, began=timedelta(minutes=10))
    assert "Reality check" not in (care(a2.last) or "")


@pytest.mark.parametrize(("limit", "warning"), [(5, "4"), (2, "1")])
async def test_play_time_warnings_are_said_before_the_limit(limit, warning):
    ann = await sync_to_async(make_player)("ann")
    table = await sync_to_async(make_table)()
    await sync_to_async(_played_today)(ann, minutes=1)
    await sync_to_async(set_play_time_limit)(user=ann, minutes=limit)
    a = await connect(ann, table.pk)
    expected = {
        "4": "5 minutes of play left today: after that, no new hands until tomorrow.",
        "1": "1 minute of play left today: after that, no new hands until tomorrow.",
    }[warning]
    assert expected in (care(a.last) or "")
    assert expected in said(a.last)
    # Said once: the next frame does not say it again.
    await a.send(verb="sync")
    frame = await a.receive()
    assert expected not in said(frame)


async def test_a_warning_comes_by_itself_while_a_hand_runs_the_time_down():
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)(dark_play=False)
    # 5 minutes and 2 seconds left: the 5-minute warning is due two seconds into a hand.
    await sync_to_async(_played_today)(ann, minutes=1)
    await sync_to_async(set_play_time_limit)(user=ann, minutes=6)
    await sync_to_async(_move_back)(ann, seconds=-2)
    a = await connect(ann, table.pk)
    b = await connect(bob, table.pk)
    await a.send(verb="sit", position="0", buy_in="500", action_id="s-a")
    await a.until(lambda f: "ann sits down" in f)
    await b.send(verb="sit", position="1", buy_in="500", action_id="s-b")
    await a.until(lambda f: "bob sits down" in f)
    assert not any("minutes of play left" in line for f in a.frames for line in said(f))
    await service.start_next_hand(table_id=table.pk)
    frame = await a.until(lambda f: any("5 minutes of play left" in line for line in said(f)), timeout=8)
    assert "5 minutes of play left today" in care(frame)


def _move_back(user, *, seconds: int) -> None:
    """Shorten the hand ``_played_today`` recorded by ``-seconds`` (negative: shorter)."""
    from games.models import HandPlayer

    row = HandPlayer.objects.get(user=user)
    row.started_at -= timedelta(seconds=seconds)
    row.save(update_fields=["started_at"])
