"""The ledger's transfers: the balances and the postings that move chips, nothing else.

Each function validates its arguments, then posts one balanced transaction (posting.py). A refusal
raises a ``LedgerError`` and changes nothing, not even an empty account row: each body runs in one
transaction (the caller's, when there is one). A repeated idempotency key with the same request
returns the transaction already made; with a different request it is refused.

Who may move chips, and when, is not the ledger's to know: a player's bans, breaks and loss limits,
and a staff member's rights, are checked by the services above it (accounts.services.ledger), which
call these inside their own transaction.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from accounts.ledger.errors import InsufficientFunds, InvalidRequest, UnknownAccount
from accounts.ledger.posting import (
    check_amount,
    check_key,
    check_table_id,
    check_user,
    house_account,
    open_seat_account,
    open_wallet_account,
    post,
    seat_account,
    seat_key,
    wallet_key,
)
from accounts.models import LedgerAccount, LedgerTransaction, User

Kind = LedgerTransaction.Kind


def _balance(key: str) -> int:
    return LedgerAccount.objects.filter(key=key).values_list("balance", flat=True).first() or 0


def wallet_balance(*, user: User) -> int:
    """Chips in the user's wallet (0 before the first grant)."""
    user = check_user(user)
    return _balance(wallet_key(user.pk))


def seat_balance(*, user: User, table_id: int) -> int:
    """Chips the user has on that table's seat (0 if never seated there)."""
    user = check_user(user)
    return _balance(seat_key(user_id=user.pk, table_id=check_table_id(table_id)))


def buy_in(*, user: User, table_id: int, amount: int, idempotency_key: str) -> LedgerTransaction:
    """Post ``amount`` chips from the user's wallet to their seat at ``table_id`` (checked already
    by the caller: accounts.services.ledger.seat_buy_in), inside the caller's transaction."""
    with transaction.atomic(savepoint=False):
        wallet = open_wallet_account(user=user)
        seat = open_seat_account(user=user, table_id=table_id)
        txn, _ = post(
            kind=Kind.BUY_IN,
            idempotency_key=idempotency_key,
            params={"user": user.pk, "table": table_id, "amount": amount},
            accounts=[wallet, seat],
            legs_for=lambda _locked: {wallet.pk: -amount, seat.pk: amount},
            memo=f"buy-in at table {table_id}",
            created_by=user,
        )
    return txn


def seat_cash_out(
    *, user: User, table_id: int, idempotency_key: str, amount: int | None = None
) -> LedgerTransaction:
    """Move chips from the user's seat at ``table_id`` back to their wallet (``None``: all of them)."""
    user = check_user(user)
    table_id = check_table_id(table_id)
    if amount is not None:
        amount = check_amount(amount)
    idempotency_key = check_key(idempotency_key)
    with transaction.atomic():
        seat = seat_account(user=user, table_id=table_id)
        if seat is None:
            raise UnknownAccount(f"{user} has no chips at table {table_id}: there is no seat to cash out.")
        wallet = open_wallet_account(user=user)

        def legs_for(locked: dict[int, LedgerAccount]) -> dict[int, int]:
            moved = locked[seat.pk].balance if amount is None else amount
            if moved == 0:
                raise InsufficientFunds(f"{seat.describe().capitalize()} holds no chips to cash out.")
            return {seat.pk: -moved, wallet.pk: moved}

        txn, _ = post(
            kind=Kind.CASH_OUT,
            idempotency_key=idempotency_key,
            # "everything" is the request; the amount it came to is in the entries.
            params={"user": user.pk, "table": table_id, "amount": amount},
            accounts=[seat, wallet],
            legs_for=legs_for,
            memo=f"cash-out from table {table_id}",
            created_by=user,
        )
    return txn


def _check_deltas(deltas: Any) -> dict[int, int]:
    if not isinstance(deltas, Mapping) or len(deltas) < 2:
        raise InvalidRequest("A hand is settled between at least two players: give deltas for each of them.")
    checked: dict[int, int] = {}
    for user_id, delta in deltas.items():
        if isinstance(user_id, bool) or not isinstance(user_id, int) or user_id < 1:
            raise InvalidRequest(f"Deltas are keyed by user id; {user_id!r} is not one.")
        checked[user_id] = check_amount(
            delta, name=f"delta of user {user_id}", allow_negative=True, allow_zero=True
        )
    total = sum(checked.values())
    if total != 0:
        raise InvalidRequest(f"A hand's deltas must sum to zero; these sum to {total:+d}.")
    if not any(checked.values()):
        raise InvalidRequest("A hand's deltas are all zero: there is nothing to settle.")
    return checked


def hand_settle(
    *, table_id: int, deltas: dict[int, int], idempotency_key: str, memo: str = ""
) -> LedgerTransaction:
    """Apply a hand's result between the seats of ``table_id``.

    ``deltas`` maps user id -> chips won (+) or lost (-); they must sum to zero.
    Every player must have a seat account at the table. Break-even players are recorded with a
    zero entry, so the profile can count the hand as played.
    """
    table_id = check_table_id(table_id)
    checked = _check_deltas(deltas)
    idempotency_key = check_key(idempotency_key)
    if not isinstance(memo, str):
        raise InvalidRequest("The memo must be a string.")
    # The seats are found and locked by one query inside the posting (a hand settles on the
    # server's one database thread: every round trip counts).
    seats = LedgerAccount.objects.filter(
        kind=LedgerAccount.Kind.SEAT, table_id=table_id, user_id__in=list(checked)
    )

    def legs_for(locked: dict[int, LedgerAccount]) -> dict[int, int]:
        by_user = {account.user_id: account.pk for account in locked.values()}
        missing = sorted(set(checked) - set(by_user))
        if missing:
            raise UnknownAccount(
                f"No seat at table {table_id} for user id(s) {', '.join(map(str, missing))}: "
                "every player in a hand must have bought in."
            )
        return {by_user[user_id]: delta for user_id, delta in checked.items()}

    # One transaction: the caller's (a hand's settlement, where a savepoint would cost two more
    # statements) or, called on its own, one opened here.
    in_caller = transaction.get_connection().in_atomic_block
    with contextlib.nullcontext() if in_caller else transaction.atomic():
        txn, _created = post(
            kind=Kind.HAND_SETTLE,
            idempotency_key=idempotency_key,
            # The memo is description, not content: a retry with a reworded memo is still a replay.
            params={"table": table_id, "deltas": sorted(checked.items())},
            accounts=seats,
            legs_for=legs_for,
            memo=memo or f"hand at table {table_id}",
        )
    return txn


def adjust(
    *, user: User, amount: int, memo: str, idempotency_key: str, made_by: User
) -> tuple[LedgerTransaction, bool]:
    """Post ``amount`` chips from the house to the user's wallet (negative: back to the house),
    inside the caller's transaction; the transaction and whether it was made now (not a replay)."""
    with transaction.atomic(savepoint=False):
        house = house_account()
        wallet = open_wallet_account(user=user)
        return post(
            kind=Kind.ADJUST,
            idempotency_key=idempotency_key,
            params={"user": user.pk, "amount": amount},
            accounts=[house, wallet],
            legs_for=lambda _locked: {house.pk: -amount, wallet.pk: amount},
            memo=memo,
            created_by=made_by,
        )
