"""A player's whole picture for staff, read-only: wallet and chip history, seats now, hands, bans,
reports against them and their chat mutes, addresses, and the accounts that share an address or
keep sitting at the same tables.

In games, not accounts: it reads seats and hands, and accounts must not depend on the games app.
Each part is one query whatever the player's history (lists are the most recent ``LIMIT`` rows),
so the page costs the same for a newcomer and for a regular.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, OuterRef, Subquery

from accounts.models import Ban, LedgerAccount, LedgerEntry, LedgerTransaction, SignIn, User
from accounts.services.sign_ins import sign_in_addresses
from games.models import ChatMute, HandPlayer, Report, Seat

LIMIT = 50
MATES = 10


@dataclass(frozen=True)
class Picture:
    user: User
    wallet: int
    ledger: list[LedgerEntry]
    ledger_kind: str
    seats: list[tuple[Seat, int]]  # with the chips on each
    hands: list[HandPlayer]
    bans: list[Ban]
    reports: list[Report]  # players' reports against this one, most recent first
    mutes: list[ChatMute]
    addresses: list[dict[str, Any]]
    same_address: list[dict[str, Any]]
    table_mates: list[dict[str, Any]]


def ledger_kinds() -> list[tuple[str, str]]:
    return list(LedgerTransaction.Kind.choices)


def player_picture(*, user_id: int, ledger_kind: str = "") -> Picture | None:
    """Everything staff look at about one player; None if there is no such player."""
    wallet = LedgerAccount.objects.filter(kind=LedgerAccount.Kind.WALLET, user=OuterRef("pk")).values(
        "balance"
    )
    user = User.objects.annotate(wallet=Subquery(wallet[:1])).filter(pk=user_id).first()
    if user is None:
        return None
    kinds = {value for value, _ in ledger_kinds()}
    ledger_kind = ledger_kind if ledger_kind in kinds else ""
    ledger = LedgerEntry.objects.filter(account__user=user).select_related("transaction", "account")
    if ledger_kind:
        ledger = ledger.filter(transaction__kind=ledger_kind)
    seat_chips = dict(
        LedgerAccount.objects.filter(kind=LedgerAccount.Kind.SEAT, user=user).values_list(
            "table_id", "balance"
        )
    )
    my_hands = HandPlayer.objects.filter(user=user).values("hand_id")
    my_addresses = SignIn.objects.filter(user=user, address__isnull=False).values("address")
    return Picture(
        user=user,
        wallet=user.wallet or 0,
        ledger=list(ledger.order_by("-transaction__created_at", "-pk")[:LIMIT]),
        ledger_kind=ledger_kind,
        seats=[
            (seat, seat_chips.get(seat.table_id, seat.table_chips or 0))
            for seat in Seat.objects.filter(user=user).select_related("table").order_by("table_id")
        ],
        hands=list(
            HandPlayer.objects.filter(user=user)
            .select_related("hand__table")
            .defer("hand__record", "hand__server_seed", "hand__client_seeds")
            .order_by("-hand__started_at", "-pk")[:LIMIT]
        ),
        bans=list(Ban.objects.filter(user=user).select_related("staff_user", "lifted_by")),
        reports=list(
            Report.objects.filter(reported=user)
            .select_related("reporter", "message", "handled_by")
            .order_by("-created_at", "-pk")[:LIMIT]
        ),
        mutes=list(ChatMute.objects.filter(user=user).select_related("created_by")[:LIMIT]),
        addresses=sign_in_addresses(user=user),
        same_address=list(
            SignIn.objects.filter(address__in=my_addresses)
            .exclude(user=user)
            .values("user_id", "user__username", "address")
            .annotate(last=Max("at"))
            .order_by("-last")[:LIMIT]
        ),
        # Who was dealt into the most hands with this player: worth a look when it is far more
        # than the tables they play would explain.
        table_mates=list(
            HandPlayer.objects.filter(hand_id__in=my_hands)
            .exclude(user=user)
            .values("user_id", "user__username")
            .annotate(together=Count("hand_id"))
            .order_by("-together", "user__username")[:MATES]
        ),
    )
