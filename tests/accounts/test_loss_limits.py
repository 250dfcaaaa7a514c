"""Loss limits per day, week and month (issue 36).

What a player may still lose this period is the limit less their net loss in settled hands since
the period began, less every chip on their seats (all of which they can still lose): a buy-in or
added chips must fit in it. Lowering or setting a limit applies at once; raising or removing one
only after 24 hours. The lowest active limit applies."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import LossLimit
from accounts.services import InvalidRequest, hand_settle, seat_buy_in, seat_cash_out, wallet_balance
from accounts.services.responsible import LossLimitReached, loss_limit_status, set_loss_limit
from tests.accounts.test_concurrency import assert_ledger_sound, outcome, run_together

pytestmark = pytest.mark.django_db

TABLE = 7


def buy(user, amount, table=TABLE, key=None):
    return seat_buy_in(
        user=user,
        table_id=table,
        amount=amount,
        idempotency_key=key or f"t:{timezone.now()}:{amount}:{table}",
    )


def test_a_buy_in_beyond_the_limit_is_refused_and_nothing_moves(player) -> None:
    set_loss_limit(user=player, period="day", amount=300)
    buy(player, 200)
    with pytest.raises(LossLimitReached, match="loss limit"):
        buy(player, 101, table=8)
    assert wallet_balance(user=player) == 800
    buy(player, 100, table=8)  # exactly up to the limit
    assert wallet_balance(user=player) == 700


def test_losses_in_settled_hands_use_the_limit_up_and_wins_give_room_back(player, make_user, fund) -> None:
    other = make_user()
    fund(other, 1000)
    set_loss_limit(user=player, period="week", amount=300)
    buy(player, 200)
    buy(other, 200)
    hand_settle(table_id=TABLE, deltas={player.pk: -150, other.pk: 150}, idempotency_key="h1")
    seat_cash_out(user=player, table_id=TABLE, idempotency_key="c1")
    status = loss_limit_status(user=player)
    assert status.net_loss == 150 and status.on_seats == 0 and status.room == 150
    with pytest.raises(LossLimitReached):
        buy(player, 151)
    buy(player, 150)
    hand_settle(table_id=TABLE, deltas={player.pk: 150, other.pk: -150}, idempotency_key="h2")
    assert loss_limit_status(user=player).room == 0  # back to even, but 300 chips on the seat


def test_the_lowest_active_limit_applies(player) -> None:
    set_loss_limit(user=player, period="month", amount=500)
    set_loss_limit(user=player, period="day", amount=900)
    set_loss_limit(user=player, period="week", amount=250)
    status = loss_limit_status(user=player)
    assert status.limit == 250 and status.period == "week"
    with pytest.raises(LossLimitReached):
        buy(player, 251)


def test_lowering_applies_at_once_raising_and_removing_after_24_hours(player) -> None:
    set_loss_limit(user=player, period="day", amount=300)
    set_loss_limit(user=player, period="day", amount=200)
    assert loss_limit_status(user=player).limit == 200
    row = set_loss_limit(user=player, period="day", amount=800)
    assert loss_limit_status(user=player).limit == 200
    assert row.next_amount == 800 and row.next_at is not None
    later = timezone.now() + timedelta(hours=24, seconds=1)
    assert loss_limit_status(user=player, now=later).limit == 800
    set_loss_limit(user=player, period="day", amount=None)
    assert loss_limit_status(user=player).limit == 200  # the removal waits too
    assert loss_limit_status(user=player, now=later).limit is None


def test_lowering_cancels_a_raise_waiting_its_24_hours(player) -> None:
    set_loss_limit(user=player, period="day", amount=300)
    set_loss_limit(user=player, period="day", amount=900)
    set_loss_limit(user=player, period="day", amount=100)
    later = timezone.now() + timedelta(hours=25)
    assert loss_limit_status(user=player, now=later).limit == 100


@pytest.mark.parametrize(
    ("period", "amount"), [("day", -1), ("day", 0), ("day", "100"), ("day", 1.5), ("year", 100), ("", 100)]
)
def test_bad_limits_are_refused_and_change_nothing(player, period, amount) -> None:
    with pytest.raises(InvalidRequest):
        set_loss_limit(user=player, period=period, amount=amount)
    assert not LossLimit.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_buy_ins_racing_as_the_limit_is_reached_only_one_goes_through(postgres_db, player) -> None:
    """Two tabs: each buy-in alone fits, both together would not. The per-user lock makes the
    second see the first's chips on its seat."""
    set_loss_limit(user=player, period="day", amount=300)
    results = run_together([lambda t=t: buy(player, 200, table=t, key=f"race:{t}") for t in (11, 12)])
    assert outcome(results) == {"ok": 1, "LossLimitReached": 1}
    assert wallet_balance(user=player) == 800
    assert_ledger_sound()


# --- the daily play-time limit: the same rule for raising it ---


def test_a_play_time_limit_lowers_at_once_and_rises_after_24_hours(player) -> None:
    from accounts.services.responsible import play_time_limits, set_play_time_limit

    set_play_time_limit(user=player, minutes=120)
    set_play_time_limit(user=player, minutes=60)
    assert play_time_limits(user_ids=[player.pk]) == {player.pk: 60}
    set_play_time_limit(user=player, minutes=300)
    set_play_time_limit(user=player, minutes=None)
    assert play_time_limits(user_ids=[player.pk]) == {player.pk: 60}
    later = timezone.now() + timedelta(hours=24, seconds=1)
    assert play_time_limits(user_ids=[player.pk], now=later) == {}


@pytest.mark.parametrize("minutes", [0, -5, 1441, "30", 2.5])
def test_a_bad_play_time_limit_is_refused_and_changes_nothing(player, minutes) -> None:
    from accounts.models import PlayTimeLimit
    from accounts.services.responsible import set_play_time_limit

    with pytest.raises(InvalidRequest, match="whole number of minutes"):
        set_play_time_limit(user=player, minutes=minutes)
    assert not PlayTimeLimit.objects.exists()


def test_the_profile_sets_a_play_time_limit(client, player) -> None:
    from django.urls import reverse

    from accounts.services.responsible import play_time_limits

    client.force_login(player)
    page = client.post(reverse("set_play_time_limit"), {"minutes": "90"}, follow=True).content.decode()
    assert "Your play-time limit is now 90 minutes a day." in page
    assert play_time_limits(user_ids=[player.pk]) == {player.pk: 90}
    bad = client.post(reverse("set_play_time_limit"), {"minutes": "lots"}, follow=True).content.decode()
    assert "whole number of minutes" in bad
