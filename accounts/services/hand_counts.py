"""Each player's hand counters (HandCounts), kept by the settlement that changes them.

A settlement adds one hand played to every player in it, one hand won to those it paid, and raises
the biggest pot to what it paid if that is more: one statement (an upsert, the same on SQLite and
PostgreSQL) inside the settlement's transaction, so the counters never disagree with the ledger.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Count, Max, Q

from accounts.models import HandCounts, LedgerAccount, LedgerEntry, LedgerTransaction


def count_settled_hand(*, deltas: dict[int, int]) -> None:
    """Add a settled hand to its players' counters (user id -> chips won or lost)."""
    if not deltas:
        return
    table = connection.ops.quote_name(HandCounts._meta.db_table)
    rows = sorted(deltas.items())  # one order for every settlement: concurrent ones never deadlock
    values = ", ".join(["(%s, 1, %s, %s)"] * len(rows))
    params: list[int] = []
    for user_id, delta in rows:
        params += [user_id, 1 if delta > 0 else 0, max(delta, 0)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (user_id, played, won, biggest_pot) VALUES {values} "
            f"ON CONFLICT (user_id) DO UPDATE SET played = {table}.played + excluded.played, "
            f"won = {table}.won + excluded.won, "
            f"biggest_pot = CASE WHEN excluded.biggest_pot > {table}.biggest_pot "
            f"THEN excluded.biggest_pot ELSE {table}.biggest_pot END",
            params,
        )


def recount_from_ledger() -> int:
    """Every player's counters recomputed from the ledger's hand settlements (the migration that
    brought the counters in, and a check): returns the number of players counted."""
    found = (
        LedgerEntry.objects.filter(
            account__kind=LedgerAccount.Kind.SEAT, transaction__kind=LedgerTransaction.Kind.HAND_SETTLE
        )
        .values("account__user_id")
        .annotate(played=Count("pk"), won=Count("pk", filter=Q(amount__gt=0)), biggest=Max("amount"))
        .order_by()
    )
    counts = [
        HandCounts(
            user_id=row["account__user_id"],
            played=row["played"],
            won=row["won"],
            biggest_pot=max(row["biggest"] or 0, 0),
        )
        for row in found
    ]
    HandCounts.objects.all().delete()
    HandCounts.objects.bulk_create(counts, batch_size=1000)
    return len(counts)
