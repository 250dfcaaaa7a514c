"""The transfer API: buy-in, cash-out, hand settlement, staff adjustment, idempotency, bad input."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from accounts.models import LedgerAccount, LedgerTransaction, User
from accounts.services import (
    IdempotencyConflict,
    InsufficientFunds,
    InvalidRequest,
    LedgerError,
    UnknownAccount,
    UserBanned,
    audit_ledger,
    ban_user,
    hand_settle,
    seat_balance,
    seat_buy_in,
    seat_cash_out,
    wallet_adjust,
    wallet_balance,
)
from accounts.staff_log.errors import BadStaffForm, NotPermitted

pytestmark = pytest.mark.django_db


def entries_of(txn: LedgerTransaction) -> dict[str, int]:
    return dict(txn.entries.values_list("account__key", "amount"))


# --- buy-in and cash-out ---


def test_buy_in_moves_chips_from_wallet_to_seat(player):
    txn = seat_buy_in(user=player, table_id=7, amount=400, idempotency_key="t7-buy-1")

    assert wallet_balance(user=player) == 600
    assert seat_balance(user=player, table_id=7) == 400
    assert txn.kind == "buy_in" and txn.amount == 400 and txn.created_by == player
    assert entries_of(txn) == {f"wallet:{player.pk}": -400, f"seat:7:{player.pk}": 400}
    assert audit_ledger().ok


def test_seat_accounts_are_per_table(player):
    seat_buy_in(user=player, table_id=1, amount=100, idempotency_key="a")
    seat_buy_in(user=player, table_id=2, amount=300, idempotency_key="b")
    assert seat_balance(user=player, table_id=1) == 100
    assert seat_balance(user=player, table_id=2) == 300
    assert wallet_balance(user=player) == 600


def test_buy_in_beyond_the_wallet_is_refused_and_changes_nothing(player, snapshot):
    before = snapshot()
    with pytest.raises(InsufficientFunds, match=r"holds 1000, 1001 are needed"):
        seat_buy_in(user=player, table_id=3, amount=1001, idempotency_key="too-much")
    assert snapshot() == before
    # Not even the seat account that the buy-in would have opened is left behind.
    assert not LedgerAccount.objects.filter(kind="seat").exists()


def test_buy_in_of_the_whole_wallet_is_allowed(player):
    seat_buy_in(user=player, table_id=3, amount=1000, idempotency_key="all-in")
    assert wallet_balance(user=player) == 0


def test_cash_out_part_and_then_everything(player):
    seat_buy_in(user=player, table_id=5, amount=500, idempotency_key="in")
    part = seat_cash_out(user=player, table_id=5, amount=200, idempotency_key="out-1")
    assert part.amount == 200
    assert seat_balance(user=player, table_id=5) == 300
    rest = seat_cash_out(user=player, table_id=5, idempotency_key="out-2")
    assert rest.amount == 300
    assert seat_balance(user=player, table_id=5) == 0
    assert wallet_balance(user=player) == 1000
    assert audit_ledger().ok


def test_cash_out_more_than_the_seat_holds_is_refused(player, snapshot):
    seat_buy_in(user=player, table_id=5, amount=100, idempotency_key="in")
    before = snapshot()
    with pytest.raises(InsufficientFunds, match="seat of"):
        seat_cash_out(user=player, table_id=5, amount=101, idempotency_key="out")
    assert snapshot() == before


def test_cash_out_of_an_empty_seat_is_refused(player, snapshot):
    seat_buy_in(user=player, table_id=5, amount=100, idempotency_key="in")
    seat_cash_out(user=player, table_id=5, idempotency_key="out")
    before = snapshot()
    with pytest.raises(InsufficientFunds, match="no chips to cash out"):
        seat_cash_out(user=player, table_id=5, idempotency_key="out-again")
    assert snapshot() == before


def test_cash_out_without_a_seat_names_the_problem(player, snapshot):
    before = snapshot()
    with pytest.raises(UnknownAccount, match="no chips at table 9"):
        seat_cash_out(user=player, table_id=9, idempotency_key="nothing")
    assert snapshot() == before


def test_balances_of_unknown_accounts_are_zero(make_user):
    user = make_user()
    assert wallet_balance(user=user) == 0
    assert seat_balance(user=user, table_id=4) == 0


# --- hand settlement ---


@pytest.fixture
def table(make_user):
    """Three players seated at table 11 with 500 chips each (1,000 granted, 500 bought in)."""
    from accounts.services import grant_signup_bonus

    players = [make_user() for _ in range(3)]
    for p in players:
        grant_signup_bonus(user=p)
        seat_buy_in(user=p, table_id=11, amount=500, idempotency_key=f"sit-{p.pk}")
    return players


def test_hand_settle_moves_chips_between_seats(table):
    a, b, c = table
    txn = hand_settle(table_id=11, deltas={a.pk: 120, b.pk: -60, c.pk: -60}, idempotency_key="hand-1")
    assert [seat_balance(user=p, table_id=11) for p in table] == [620, 440, 440]
    assert txn.kind == "hand_settle" and txn.amount == 120 and txn.created_by is None
    assert sum(entries_of(txn).values()) == 0
    assert audit_ledger().ok


def test_a_break_even_player_is_recorded_as_having_played(table):
    a, b, c = table
    txn = hand_settle(table_id=11, deltas={a.pk: 50, b.pk: -50, c.pk: 0}, idempotency_key="h")
    assert entries_of(txn)[f"seat:11:{c.pk}"] == 0
    assert seat_balance(user=c, table_id=11) == 500


@pytest.mark.parametrize(
    ("deltas", "error", "message"),
    [
        ("a+10,b-5", InvalidRequest, "sum to zero; these sum to \\+5"),
        ("a+0,b+0", InvalidRequest, "all zero"),
        ("a+10", InvalidRequest, "at least two players"),
        ("", InvalidRequest, "at least two players"),
        ("a+600,b-600", InsufficientFunds, "holds 500, 600 are needed"),
        ("a+10,x-10", UnknownAccount, "No seat at table 11"),
    ],
)
def test_bad_settlements_are_refused_and_change_nothing(table, snapshot, deltas, error, message):
    a, b, _c = table
    ids = {"a": a.pk, "b": b.pk, "x": 999_999}
    parsed = {ids[part[0]]: int(part[1:]) for part in deltas.split(",") if part}
    before = snapshot()
    with pytest.raises(error, match=message):
        hand_settle(table_id=11, deltas=parsed, idempotency_key="bad-hand")
    assert snapshot() == before


def test_settlement_at_another_table_is_refused(table, snapshot):
    a, b, _c = table
    before = snapshot()
    with pytest.raises(UnknownAccount, match="No seat at table 12"):
        hand_settle(table_id=12, deltas={a.pk: 10, b.pk: -10}, idempotency_key="elsewhere")
    assert snapshot() == before


@pytest.mark.parametrize(
    "deltas",
    [
        {"1": 5, "2": -5},
        {True: 5, 2: -5},
        {1: 5.0, 2: -5.0},
        {1: 10**13, 2: -(10**13)},
        [(1, 5), (2, -5)],
        None,
    ],
)
def test_malformed_deltas_are_refused(table, snapshot, deltas):
    before = snapshot()
    with pytest.raises(InvalidRequest):
        hand_settle(table_id=11, deltas=deltas, idempotency_key="malformed")
    assert snapshot() == before


# --- idempotency ---


def test_repeating_a_buy_in_returns_the_first_transaction(player):
    first = seat_buy_in(user=player, table_id=7, amount=300, idempotency_key="same")
    again = seat_buy_in(user=player, table_id=7, amount=300, idempotency_key="same")
    assert again.pk == first.pk
    assert wallet_balance(user=player) == 700
    assert LedgerTransaction.objects.filter(kind="buy_in").count() == 1


@pytest.mark.parametrize(
    "retry",
    [
        lambda p: seat_buy_in(user=p, table_id=7, amount=301, idempotency_key="same"),
        lambda p: seat_buy_in(user=p, table_id=8, amount=300, idempotency_key="same"),
        lambda p: seat_cash_out(user=p, table_id=7, amount=300, idempotency_key="same"),
    ],
    ids=["other amount", "other table", "other kind"],
)
def test_repeating_a_key_with_different_content_is_refused(player, snapshot, retry):
    seat_buy_in(user=player, table_id=7, amount=300, idempotency_key="same")
    before = snapshot()
    with pytest.raises(IdempotencyConflict, match="'same' was already used for a different request"):
        retry(player)
    assert snapshot() == before


def test_repeating_a_key_of_another_user_is_refused(player, make_user):
    from accounts.services import grant_signup_bonus

    other = make_user()
    grant_signup_bonus(user=other)
    seat_buy_in(user=player, table_id=7, amount=300, idempotency_key="same")
    with pytest.raises(IdempotencyConflict):
        seat_buy_in(user=other, table_id=7, amount=300, idempotency_key="same")
    assert wallet_balance(user=other) == 1000


def test_a_repeated_cash_out_of_everything_is_a_replay(player):
    seat_buy_in(user=player, table_id=7, amount=300, idempotency_key="in-1")
    first = seat_cash_out(user=player, table_id=7, idempotency_key="leave")
    seat_buy_in(user=player, table_id=7, amount=200, idempotency_key="in-2")
    again = seat_cash_out(user=player, table_id=7, idempotency_key="leave")
    assert again.pk == first.pk and again.amount == 300
    assert seat_balance(user=player, table_id=7) == 200


def test_a_repeated_hand_settle_is_applied_once(table):
    a, b, _c = table
    deltas = {a.pk: 40, b.pk: -40}
    first = hand_settle(table_id=11, deltas=deltas, idempotency_key="hand-9", memo="hand 9")
    again = hand_settle(table_id=11, deltas=dict(reversed(deltas.items())), idempotency_key="hand-9")
    assert again.pk == first.pk
    assert seat_balance(user=a, table_id=11) == 540
    with pytest.raises(IdempotencyConflict):
        hand_settle(table_id=11, deltas={a.pk: 41, b.pk: -41}, idempotency_key="hand-9")


def test_a_refused_request_does_not_use_up_its_key(player):
    with pytest.raises(InsufficientFunds):
        seat_buy_in(user=player, table_id=7, amount=5000, idempotency_key="retry-me")
    txn = seat_buy_in(user=player, table_id=7, amount=500, idempotency_key="retry-me")
    assert txn.amount == 500


# --- staff adjustment ---


def test_wallet_adjust_both_ways_is_recorded_with_the_staff_user(player, staff):
    added = wallet_adjust(user=player, amount=250, reason="tournament prize", staff_user=staff)
    assert wallet_balance(user=player) == 1250
    assert added.kind == "adjust" and added.created_by == staff and added.memo == "tournament prize"
    removed = wallet_adjust(user=player, amount=-1250, reason="chips dumping", staff_user=staff)
    assert removed.amount == 1250
    assert wallet_balance(user=player) == 0
    assert LedgerAccount.objects.get(key="house").balance == 0
    assert audit_ledger().ok


def test_wallet_adjust_cannot_take_a_wallet_below_zero(player, staff, snapshot):
    before = snapshot()
    with pytest.raises(InsufficientFunds, match="the wallet of"):
        wallet_adjust(user=player, amount=-1001, reason="too much", staff_user=staff)
    assert snapshot() == before


@pytest.mark.parametrize("reason", ["", "   ", None, 5])
def test_wallet_adjust_needs_a_reason(player, staff, snapshot, reason):
    before = snapshot()
    with pytest.raises(BadStaffForm, match="reason is required"):
        wallet_adjust(user=player, amount=10, reason=reason, staff_user=staff)
    assert snapshot() == before


def test_wallet_adjust_needs_staff(player, make_user, snapshot):
    before = snapshot()
    with pytest.raises(NotPermitted, match="do not have the right to adjust wallets"):
        wallet_adjust(user=player, amount=10, reason="gift", staff_user=make_user())
    with pytest.raises(NotPermitted, match="do not have the right to adjust wallets"):
        wallet_adjust(user=player, amount=10, reason="gift", staff_user=None)
    assert snapshot() == before


def test_wallet_adjust_with_a_key_applies_once(player, staff):
    one = wallet_adjust(user=player, amount=10, reason="x", staff_user=staff, idempotency_key="form-1")
    two = wallet_adjust(user=player, amount=10, reason="x", staff_user=staff, idempotency_key="form-1")
    assert one.pk == two.pk and wallet_balance(user=player) == 1010


# --- bad input ---

BAD_AMOUNTS = [0, -1, -500, 10**12 + 1, 10**30, 2**63, 1.5, 100.0, "100", None, True, Decimal("10"), [100]]


@pytest.mark.parametrize("amount", BAD_AMOUNTS, ids=repr)
def test_bad_buy_in_amounts_are_refused(player, snapshot, amount):
    before = snapshot()
    with pytest.raises(InvalidRequest, match="amount"):
        seat_buy_in(user=player, table_id=7, amount=amount, idempotency_key="bad")
    assert snapshot() == before


@pytest.mark.parametrize("amount", [a for a in BAD_AMOUNTS if a is not None], ids=repr)
def test_bad_cash_out_amounts_are_refused(player, snapshot, amount):
    seat_buy_in(user=player, table_id=7, amount=100, idempotency_key="in")
    before = snapshot()
    with pytest.raises(InvalidRequest, match="amount"):
        seat_cash_out(user=player, table_id=7, amount=amount, idempotency_key="bad")
    assert snapshot() == before


@pytest.mark.parametrize("amount", [0, 10**13, -(10**13), 2.5, "5", True])
def test_bad_adjust_amounts_are_refused(player, staff, snapshot, amount):
    before = snapshot()
    with pytest.raises(InvalidRequest):
        wallet_adjust(user=player, amount=amount, reason="r", staff_user=staff)
    assert snapshot() == before


@pytest.mark.parametrize("table_id", [0, -1, "7", 7.0, None, True, 2**31])
def test_bad_table_ids_are_refused(player, snapshot, table_id):
    before = snapshot()
    with pytest.raises(InvalidRequest, match="table id"):
        seat_buy_in(user=player, table_id=table_id, amount=10, idempotency_key="k")
    with pytest.raises(InvalidRequest, match="table id"):
        seat_cash_out(user=player, table_id=table_id, idempotency_key="k")
    with pytest.raises(InvalidRequest, match="table id"):
        hand_settle(table_id=table_id, deltas={1: 1, 2: -1}, idempotency_key="k")
    assert snapshot() == before


@pytest.mark.parametrize("key", ["", "   ", None, 17, "k" * 201])
def test_bad_idempotency_keys_are_refused(player, snapshot, key):
    before = snapshot()
    with pytest.raises(InvalidRequest, match="idempotency key"):
        seat_buy_in(user=player, table_id=7, amount=10, idempotency_key=key)
    assert snapshot() == before


@pytest.mark.parametrize("user", [None, "player1", 1, User(username="never-saved")], ids=repr)
def test_unknown_users_are_refused(db, snapshot, user, staff):
    before = snapshot()
    for call in [
        lambda: seat_buy_in(user=user, table_id=7, amount=10, idempotency_key="k"),
        lambda: seat_cash_out(user=user, table_id=7, idempotency_key="k"),
        lambda: wallet_adjust(user=user, amount=10, reason="r", staff_user=staff),
        lambda: wallet_balance(user=user),
    ]:
        with pytest.raises(UnknownAccount, match="not a registered user"):
            call()
    assert snapshot() == before


def test_a_deleted_user_is_refused(make_user, staff, snapshot):
    ghost = make_user()
    User.objects.filter(pk=ghost.pk).delete()
    before = snapshot()
    with pytest.raises(UnknownAccount, match="does not exist"):
        wallet_adjust(user=ghost, amount=10, reason="r", staff_user=staff)
    assert snapshot() == before


def test_every_refusal_is_a_value_error_with_a_message():
    assert issubclass(LedgerError, ValueError)
    for cls in (InvalidRequest, UnknownAccount, InsufficientFunds, IdempotencyConflict, UserBanned):
        assert issubclass(cls, LedgerError)


# --- bans and the database's own guard ---


def test_a_banned_user_cannot_buy_in_but_can_cash_out(player, staff):
    seat_buy_in(user=player, table_id=7, amount=100, idempotency_key="in")
    ban_user(user=player, reason="collusion", staff_user=staff)
    with pytest.raises(UserBanned, match="collusion"):
        seat_buy_in(user=player, table_id=7, amount=100, idempotency_key="in-2")
    seat_cash_out(user=player, table_id=7, idempotency_key="out")
    assert wallet_balance(user=player) == 1000


def test_the_database_refuses_a_negative_wallet_but_not_a_negative_house(player):
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerAccount.objects.filter(key=f"wallet:{player.pk}").update(balance=-1)
    LedgerAccount.objects.filter(key="house").update(balance=-(10**15))
    assert LedgerAccount.objects.get(key="house").balance == -(10**15)


def test_the_database_refuses_a_seat_without_a_table(player):
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerAccount.objects.create(kind="seat", user=player, key="seat:none")
