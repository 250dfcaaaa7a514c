"""The one place balances change: post a balanced transaction under row locks.

How a posting stays safe on both databases:

* Every posting runs in ``transaction.atomic``; any refusal raises and rolls everything back.
* The accounts involved are locked with ``select_for_update`` in primary-key order, so two postings
  touching the same accounts queue instead of deadlocking (PostgreSQL). SQLite ignores the lock,
  but the settings open every transaction with ``BEGIN IMMEDIATE``, which serialises writers.
* A debit is a conditional update (``balance >= amount``): all the accounts move in one UPDATE
  whose row count must be the number of accounts, so a debit that would overdraw changes nothing,
  whatever another connection did in between. The CHECK constraint on the table is the last line
  of defence.
* The transaction row (unique idempotency key) is inserted before any balance moves: a second
  request with the same key either finds it or collides with it, and then replays it.

Each posting is a handful of statements (lock, replay check, transaction, one balance update, the
entries): a hand's settlement runs on the server's one database thread, so round trips count.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import BigIntegerField, Case, F, Q, QuerySet, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.ledger.errors import IdempotencyConflict, InsufficientFunds, InvalidRequest, UnknownAccount
from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction, User

# Play money: far above anything a table or a grant moves, far below the 64-bit column's limit, so
# sums of many amounts can never overflow.
MAX_AMOUNT = 10**12
MAX_TABLE_ID = 2**31 - 1
MAX_KEY_LENGTH = 200
HOUSE_KEY = "house"

Legs = dict[int, int]  # account pk -> signed amount


def check_amount(
    value: Any, *, name: str = "amount", allow_negative: bool = False, allow_zero: bool = False
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequest(f"The {name} must be a whole number of chips, not {value!r}.")
    if value == 0 and not allow_zero:
        raise InvalidRequest(f"The {name} must not be zero.")
    if value < 0 and not allow_negative:
        raise InvalidRequest(f"The {name} must be positive, not {value}.")
    if abs(value) > MAX_AMOUNT:
        raise InvalidRequest(f"The {name} {value} is too large (at most {MAX_AMOUNT:,} chips).")
    return value


def check_table_id(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TABLE_ID:
        raise InvalidRequest(f"The table id must be a positive whole number, not {value!r}.")
    return value


def check_key(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequest("An idempotency key (a non-empty string) is required.")
    if len(value) > MAX_KEY_LENGTH:
        raise InvalidRequest(f"The idempotency key is longer than {MAX_KEY_LENGTH} characters.")
    return value


def check_user(user: Any) -> User:
    if not isinstance(user, User) or user.pk is None:
        raise UnknownAccount(f"{user!r} is not a registered user.")
    return user


def wallet_key(user_id: int) -> str:
    return f"wallet:{user_id}"


def seat_key(*, user_id: int, table_id: int) -> str:
    return f"seat:{table_id}:{user_id}"


def house_account() -> LedgerAccount:
    # get_or_create, not a data migration: tests that flush the database remove migration data.
    account, _ = LedgerAccount.objects.get_or_create(
        key=HOUSE_KEY, defaults={"kind": LedgerAccount.Kind.HOUSE}
    )
    return account


def wallet_account(*, user: User) -> LedgerAccount | None:
    return LedgerAccount.objects.filter(key=wallet_key(user.pk)).first()


def open_wallet_account(*, user: User) -> LedgerAccount:
    """The user's wallet, created empty on first use."""
    # Checked first: a deferred foreign key would otherwise fail only at commit.
    if not User.objects.filter(pk=user.pk).exists():
        raise UnknownAccount(f"User id {user.pk} does not exist.")
    account, _ = LedgerAccount.objects.get_or_create(
        key=wallet_key(user.pk), defaults={"kind": LedgerAccount.Kind.WALLET, "user": user}
    )
    return account


def seat_account(*, user: User, table_id: int) -> LedgerAccount | None:
    return LedgerAccount.objects.filter(key=seat_key(user_id=user.pk, table_id=table_id)).first()


def open_seat_account(*, user: User, table_id: int) -> LedgerAccount:
    """The user's seat account at the table, created empty on first buy-in."""
    account, _ = LedgerAccount.objects.get_or_create(
        key=seat_key(user_id=user.pk, table_id=table_id),
        defaults={"kind": LedgerAccount.Kind.SEAT, "user": user, "table_id": table_id},
    )
    return account


def lock_accounts(accounts: Iterable[LedgerAccount] | QuerySet[LedgerAccount]) -> dict[int, LedgerAccount]:
    """Lock the accounts' rows in pk order (one global order: no deadlocks) and return fresh copies.

    ``accounts`` may be a query (the seats of a hand): then finding and locking them is one
    statement. PostgreSQL sorts before it locks (``ORDER BY`` runs below ``FOR UPDATE``), so the
    order is the same either way.
    """
    if isinstance(accounts, QuerySet):
        rows = accounts.select_for_update().order_by("pk")
    else:
        pks = sorted({account.pk for account in accounts})
        rows = LedgerAccount.objects.select_for_update().filter(pk__in=pks).order_by("pk")
    return {account.pk: account for account in rows}


