"""Responsible play at the tables (issue 36): a player on a time-out or self-excluded cannot sit,
buy in or add chips; a self-exclusion closes every seat, chips back to the wallet."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from accounts.services import wallet_balance
from accounts.services.responsible import take_break
from games.live import service
from games.live.document import Refused
from games.live.entries import log_text
from games.models import Seat
from tests.live.tablekit import make_player, make_table
from tests.live.test_service_hands import audit_clean, seated_table

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_player_on_a_time_out_cannot_sit_and_nothing_moves() -> None:
    ann = await sync_to_async(make_player)("ann")
    table = await sync_to_async(make_table)()
    await sync_to_async(take_break)(user=ann, period="24h")

    with pytest.raises(Refused, match="taking a break from play until"):
        await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=200)

    assert not await sync_to_async(Seat.objects.filter(user=ann).exists)()
    assert await sync_to_async(wallet_balance)(user=ann) == 1000


async def test_a_time_out_closes_the_room_every_seat_with_the_chips_back_and_no_chips_added() -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"], buy_in=200)
    await sync_to_async(take_break)(user=ann, period="week")

    assert not await sync_to_async(Seat.objects.filter(user=ann).exists)()
    state = await service.load_table_state(table.pk)
    assert all(s is None or s["user_id"] != ann.pk for s in state.doc["seats"])
    assert await sync_to_async(wallet_balance)(user=ann) == 1000
    await sync_to_async(audit_clean)()
    with pytest.raises(Refused, match="taking a break from play until"):
        await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=200)
    with pytest.raises(Refused):
        await service.table_add_chips(user=ann, table_id=table.pk, amount=100)
    assert await sync_to_async(wallet_balance)(user=ann) == 1000
    assert await sync_to_async(Seat.objects.filter(user=bob).exists)()


async def test_a_self_exclusion_closes_every_seat_with_the_chips_back_in_the_wallet() -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"], buy_in=300)
    other = await sync_to_async(make_table)(name="other")
    await service.table_sit(user=ann, table_id=other.pk, position=1, buy_in=200)
    assert await sync_to_async(wallet_balance)(user=ann) == 500

    await sync_to_async(take_break)(user=ann, period="6months")

    assert not await sync_to_async(Seat.objects.filter(user=ann).exists)()
    for t in (table, other):
        state = await service.load_table_state(t.pk)
        assert all(s is None or s["user_id"] != ann.pk for s in state.doc["seats"])
    assert await sync_to_async(wallet_balance)(user=ann) == 1000
    await sync_to_async(audit_clean)()
    with pytest.raises(Refused, match="excluded yourself from play until"):
        await service.table_sit(user=ann, table_id=other.pk, position=1, buy_in=200)
    assert await sync_to_async(Seat.objects.filter(user=bob).exists)()


async def test_a_loss_limit_refuses_a_seat_whose_buy_in_does_not_fit_and_nothing_moves() -> None:
    from accounts.services.responsible import set_loss_limit

    ann = await sync_to_async(make_player)("ann")
    table = await sync_to_async(make_table)()
    await sync_to_async(set_loss_limit)(user=ann, period="day", amount=250)

    with pytest.raises(Refused, match="loss limit for the day"):
        await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=300)

    assert not await sync_to_async(Seat.objects.filter(user=ann).exists)()
    state = await service.load_table_state(table.pk)
    assert all(s is None for s in state.doc["seats"])
    assert await sync_to_async(wallet_balance)(user=ann) == 1000
    await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=250)


def _played_today(user, *, minutes: int) -> None:
    """A hand of ``minutes`` that ``user`` played today, at a table of its own (as the records keep it)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import HandPlayer, PlayedHand

    ended = timezone.now()
    started = ended - timedelta(minutes=minutes)
    started = max(started, timezone.localtime(ended).replace(hour=0, minute=0, second=0, microsecond=0))
    hand = PlayedHand.objects.create(
        table=make_table(name="earlier"),
        number=1,
        status=PlayedHand.Status.FINISHED,
        started_at=started,
        ended_at=ended,
        server_seed_hash="0" * 64,
        server_seed="1" * 64,
    )
    HandPlayer.objects.create(
        hand=hand,
        user=user,
        position=0,
        chips_before=500,
        chips_after=500,
        started_at=started,
        hand_status=hand.status,
    )


async def test_a_player_past_their_daily_play_time_is_dealt_no_new_hand_and_cannot_sit() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from accounts.services.responsible import set_play_time_limit

    # Played from midnight: a limit of all the minutes so far today is reached (at any hour).
    midnight = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    so_far = max(1, int((timezone.now() - midnight) / timedelta(minutes=1)))
    table, (ann, bob, cat) = await seated_table(["ann", "bob", "cat"], dark_play=False)
    await sync_to_async(_played_today)(ann, minutes=so_far + 1)
    await sync_to_async(set_play_time_limit)(user=ann, minutes=so_far)

    state = await service.start_next_hand(table_id=table.pk)

    assert state.doc["hand"] is not None
    assert ann.pk not in state.doc["hand"]["players"]
    assert set(state.doc["hand"]["players"]) == {bob.pk, cat.pk}
    assert state.doc["seats"][0]["sitting_out"]
    assert "ann has reached their play-time limit for today" in log_text(state.doc)
    other = await sync_to_async(make_table)(name="other")
    with pytest.raises(Refused, match=r"played your \d+ minutes for today"):
        await service.table_sit(user=ann, table_id=other.pk, position=0, buy_in=200)


async def test_a_self_excluded_players_table_sockets_are_told_why_and_closed() -> None:
    from tests.tables.test_consumer import two_seated

    table, ann, bob, a, b = await two_seated()
    await a.drain()

    await sync_to_async(take_break)(user=ann, period="year")

    frame = await a.until(lambda f: "excluded yourself from play" in f)
    assert "chips back in your wallet" in frame
    closed = await a.comm.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4403}
    await b.until(lambda f: "ann" in f and "leav" in f)
    assert await sync_to_async(wallet_balance)(user=ann) == 1000
