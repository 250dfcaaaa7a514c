"""Free chips: sign-up bonus, daily bonus (rolling 24 h), refill (below 200, hourly)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from accounts.models import LedgerAccount, LedgerTransaction
from accounts.services import (
    GrantNotAvailable,
    UnknownAccount,
    UserBanned,
    audit_ledger,
    ban_user,
    grant_signup_bonus,
    grant_status,
    hand_settle,
    seat_buy_in,
    wallet_balance,
    wallet_claim_daily_bonus,
    wallet_claim_refill,
)
from accounts.services.grants import _wait_text

pytestmark = pytest.mark.django_db

T0 = timezone.now().replace(microsecond=0)


def test_signup_bonus_is_1000_from_the_house_and_granted_once(make_user):
    user = make_user()
    first = grant_signup_bonus(user=user)
    again = grant_signup_bonus(user=user)
    assert again.pk == first.pk
    assert first.kind == "signup_bonus" and first.amount == 1000
    assert wallet_balance(user=user) == 1000
    assert LedgerAccount.objects.get(key="house").balance == -1000
    assert audit_ledger().ok


def test_daily_bonus_once_per_rolling_24_hours(player):
    txn = wallet_claim_daily_bonus(user=player, now=T0)
    assert txn.amount == 500 and txn.kind == "daily_bonus" and txn.created_at == T0
    assert wallet_balance(user=player) == 1500

    with pytest.raises(
        GrantNotAvailable, match="already claimed today's bonus; the next one is in 24 h 0 min"
    ):
        wallet_claim_daily_bonus(user=player, now=T0)
    with pytest.raises(GrantNotAvailable, match="next one is in 1 min"):
        wallet_claim_daily_bonus(user=player, now=T0 + timedelta(hours=23, minutes=59, seconds=30))
    assert wallet_balance(user=player) == 1500

    wallet_claim_daily_bonus(user=player, now=T0 + timedelta(hours=24))
    assert wallet_balance(user=player) == 2000
    assert LedgerTransaction.objects.filter(kind="daily_bonus").count() == 2
    assert audit_ledger().ok


def test_daily_bonus_keys_chain_on_the_previous_claim(player):
    first = wallet_claim_daily_bonus(user=player, now=T0)
    second = wallet_claim_daily_bonus(user=player, now=T0 + timedelta(days=1))
    assert first.idempotency_key == f"grant:daily_bonus:{player.pk}:after:0"
    assert second.idempotency_key == f"grant:daily_bonus:{player.pk}:after:{first.pk}"


def test_a_user_without_chips_can_claim_the_daily_bonus(make_user):
    user = make_user()
    wallet_claim_daily_bonus(user=user, now=T0)
    assert wallet_balance(user=user) == 500


def lose_down_to(player, winner, *, left: int, table_id: int = 50) -> None:
    """Seat the player with all their wallet and settle a hand that leaves them ``left`` chips."""
    held = wallet_balance(user=player)
    seat_buy_in(user=player, table_id=table_id, amount=held, idempotency_key=f"sit-{uuid.uuid4()}")
    if not LedgerAccount.objects.filter(key=f"seat:{table_id}:{winner.pk}").exists():
        seat_buy_in(user=winner, table_id=table_id, amount=10, idempotency_key=f"sit-{winner.pk}")
    hand_settle(
        table_id=table_id,
        deltas={player.pk: left - held, winner.pk: held - left},
        idempotency_key=f"lose-{uuid.uuid4()}",
    )


@pytest.fixture
def winner(make_user):
    user = make_user()
    grant_signup_bonus(user=user)
    return user


def test_refill_tops_wallet_and_seats_back_to_1000(player, winner):
    lose_down_to(player, winner, left=150)
    assert grant_status(user=player, now=T0).refill_possible

    txn = wallet_claim_refill(user=player, now=T0)
    assert txn.kind == "refill" and txn.amount == 850
    # The 150 at the table count: wallet 850 + seat 150 = 1,000.
    assert wallet_balance(user=player) == 850
    assert audit_ledger().ok


def test_refill_is_refused_at_200_or_more(player, winner, snapshot):
    with pytest.raises(GrantNotAvailable, match=r"fewer than 200 chips .* you have 1,000"):
        wallet_claim_refill(user=player, now=T0)
    with translation.override("bg"), pytest.raises(GrantNotAvailable, match="1\xa0000"):
        wallet_claim_refill(user=player, now=T0)  # grouped as every page writes chips
    lose_down_to(player, winner, left=200)
    before = snapshot()
    with pytest.raises(GrantNotAvailable, match="you have 200"):
        wallet_claim_refill(user=player, now=T0)
    assert snapshot() == before


def test_refill_at_most_once_an_hour(player, winner):
    lose_down_to(player, winner, left=0)
    wallet_claim_refill(user=player, now=T0)
    lose_down_to(player, winner, left=10)
    assert not grant_status(user=player, now=T0 + timedelta(minutes=30)).refill_possible
    with pytest.raises(GrantNotAvailable, match="less than an hour ago; the next one is in 30 min"):
        wallet_claim_refill(user=player, now=T0 + timedelta(minutes=30))
    txn = wallet_claim_refill(user=player, now=T0 + timedelta(hours=1))
    assert txn.amount == 990
    assert LedgerTransaction.objects.filter(kind="refill").count() == 2


def test_a_banned_user_gets_no_grants(player, staff, winner):
    lose_down_to(player, winner, left=0)
    ban_user(user=player, reason="bot", staff_user=staff)
    with pytest.raises(UserBanned):
        wallet_claim_daily_bonus(user=player, now=T0)
    with pytest.raises(UserBanned):
        wallet_claim_refill(user=player, now=T0)
    assert wallet_balance(user=player) == 0


def test_grant_status_tells_when_the_next_bonus_is_due(player):
    assert grant_status(user=player, now=T0).daily_bonus_at is None
    wallet_claim_daily_bonus(user=player, now=T0)
    status = grant_status(user=player, now=T0 + timedelta(hours=1))
    assert status.daily_bonus_at == T0 + timedelta(hours=24)
    assert status.chips_held == 1500 and not status.refill_possible


def test_grants_refuse_unknown_users(db):
    for call in (grant_signup_bonus, wallet_claim_daily_bonus, wallet_claim_refill):
        with pytest.raises(UnknownAccount):
            call(user=None)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(1, "1 min"), (59, "1 min"), (61, "2 min"), (3600, "1 h 0 min"), (86399, "24 h 0 min")],
)
def test_wait_text_rounds_up(seconds, text):
    assert _wait_text(timedelta(seconds=seconds)) == text
