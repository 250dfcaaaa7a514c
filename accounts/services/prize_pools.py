"""A sit-and-go's buy-in, with the room's rules for bringing chips to play checked first (as at a
table: not banned, no break, within the loss limit); the pool itself is the ledger's
(accounts.ledger.prize_pools)."""

from __future__ import annotations

from django.db import transaction

from accounts.ledger import prize_pools
from accounts.ledger.posting import check_amount, check_key, check_user
from accounts.ledger.prize_pools import (
    check_tournament_id,
    pool_balance,
    tournament_pay_out,
    tournament_refund,
)
from accounts.models import LedgerTransaction, User
from accounts.services.ledger import ensure_may_bring_chips


def tournament_buy_in(
    *, user: User, tournament_id: int, amount: int, idempotency_key: str
) -> LedgerTransaction:
    """Move the buy-in from the user's wallet into the tournament's pool, if the player may play."""
    user = check_user(user)
    tournament_id = check_tournament_id(tournament_id)
    amount = check_amount(amount, name="buy-in")
    idempotency_key = check_key(idempotency_key)
    with transaction.atomic():
        ensure_may_bring_chips(user=user, amount=amount, idempotency_key=idempotency_key)
        return prize_pools.pay_in(
            user=user, tournament_id=tournament_id, amount=amount, idempotency_key=idempotency_key
        )


__all__ = ["pool_balance", "tournament_buy_in", "tournament_pay_out", "tournament_refund"]
