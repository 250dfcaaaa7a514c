"""Seat rows and the table's count of them (Table.seats_taken), always moved together.

The lobby lists ten thousand open tables by the count (and the rank the database computes from
it) instead of counting each table's seats on every page, so the count must never drift from the
rows: every Seat row is made and removed here, and the count moves in the same transaction by the
number of rows really written. A relative change (``seats_taken + 1``), not a recount: two players
sitting at once at one table each add theirs, whichever commits first.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F

from accounts.models import User
from games.models import Seat, Table


def add_seat_row(*, table: Table, user: User, position: int, **fields: Any) -> Seat:
    """A Seat row for ``user`` at ``position``, counted on the table. The caller checks that the
    seat is free and theirs to take (sit_down holds the table's row lock meanwhile); the unique
    constraints refuse a taken one with IntegrityError, and the transaction then counts nothing."""
    with transaction.atomic(savepoint=False):
        seat = Seat.objects.create(table=table, user=user, position=position, **fields)
        Table.objects.filter(pk=table.pk).update(seats_taken=F("seats_taken") + 1)
    return seat


def remove_seat_rows(*, table_id: int, user_id: int | None = None) -> int:
    """Remove ``user_id``'s seat at the table (every seat when None); returns how many went, and
    a repeat removes nothing and counts nothing.

    The table's row is locked first, as sit_down locks it before writing a seat: a player sitting
    down in the seat being freed then waits for this transaction, rather than waiting on the freed
    seat's unique key while holding the row this transaction needs for the count (a deadlock).
    No key update: a hand record written meanwhile (its key share on the table) is not held up.
    """
    with transaction.atomic(savepoint=False):
        if not Table.objects.select_for_update(no_key=True).filter(pk=table_id).exists():
            return 0
        seats = Seat.objects.filter(table_id=table_id)
        if user_id is not None:
            seats = seats.filter(user_id=user_id)
        _total, by_model = seats.delete()
        removed = by_model.get(Seat._meta.label, 0)
        if removed:
            Table.objects.filter(pk=table_id).update(seats_taken=F("seats_taken") - removed)
    return removed
