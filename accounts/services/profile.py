"""Read-only queries for the profile page."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Max, Q, QuerySet

from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction, User


@dataclass(frozen=True)
class HandStats:
    played: int
    won: int
    biggest_pot: int


def ledger_rows(*, user: User) -> QuerySet[LedgerEntry]:
    """The user's entries (wallet and seats), newest first."""
    return (
        LedgerEntry.objects.filter(account__user=user)
        .select_related("transaction", "account")
        .order_by("-transaction__created_at", "-pk")
    )


def hand_stats(*, user: User) -> HandStats:
    """Hands played and won, and the biggest pot, from the hand_settle entries of the user's seats.

    Until the games app stores hands, the ledger is the record: a hand won is a settle that paid the
    user's seat, and the biggest pot is the largest such payment.
    """
    stats = LedgerEntry.objects.filter(
        account__user=user,
        account__kind=LedgerAccount.Kind.SEAT,
        transaction__kind=LedgerTransaction.Kind.HAND_SETTLE,
    ).aggregate(
        played=Count("pk"),
        won=Count("pk", filter=Q(amount__gt=0)),
        biggest=Max("amount", filter=Q(amount__gt=0)),
    )
    return HandStats(played=stats["played"], won=stats["won"], biggest_pot=stats["biggest"] or 0)


def set_stats_hidden(*, user: User, hidden: bool) -> None:
    """Hide the player's figures from others (their page shows the name and the date of joining;
    the leaderboards leave them out), or show them again."""
    User.objects.filter(pk=user.pk).update(stats_hidden=hidden)
    user.stats_hidden = hidden
