"""Moving chips for the players and for staff: the ledger's transfers (accounts.ledger) with what
may move them checked first.

A player's buy-in is refused while they are banned, on a break or past a loss limit; a staff
member's wallet adjustment needs its right and a reason, and is logged (accounts.staff_log) in the
same transaction as the chips it moves. A refusal changes nothing.

Buy-in limits (RULES.md §3: 20 S to 100 S) depend on the table's stake, which the ledger does not
know: the table service checks them before calling ``seat_buy_in``.
"""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils.translation import gettext as _

from accounts import staff_kinds
from accounts.ledger import transfers
from accounts.ledger.posting import MAX_AMOUNT, check_amount, check_key, check_table_id, check_user
from accounts.ledger.transfers import hand_settle, seat_balance, seat_cash_out, wallet_balance
from accounts.models import LedgerTransaction, User
from accounts.services.bans import ensure_not_banned
from accounts.services.responsible import ensure_may_play, ensure_within_loss_limit
from accounts.staff_log.log import check_reason, check_right, record_staff_action


def seat_buy_in(*, user: User, table_id: int, amount: int, idempotency_key: str) -> LedgerTransaction:
    """Move ``amount`` chips from the user's wallet to their seat at ``table_id``."""
    user = check_user(user)
    table_id = check_table_id(table_id)
    amount = check_amount(amount)
    idempotency_key = check_key(idempotency_key)
    with transaction.atomic():
        ensure_may_bring_chips(user=user, amount=amount, idempotency_key=idempotency_key)
        return transfers.buy_in(user=user, table_id=table_id, amount=amount, idempotency_key=idempotency_key)


def ensure_may_bring_chips(*, user: User, amount: int, idempotency_key: str) -> None:
    """The room's rules for bringing chips from the wallet to play (a seat's buy-in, a sit-and-go's):
    not banned, no break, within the loss limit. Call it inside the move's transaction: the loss
    limit's rows stay locked until the move commits."""
    ensure_not_banned(user=user)
    ensure_may_play(user=user)
    if not LedgerTransaction.objects.filter(idempotency_key=idempotency_key).exists():
        # Not for a replay: the chips it moved already count against the limit.
        ensure_within_loss_limit(user=user, amount=amount)


def wallet_adjust(
    *, user: User, amount: int, reason: str, staff_user: User, idempotency_key: str | None = None
) -> LedgerTransaction:
    """Staff move chips between the house and a wallet: positive adds, negative removes.

    Needs "adjust wallet"; logged as a staff action in the same transaction. ``idempotency_key``
    is optional so a form can carry one: sent twice, it adjusts (and logs) once, and the second
    call returns the first transaction.
    """
    staff_user = check_right(staff_user=staff_user, kind=staff_kinds.WALLET_ADJUST)
    user = check_user(user)
    amount = check_amount(amount, allow_negative=True)
    reason = check_reason(reason, message=_("A reason is required to adjust a wallet."))
    key = check_key(idempotency_key) if idempotency_key is not None else f"adjust:{uuid.uuid4().hex}"
    with transaction.atomic():
        txn, created = transfers.adjust(
            user=user, amount=amount, memo=reason, idempotency_key=key, made_by=staff_user
        )
        if created:
            record_staff_action(
                staff_user=staff_user,
                kind=staff_kinds.WALLET_ADJUST,
                user=user,
                reason=reason,
                token=key if idempotency_key is not None else None,
                detail={"amount": amount},
                ledger_transaction=txn,
            )
    return txn


__all__ = [
    "MAX_AMOUNT",
    "hand_settle",
    "seat_balance",
    "seat_buy_in",
    "seat_cash_out",
    "wallet_adjust",
    "wallet_balance",
]