def fingerprint(*, kind: str, params: dict[str, Any]) -> str:
    canonical = json.dumps([kind, params], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _replay(*, idempotency_key: str, fingerprint: str) -> LedgerTransaction | None:
    existing = LedgerTransaction.objects.filter(idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.fingerprint != fingerprint:
        raise IdempotencyConflict(
            f"The idempotency key {idempotency_key!r} was already used for a different request "
            f"({existing.get_kind_display()} of {existing.amount} chips); nothing was changed."
        )
    return existing


def describe_account(account: LedgerAccount) -> str:
    """``LedgerAccount.describe`` in the active language, for messages a player reads."""
    if account.kind == LedgerAccount.Kind.HOUSE:
        return _("the house")
    if account.kind == LedgerAccount.Kind.WALLET:
        return _("the wallet of %(user)s") % {"user": account.user}
    return _("the seat of %(user)s at table %(table)s") % {"user": account.user, "table": account.table_id}


def _short(account: LedgerAccount, *, held: int | None, needed: int) -> InsufficientFunds:
    return InsufficientFunds(
        _("Not enough chips in %(account)s: it holds %(held)s, %(needed)s are needed.")
        % {"account": describe_account(account), "held": held, "needed": needed}
    )


def _move(*, locked: dict[int, LedgerAccount], legs: Legs) -> None:
    """Apply the legs to the locked accounts in one UPDATE; refuse if a debit would overdraw."""
    moving = {pk: amount for pk, amount in sorted(legs.items()) if amount}
    guards = Q()
    for pk, amount in moving.items():
        account = locked[pk]
        if amount < 0 and account.kind != LedgerAccount.Kind.HOUSE:
            # The balance read under the lock is current, so this refusal costs no statement...
            if account.balance < -amount:
                raise _short(account, held=account.balance, needed=-amount)
            # ...and the debit stays conditional anyway: the row count below is the guarantee.
            guards |= Q(pk=pk, balance__gte=-amount)
        else:
            guards |= Q(pk=pk)
    shift = Case(
        *(When(pk=pk, then=Value(amount)) for pk, amount in moving.items()),
        default=Value(0),
        output_field=BigIntegerField(),
    )
    updated = LedgerAccount.objects.filter(guards).update(balance=F("balance") + shift)
    if updated != len(moving):
        # Not reached while the locks hold; the caller's block rolls back whatever did move.
        held = dict(LedgerAccount.objects.filter(pk__in=list(moving)).values_list("pk", "balance"))
        debits = [pk for pk, amount in moving.items() if amount < 0]
        short = next((pk for pk in debits if held.get(pk, 0) < -moving[pk]), debits[0] if debits else None)
        if short is None:
            raise UnknownAccount("An account of this transaction disappeared while it was posted.")
        raise _short(locked[short], held=held.get(short), needed=-moving[short])


def post(
    *,
    kind: str,
    idempotency_key: str,
    params: dict[str, Any],
    accounts: Iterable[LedgerAccount] | QuerySet[LedgerAccount],
    legs_for: Callable[[dict[int, LedgerAccount]], Legs],
    memo: str = "",
    created_by: User | None = None,
    at: datetime | None = None,
) -> tuple[LedgerTransaction, bool]:
    """Post one transaction; return it and whether this call created it (False: a replay).

    ``params`` describe the request (not its outcome) for the idempotency fingerprint.
    ``accounts`` are the accounts to lock (or a query for them, see ``lock_accounts``).
    ``legs_for`` gets the locked accounts with fresh balances and returns pk -> signed amount
    (it may raise a ``LedgerError`` to refuse); zero legs are recorded as entries (a seat that
    played a hand and broke even) but move nothing.
    """
    request_print = fingerprint(kind=kind, params=params)
    if not isinstance(accounts, QuerySet):
        accounts = list(accounts)  # read twice if the first try collides
    once = functools.partial(
        _post_once,
        kind=kind,
        idempotency_key=idempotency_key,
        request_print=request_print,
        accounts=accounts,
        legs_for=legs_for,
        memo=memo,
        created_by=created_by,
        at=at,
    )
    try:
        return once()
    except IntegrityError:
        # The key was taken after the replay check, by a request holding other locks (the same
        # request would have waited for ours); its block is rolled back, and the second try
        # finds that transaction and replays it (or refuses it, if it asked for something else).
        # Cheaper than a savepoint around every insert, which would cost two statements each time.
        return once()


def _post_once(
    *,
    kind: str,
    idempotency_key: str,
    request_print: str,
    accounts: Iterable[LedgerAccount] | QuerySet[LedgerAccount],
    legs_for: Callable[[dict[int, LedgerAccount]], Legs],
    memo: str,
    created_by: User | None,
    at: datetime | None,
) -> tuple[LedgerTransaction, bool]:
    with transaction.atomic():
        locked = lock_accounts(accounts)
        # Checked after locking: a concurrent request with the same key has committed by now.
        existing = _replay(idempotency_key=idempotency_key, fingerprint=request_print)
        if existing is not None:
            return existing, False
        legs = legs_for(locked)
        if set(legs) - set(locked) or sum(legs.values()) != 0 or not any(legs.values()):
            raise InvalidRequest(f"Unbalanced or empty {kind} transaction refused.")
        txn = LedgerTransaction.objects.create(
            kind=kind,
            memo=memo,
            created_by=created_by,
            idempotency_key=idempotency_key,
            fingerprint=request_print,
            amount=sum(amount for amount in legs.values() if amount > 0),
            created_at=at or timezone.now(),
        )
        _move(locked=locked, legs=legs)
        LedgerEntry.objects.bulk_create(
            LedgerEntry(
                transaction=txn,
                account_id=pk,
                amount=amount,
                owner_id=locked[pk].user_id,
                created_at=txn.created_at,
            )
            for pk, amount in sorted(legs.items())
        )
    return txn, True
