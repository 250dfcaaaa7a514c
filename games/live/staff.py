"""What staff can do to a table in play: close it, or remove a player. Both are recorded as a
TableEvent with the staff user and the reason, and chips move only through the ledger."""

from __future__ import annotations

import time

from channels.db import database_sync_to_async
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from games.live import records, service
from games.live import table as t
from games.live.store import Versioned
from games.models import Seat, Table, TableEvent

Refused = t.Refused


def _check_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise Refused(_("a reason is required"))
    return reason


async def table_close(*, table_id: int, staff_user: User, reason: str) -> Versioned:
    """Cancel the hand in play, cash everyone out, and close the table for good."""
    reason = _check_reason(reason)
    await service.load_table_state(table_id)
    await service.settle(table_id=table_id)  # a hand that already ended is paid, not cancelled

    def close(current: Versioned) -> t.Doc:
        # Worded for each player in their language; the reason is staff's own words.
        notice = t.entry(gettext_noop("The table was closed by staff: %(reason)s"), reason=reason)
        doc = t.cancel_hand(current.doc, notice=notice, now=time.time())
        doc["table"]["status"] = Table.Status.CLOSED
        doc["timer"] = None
        return doc

    await service.update_table(table_id, close)
    await database_sync_to_async(_close_in_db)(table_id=table_id, staff_user=staff_user, reason=reason)

    def empty_seats(current: Versioned) -> t.Doc:
        doc = {**current.doc, "seats": [None] * len(current.doc["seats"])}
        return doc

    state = await service.update_table(table_id, empty_seats)
    await service.notify_lobby(table_id)
    return state


def _close_in_db(*, table_id: int, staff_user: User, reason: str) -> None:
    with transaction.atomic():
        records.cancel_open_hands(table_id=table_id, reason=f"table closed: {reason}", staff_user=staff_user)
        for seat in Seat.objects.filter(table_id=table_id):
            records.leave_seat(
                user_id=seat.user_id, table_id=table_id, key=f"close:{table_id}:{seat.user_id}"
            )
        Table.objects.filter(pk=table_id).update(status=Table.Status.CLOSED)
        TableEvent.objects.create(
            table_id=table_id, kind=TableEvent.Kind.CLOSED, staff_user=staff_user, reason=reason
        )


async def seat_remove(*, table_id: int, user: User, staff_user: User, reason: str) -> Versioned:
    """Take a player off their seat: their hand in play is folded, their chips go to their wallet."""
    reason = _check_reason(reason)
    state = await service.load_table_state(table_id)
    if t.position_of(state.doc, user.pk) is None:
        raise Refused(_("%(user)s is not seated at this table") % {"user": user})
    await database_sync_to_async(TableEvent.objects.create)(
        table_id=table_id, kind=TableEvent.Kind.REMOVED, staff_user=staff_user, user=user, reason=reason
    )
    return await service.table_leave(user=user, table_id=table_id)
