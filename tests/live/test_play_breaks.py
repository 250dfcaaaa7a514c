"""Responsible play at the tables (issue 36): a player on a time-out or self-excluded cannot sit,
buy in or add chips; a self-exclusion closes every seat, chips back to the wallet."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from accounts.services import wallet_balance
from accounts.services.responsible import take_break
from games.live import service
from games.live.document import Refused
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


async def test_a_seated_player_who_takes_a_time_out_cannot_add_chips() -> None:
    table, (ann, _bob) = await seated_table(["ann", "bob"], buy_in=200)
    await sync_to_async(take_break)(user=ann, period="week")

    with pytest.raises(Refused, match="taking a break from play until"):
        await service.table_add_chips(user=ann, table_id=table.pk, amount=100)

    state = await service.load_table_state(table.pk)
    assert state.doc["seats"][0]["chips"] == 200
    assert await sync_to_async(wallet_balance)(user=ann) == 800


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
