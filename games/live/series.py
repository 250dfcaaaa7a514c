"""Seed series (RULES.md §6): the one secret server seed a table deals a run of hands from.

The database side, synchronous like records.py. A series begins with the first hand dealt after
the last one ended; it ends (and its seed is revealed) when the last player leaves the table, when
staff close it, or once SERIES_HOURS have passed since its first hand: then at the next hand, or
when anyone asks to check it, whichever comes first. A series is never revealed while one of its
hands is in play.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games.engine.fairness import new_server_seed, seed_hash
from games.models import PlayedHand, SeedSeries

SERIES_HOURS = 24


def series_expired(*, started_at: datetime, now: datetime) -> bool:
    """Whether a series that began at ``started_at`` has run its course by ``now``."""
    return now >= started_at + timedelta(hours=SERIES_HOURS)


def checkable_by(series: SeedSeries) -> datetime:
    """The latest moment a running series is revealed: a day after its first hand (sooner if the
    last player leaves or the table closes)."""
    return series.started_at + timedelta(hours=SERIES_HOURS)


def series_for_next_hand(*, table_id: int, now: datetime) -> SeedSeries:
    """The series the table's next hand deals from: the open one, or a new one when there is none
    or it has expired (revealed here). Call it inside the transaction that numbers the hand: the
    table's row is locked then, so two processes never open two series for one table."""
    # The series' row is locked until the hand is committed: a reveal (reveal_if_expired) takes
    # the same lock, so it waits and then sees this hand in play, or revealed first and this
    # deal, finding no open series once the lock is its, opens a new one.
    current = (
        SeedSeries.objects.select_for_update().filter(table_id=table_id, revealed_at__isnull=True).first()
    )
    if current is not None and series_expired(started_at=current.started_at, now=now):
        _reveal(current, reason=SeedSeries.EndReason.EXPIRED, now=now)
        current = None
    if current is not None:
        return current
    last = SeedSeries.objects.filter(table_id=table_id).aggregate(last=Max("number"))["last"] or 0
    seed = new_server_seed()
    return SeedSeries.objects.create(
        table_id=table_id, number=last + 1, server_seed=seed, server_seed_hash=seed_hash(seed), started_at=now
    )


def end_series(*, table_id: int, reason: str) -> SeedSeries | None:
    """End the table's open series and reveal its seed (the last player left, the table closed).
    Its hands in play, if any, are not dealt on: the caller has cancelled or settled them."""
    with transaction.atomic():  # the series' row lock, as the deal and reveal_if_expired take it
        current = (
            SeedSeries.objects.select_for_update().filter(table_id=table_id, revealed_at__isnull=True).first()
        )
        if current is None:
            return None
        _reveal(current, reason=reason, now=timezone.now())
    return current


def reveal_if_expired(series: SeedSeries, *, now: datetime | None = None) -> bool:
    """Reveal an open series whose time is up and which has no hand in play; True if revealed.
    A page asking about a series calls this, so an idle table's series does not stay sealed."""
    now = now or timezone.now()
    if series.revealed or not series_expired(started_at=series.started_at, now=now):
        return series.revealed
    # The check and the reveal under the series' row lock, which the deal holds from taking the
    # series to committing its hand (series_for_next_hand): a deal that took the series just
    # before its day ended and commits just after is waited for and seen. On SQLite, without row
    # locks, the IMMEDIATE transaction (settings.py) takes the database's write lock first: it
    # waits for the deal's commit the same way.
    with transaction.atomic():
        locked = SeedSeries.objects.select_for_update().get(pk=series.pk)
        if locked.revealed_at is None:
            if PlayedHand.objects.filter(series=series, status=PlayedHand.Status.IN_PLAY).exists():
                return False
            _reveal(locked, reason=SeedSeries.EndReason.EXPIRED, now=now)
    series.revealed_at, series.end_reason = locked.revealed_at, locked.end_reason
    return True


def _reveal(series: SeedSeries, *, reason: str, now: datetime) -> None:
    SeedSeries.objects.filter(pk=series.pk, revealed_at__isnull=True).update(
        revealed_at=now, end_reason=reason
    )
    series.revealed_at, series.end_reason = now, reason


def open_series(*, table_id: int) -> SeedSeries | None:
    """The table's series not yet revealed (its hash is public, its seed is not), or None."""
    return SeedSeries.objects.filter(table_id=table_id, revealed_at__isnull=True).first()
