"""A sit-and-go's prize pool (RULES.md §8): buy-ins into it, buy-ins back out of it, and the prizes
paid from it, each one balanced, idempotent transaction. Who may pay in (bans, breaks, loss limits)
is accounts.services.prize_pools's to check; the ledger knows a tournament only by its id, as it
knows a table, and refuses anything that would leave chips in a pool after its pay-out or take out
more than it holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from accounts.ledger.errors import InvalidRequest
from accounts.ledger.posting import (
    check_amount,
    check_key,
    check_table_id,
    check_user,
    open_wallet_account,
    post,
)
from accounts.models import LedgerAccount, LedgerTransaction, User

Kind = LedgerTransaction.Kind


def pool_key(tournament_id: int) -> str:
    return f"pool:{tournament_id}"


def check_tournament_id(value: Any) -> int:
    try:
        return check_table_id(value)
    except InvalidRequest:
        raise InvalidRequest(f"The tournament id must be a positive whole number, not {value!r}.") from None


def open_pool_account(*, tournament_id: int) -> LedgerAccount:
    account, _ = LedgerAccount.objects.get_or_create(
        key=pool_key(tournament_id),
        defaults={"kind": LedgerAccount.Kind.POOL, "tournament_id": tournament_id},
    )
    return account


def pool_balance(*, tournament_id: int) -> int:
    key = pool_key(check_tournament_id(tournament_id))
    return LedgerAccount.objects.filter(key=key).values_list("balance", flat=True).first() or 0


def pay_in(*, user: User, tournament_id: int, amount: int, idempotency_key: str) -> LedgerTransaction:
    """Move a buy-in from the user's wallet into the tournament's pool."""
    user = check_user(user)
    tournament_id = check_tournament_id(tournament_id)
    amount = check_amount(amount, name="buy-in")
    idempotency_key = check_key(idempotency_key)
    with transaction.atomic():
        wallet = open_wallet_account(user=user)
        pool = open_pool_account(tournament_id=tournament_id)
        txn, _ = post(
            kind=Kind.TOURNAMENT_BUY_IN,
            idempotency_key=idempotency_key,
            params={"user": user.pk, "tournament": tournament_id, "amount": amount},
            accounts=[wallet, pool],
            legs_for=lambda _locked: {wallet.pk: -amount, pool.pk: amount},
            memo=f"buy-in to tournament {tournament_id}",
            created_by=user,
        )
    return txn


def tournament_refund(
    *, user: User, tournament_id: int, amount: int, idempotency_key: str, memo: str
) -> LedgerTransaction:
    """Move a buy-in back from the pool to the user's wallet (unregistered before the start)."""
    user = check_user(user)
    tournament_id = check_tournament_id(tournament_id)
    amount = check_amount(amount, name="refund")
    idempotency_key = check_key(idempotency_key)
    with transaction.atomic():
        wallet = open_wallet_account(user=user)
        pool = open_pool_account(tournament_id=tournament_id)
        txn, _ = post(
            kind=Kind.TOURNAMENT_REFUND,
            idempotency_key=idempotency_key,
            params={"user": user.pk, "tournament": tournament_id, "amount": amount},
            accounts=[pool, wallet],
            legs_for=lambda _locked: {pool.pk: -amount, wallet.pk: amount},
            memo=memo,
            created_by=user,
        )
    return txn


def tournament_pay_out(
    *, tournament_id: int, amounts: Mapping[int, int], idempotency_key: str, memo: str, kind: str = ""
) -> LedgerTransaction:
    """Empty the pool into wallets in one transaction: ``amounts`` maps user id -> chips (zeros
    allowed and recorded). They must add up to the whole pool: nothing may stay behind, nothing more
    may leave. ``kind``: prizes (the end) or refunds (cancelled by staff)."""
    tournament_id = check_tournament_id(tournament_id)
    idempotency_key = check_key(idempotency_key)
    kind = kind or Kind.TOURNAMENT_PRIZES
    if kind not in (Kind.TOURNAMENT_PRIZES, Kind.TOURNAMENT_REFUND):
        raise InvalidRequest(f"A pool pays out prizes or refunds, not {kind!r}.")
    if not isinstance(amounts, Mapping) or not amounts:
        raise InvalidRequest("A pay-out names who is paid: a user id and an amount for each.")
    checked = {
        check_table_id(user_id): check_amount(amount, name=f"amount of user {user_id}", allow_zero=True)
        for user_id, amount in amounts.items()
    }
    with transaction.atomic():
        pool = open_pool_account(tournament_id=tournament_id)
        wallets = {
            user.pk: open_wallet_account(user=user) for user in User.objects.filter(pk__in=list(checked))
        }
        if len(wallets) != len(checked):
            raise InvalidRequest("A pay-out names a user who does not exist.")

        def legs_for(locked: dict[int, LedgerAccount]) -> dict[int, int]:
            held, total = locked[pool.pk].balance, sum(checked.values())
            if total != held:
                raise InvalidRequest(
                    f"A pay-out must empty the prize pool: it holds {held} chips, the amounts sum to {total}."
                )
            legs = {wallets[user_id].pk: amount for user_id, amount in checked.items()}
            legs[pool.pk] = -total
            return legs

        txn, _ = post(
            kind=kind,
            idempotency_key=idempotency_key,
            params={"tournament": tournament_id, "amounts": sorted(checked.items())},
            accounts=[pool, *wallets.values()],
            legs_for=legs_for,
            memo=memo,
        )
    return txn


__all__ = [
    "check_tournament_id",
    "open_pool_account",
    "pay_in",
    "pool_balance",
    "pool_key",
    "tournament_pay_out",
    "tournament_refund",
]
