"""Hypothesis: random sequences of transfers, valid and not, against the ledger's invariants.

After every operation: a refusal changed nothing; a replay changed nothing; a new transaction
changed exactly its own entries' accounts by exactly their amounts; no non-house balance is
negative. After the sequence the audit is clean. Buy-ins and cash-outs are also checked against a
prediction of whether they must succeed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from accounts.ledger.posting import MAX_AMOUNT
from accounts.models import LedgerAccount, LedgerTransaction, User
from accounts.services import (
    LedgerError,
    audit_ledger,
    grant_signup_bonus,
    hand_settle,
    seat_buy_in,
    seat_cash_out,
    wallet_adjust,
    wallet_claim_daily_bonus,
    wallet_claim_refill,
)

N_USERS = 3
T0 = timezone.now()

players = st.integers(0, N_USERS - 1)
tables = st.sampled_from([1, 2])
keys = st.sampled_from([f"k{i}" for i in range(12)])  # few keys: replays and conflicts happen
amounts = st.one_of(
    st.integers(1, 400),  # mostly plausible amounts, so that most operations can succeed
    st.integers(1, 400),
    st.integers(-100, 1600),
    st.sampled_from([0, MAX_AMOUNT + 1, 10**30, 1.5, "10", None, True]),
)
seated = st.one_of(players, st.just(N_USERS))  # index N_USERS: a user with no seat
nonzero_chips = st.one_of(st.integers(1, 200), st.integers(-200, -1))
ops = st.one_of(
    st.tuples(st.just("buy_in"), players, tables, amounts, keys),
    st.tuples(st.just("cash_out"), players, tables, st.one_of(st.none(), amounts), keys),
    st.tuples(
        st.just("settle"),
        tables,
        st.one_of(
            # mostly plausible hands between seated players, sometimes anything
            st.dictionaries(players, nonzero_chips, min_size=2, max_size=3),
            st.dictionaries(players, nonzero_chips, min_size=2, max_size=3),
            st.dictionaries(seated, st.integers(-400, 400), max_size=4),
        ),
        keys,
        st.sampled_from([True, True, True, False]),  # mostly: make the deltas sum to zero
    ),
    st.tuples(st.just("adjust"), players, amounts),
    st.tuples(st.just("daily"), players, st.integers(0, 72)),
    st.tuples(st.just("refill"), players, st.integers(0, 72)),
)


def balances() -> dict[str, int]:
    return dict(LedgerAccount.objects.values_list("key", "balance"))


def valid_amount(amount: Any) -> bool:
    return type(amount) is int and 0 < amount <= MAX_AMOUNT


def predict(op: tuple, users: list[User]) -> bool | None:
    """Whether a buy-in or cash-out must succeed (True) or fail (False); None: no prediction."""
    kind = op[0]
    if kind not in {"buy_in", "cash_out"}:
        return None
    _, i, table, amount, key = op
    # A cash-out of None means "everything"; any other amount must be a positive int.
    if (amount is not None or kind == "buy_in") and not valid_amount(amount):
        return False
    if LedgerTransaction.objects.filter(idempotency_key=key).exists():
        return None  # a replay or a conflict, depending on what the key was used for
    held = balances()
    if kind == "buy_in":
        return amount <= held.get(f"wallet:{users[i].pk}", 0)
    seat = held.get(f"seat:{table}:{users[i].pk}")
    if seat is None:
        return False
    return seat > 0 if amount is None else amount <= seat


def apply(op: tuple, users: list[User], staff: User) -> LedgerTransaction:
    kind = op[0]
    if kind == "buy_in":
        _, i, table, amount, key = op
        return seat_buy_in(user=users[i], table_id=table, amount=amount, idempotency_key=key)
    if kind == "cash_out":
        _, i, table, amount, key = op
        return seat_cash_out(user=users[i], table_id=table, amount=amount, idempotency_key=key)
    if kind == "settle":
        _, table, by_index, key, balance = op
        ids = [*(u.pk for u in users), 10**9]  # the last one has no seat anywhere
        deltas = {ids[i]: d for i, d in by_index.items()}
        if balance and deltas:
            first = next(iter(deltas))
            deltas[first] -= sum(deltas.values())
        return hand_settle(table_id=table, deltas=deltas, idempotency_key=key)
    if kind == "adjust":
        _, i, amount = op
        return wallet_adjust(user=users[i], amount=amount, reason="hypothesis", staff_user=staff)
    if kind == "daily":
        return wallet_claim_daily_bonus(user=users[op[1]], now=T0 + timedelta(hours=op[2]))
    return wallet_claim_refill(user=users[op[1]], now=T0 + timedelta(hours=op[2]))


@pytest.mark.django_db
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(sequence=st.lists(ops, max_size=30))
def test_random_transfers_keep_the_ledger_sound(sequence):
    # Each example runs in a transaction rolled back at the end, so examples start from nothing.
    with transaction.atomic():
        staff = User.objects.create(username="staff", is_staff=True, is_superuser=True)
        users = [User.objects.create(username=f"u{i}") for i in range(N_USERS)]
        for user in users:
            grant_signup_bonus(user=user)
            for table in (1, 2):
                seat_buy_in(user=user, table_id=table, amount=300, idempotency_key=f"sit-{table}-{user.pk}")

        for op in sequence:
            before = balances()
            known = set(LedgerTransaction.objects.values_list("pk", flat=True))
            predicted = predict(op, users)
            try:
                txn = apply(op, users, staff)
            except LedgerError as exc:
                assert predicted is not True, (op, exc)
                event(f"{op[0]}: refused ({type(exc).__name__})")
                assert balances() == before, op
            else:
                assert predicted is not False, op
                after = balances()
                changed = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
                if txn.pk in known:  # a replay of an earlier request
                    event(f"{op[0]}: replayed")
                    assert changed == {}, op
                else:
                    event(f"{op[0]}: done")
                    moved = {key: amount for key, amount in txn.entries.values_list("account__key", "amount")}
                    assert changed == {k: v for k, v in moved.items() if v}, op
                    assert sum(moved.values()) == 0
            assert all(b >= 0 for k, b in balances().items() if k != "house"), op

        report = audit_ledger()
        assert report.ok, report.problems
        transaction.set_rollback(True)
