"""Practice tables: the computer plays through the same service and clock, with practice chips
that never touch the wallet or the ledger."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.utils import translation

from accounts.models import LedgerAccount
from accounts.services import wallet_balance
from games.engine.hand import Hand
from games.history.service import replay_steps
from games.live import practice, runtime, service
from games.live.views import build_view
from games.models import PlayedHand, Seat, Table
from games.tables.ui.regions import render_regions
from tests.live.tablekit import make_player

pytestmark = pytest.mark.django_db(transaction=True)


async def human_plays_until_a_hand_ends(table_id: int, user, *, limit: float = 30) -> None:
    """Act for the human (cheaply: decline dark, call or pass) while the clock moves the bot."""
    runtime.ensure_clock()
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while loop.time() < end:
        if await sync_to_async(PlayedHand.objects.filter(table_id=table_id, status="finished").exists)():
            return
        state = await service.load_table_state(table_id)
        hand = state.doc["hand"]
        if hand is None:
            await service.start_next_hand(table_id=table_id)  # do not wait for the start timer
            continue
        engine = Hand.from_json(hand["state"])
        legal = engine.legal()
        if legal is not None and hand["players"][legal.seat] == user.pk and "svara" not in hand:
            verb = "decline" if "decline" in legal.verbs else "call" if "call" in legal.verbs else "fold"
            await service.table_act(
                user=user,
                table_id=table_id,
                verb=verb,
                amount=None,
                client_version=state.version,
                action_id=f"h-{state.version}",
                epoch=state.doc["epoch"],
            )
        else:
            assert state.doc["timer"]["kind"] in ("bot", "settle", "start", "svara"), state.doc["timer"]
            await asyncio.sleep(0.2)
    raise AssertionError("no hand finished in time")


async def test_practice_hand_against_the_computer_leaves_the_wallet_alone():
    ann = await sync_to_async(make_player)("ann")
    table_id = await practice.practice_start(user=ann, level="hard")
    state = await service.load_table_state(table_id)
    seats = [s for s in state.doc["seats"] if s]
    assert sorted(s["chips"] for s in seats) == [500, 500]
    assert [s["bot"] for s in seats] == ["", "hard"]
    assert [s["name"] for s in seats] == ["ann", "Computer (hard)"]
    await human_plays_until_a_hand_ends(table_id, ann)
    assert await sync_to_async(wallet_balance)(user=ann) == 1000
    assert not await sync_to_async(LedgerAccount.objects.filter(kind="seat").exists)()
    record = await sync_to_async(PlayedHand.objects.get)(table_id=table_id, number=1)
    assert record.record["result"]["finished"] is True
    chips = await sync_to_async(
        lambda: sorted(Seat.objects.filter(table_id=table_id).values_list("table_chips", flat=True))
    )()
    assert sum(chips) == 1000 and chips != [500, 500]
    await sync_to_async(call_command)("audit_chips")


async def test_the_computer_is_named_in_the_viewers_language_on_the_table_in_the_log_and_in_the_replay():
    ann = await sync_to_async(make_player)("ann")
    table_id = await practice.practice_start(user=ann, level="hard")
    await human_plays_until_a_hand_ends(table_id, ann)
    state = await service.load_table_state(table_id)
    assert "Computer (hard)" in [s["name"] for s in state.doc["seats"] if s]  # stored in English
    record = await sync_to_async(PlayedHand.objects.get)(table_id=table_id, number=1)
    for language, name, other in (
        ("bg", "Компютър (труден)", "Computer (hard)"),
        ("en", "Computer (hard)", "Компютър"),
    ):
        with translation.override(language):
            view = build_view(state.doc, user_id=ann.pk, version=state.version)
            assert [s["name"] for s in view["seats"] if not s["empty"]] == ["ann", name]
            html = render_regions(view=view)
            assert name in html and other not in html  # the seats, the log and the last result
            steps = await sync_to_async(replay_steps)(record=record.record, seat=0)
            assert [seat.name for seat in steps[-1].seats] == ["ann", name]
            assert all(a.name in ("ann", name) for a in steps[-1].log)


async def test_one_practice_table_at_a_time_and_leaving_closes_it():
    ann = await sync_to_async(make_player)("ann")
    first = await practice.practice_start(user=ann, level="easy")
    second = await practice.practice_start(user=ann, level="normal")
    tables = await sync_to_async(
        lambda: dict(Table.objects.filter(kind="practice").values_list("pk", "status"))
    )()
    assert tables == {first: "closed", second: "open"}
    await service.table_leave(user=ann, table_id=second)
    assert await sync_to_async(lambda: Table.objects.get(pk=second).status)() == "closed"
    assert not await sync_to_async(Seat.objects.filter(table_id=second).exists)()


async def test_new_game_only_when_a_side_is_out_of_chips():
    ann = await sync_to_async(make_player)("ann")
    table_id = await practice.practice_start(user=ann, level="normal")
    with pytest.raises(practice.Refused, match="both sides can still play"):
        await practice.practice_new_game(user=ann, table_id=table_id)
    bob = await sync_to_async(make_player)("bob")
    with pytest.raises(practice.Refused, match="not your practice table"):
        await practice.practice_new_game(user=bob, table_id=table_id)

    def broke(current):
        return service.t.set_chips(current.doc, user_id=ann.pk, chips=5, now=0)

    await service.update_table(table_id, broke)
    state = await practice.practice_new_game(user=ann, table_id=table_id)
    assert sorted(s["chips"] for s in state.doc["seats"] if s) == [500, 500]


async def test_idle_practice_tables_are_closed():
    ann = await sync_to_async(make_player)("ann")
    table_id = await practice.practice_start(user=ann, level="easy")
    state = await service.load_table_state(table_id)
    touched = state.doc.get("touched", 0)
    assert await practice.close_idle_practice_tables(now=touched + 60) == []
    assert await practice.close_idle_practice_tables(now=touched + practice.PRACTICE_IDLE_SECONDS + 1) == [
        table_id
    ]
    assert await sync_to_async(lambda: Table.objects.get(pk=table_id).status)() == "closed"


async def test_unknown_level_is_refused():
    ann = await sync_to_async(make_player)("ann")
    with pytest.raises(practice.Refused, match="choose a level"):
        await practice.practice_start(user=ann, level="godlike")


async def test_practice_chips_never_come_from_the_wallet():
    ann = await sync_to_async(make_player)("ann")
    table_id = await practice.practice_start(user=ann, level="easy")
    with pytest.raises(service.Refused, match="practice chips cannot be added"):
        await service.table_add_chips(user=ann, table_id=table_id, amount=100)
    bob = await sync_to_async(make_player)("bob")
    with pytest.raises(service.Refused):
        await service.table_sit(user=bob, table_id=table_id, position=1, buy_in=500)
    assert await sync_to_async(wallet_balance)(user=ann) == 1000
    assert await sync_to_async(wallet_balance)(user=bob) == 1000


async def test_new_game_over_the_socket_when_the_player_is_broke():
    from tests.live.tablekit import connect

    ann = await sync_to_async(make_player)("ann")
    table_id = await practice.practice_start(user=ann, level="easy")
    await service.update_table(table_id, lambda s: service.t.set_chips(s.doc, user_id=ann.pk, chips=5, now=0))
    viewer = await connect(ann, table_id)
    assert "newgame" in viewer.last
    await viewer.send(verb="newgame", action_id="ng-1")
    await viewer.until(lambda f: "newgame" not in f and "table-version" in f)
    state = await service.load_table_state(table_id)
    assert sorted(s["chips"] for s in state.doc["seats"] if s) == [500, 500]
