"""What staff can do to a table: close it, remove a player, change its settings.

Each needs its own permission, checked here (``accounts.staff_log``), and is written to
the staff log and as a TableEvent with the staff user and the reason; chips move only through
the ledger. A refusal raises ``Refused`` with a message for the staff member and changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.staff_log.errors import StaffRefusal
from accounts.staff_log.log import check_right, check_staff_form, record_staff_action
from games import staff_kinds
from games.kinds import Leaving
from games.live import process, records, series, service
from games.live import transitions as t
from games.live.document import Doc, Refused, copy_doc, position_of, table_kind
from games.live.entries import LOG_KEPT, entry, event_entry, set_notice
from games.live.store import Versioned
from games.models import Seat, SeedSeries, Table, TableEvent

log = logging.getLogger(__name__)

in_db = service.in_db

# Fixed while anyone sits at the table: the hand in play, the buy-ins and the seats depend on them.
LOCKED_WHILE_SEATED = ("stake", "seat_count", "dark_play")
EDITABLE = ("name", *LOCKED_WHILE_SEATED, "turn_seconds", "private")


def _checked(
    *, staff_user: Any, kind: str, reason: Any, token: Any, missing_reason: str
) -> tuple[str, str | None]:
    """The permission, the reason and the form's token, in that order; ``Refused`` if one fails."""
    try:
        _, reason, token = check_staff_form(
            staff_user=staff_user, kind=kind, reason=reason, token=token, missing_reason=missing_reason
        )
    except StaffRefusal as exc:
        raise Refused(str(exc)) from None
    return reason, token


# ---------------------------------------------------------------- closing a table


def _check_close(*, table_id: int, staff_user: Any, reason: Any, token: Any) -> tuple[str, str | None]:
    reason, token = _checked(
        staff_user=staff_user,
        kind=staff_kinds.TABLE_CLOSE,
        reason=reason,
        token=token,
        missing_reason=_("A reason is required to close a table."),
    )
    table = records.load_table(table_id)
    if table.status != Table.Status.OPEN:
        raise Refused(_("%(table)s is closed already; nothing was changed.") % {"table": table})
    return reason, token


async def table_close(*, table_id: int, staff_user: User, reason: str, token: str | None = None) -> Versioned:
    """Cancel the hand in play, cash everyone out, and close the table for good."""
    reason, token = await in_db(_check_close)(
        table_id=table_id, staff_user=staff_user, reason=reason, token=token
    )
    await service.load_table_state(table_id)
    await service.settle(table_id=table_id)  # a hand that already ended is paid, not cancelled

    def close(current: Versioned) -> Doc:
        # Worded for each player in their language; the reason is staff's own words.
        notice = entry(gettext_noop("The table was closed by staff: %(reason)s"), reason=reason)
        doc = t.cancel_hand(current.doc, notice=notice, now=process.now())
        doc["table"]["status"] = Table.Status.CLOSED
        doc["timer"] = None
        return doc

    await service.update_table(table_id, close)
    await in_db(_close_in_db)(table_id=table_id, staff_user=staff_user, reason=reason, token=token)

    def empty_seats(current: Versioned) -> Doc:
        doc = {**current.doc, "seats": [None] * len(current.doc["seats"])}
        return doc

    state = await service.update_table(table_id, empty_seats)
    await service.notify_lobby(table_id)
    return state


def _close_in_db(*, table_id: int, staff_user: User, reason: str, token: str | None) -> None:
    with transaction.atomic():
        seats = list(Seat.objects.filter(table_id=table_id).select_related("user"))
        records.cancel_open_hands(table_id=table_id, reason=f"table closed: {reason}", staff_user=staff_user)
        series.end_series(table_id=table_id, reason=SeedSeries.EndReason.CLOSED)
        for seat in seats:
            records.leave_seat(
                user_id=seat.user_id, table_id=table_id, key=f"close:{table_id}:{seat.user_id}"
            )
        Table.objects.filter(pk=table_id).update(status=Table.Status.CLOSED)
        TableEvent.objects.create(
            table_id=table_id, kind=TableEvent.Kind.CLOSED, staff_user=staff_user, reason=reason
        )
        try:
            record_staff_action(
                staff_user=staff_user,
                kind=staff_kinds.TABLE_CLOSE,
                table_id=table_id,
                reason=reason,
                token=token,
                detail={"players": [seat.user.get_username() for seat in seats]},
            )
        except StaffRefusal as exc:
            raise Refused(str(exc)) from None


# ---------------------------------------------------------------- removing a player


def _check_remove(
    *, table_id: int, user: Any, staff_user: Any, reason: Any, token: Any
) -> tuple[str, str | None]:
    reason, token = _checked(
        staff_user=staff_user,
        kind=staff_kinds.SEAT_REMOVE,
        reason=reason,
        token=token,
        missing_reason=_("A reason is required to remove a player."),
    )
    if not isinstance(user, User) or not User.objects.filter(pk=user.pk).exists():
        raise Refused(_("There is no such player; nothing was changed."))
    records.load_table(table_id)
    return reason, token


async def seat_remove(
    *, table_id: int, user: User, staff_user: User, reason: str, token: str | None = None
) -> Versioned:
    """Take a player off their seat: their hand in play is folded, their chips go to their wallet,
    and the table (the player with the others) is told why, as it is when a table is closed."""
    reason, token = await in_db(_check_remove)(
        table_id=table_id, user=user, staff_user=staff_user, reason=reason, token=token
    )
    state = await service.load_table_state(table_id)
    pos = position_of(state.doc, user.pk)
    if pos is None:
        raise Refused(_("%(user)s is not seated at this table; nothing was changed.") % {"user": user})
    name = state.doc["seats"][pos]["name"]

    def tell(current: Versioned) -> Doc:
        doc = copy_doc(current.doc)
        line = event_entry("removed", name=name, reason=reason)
        doc["log"] = [*doc["log"], line][-LOG_KEPT:]
        set_notice(doc, line)
        return doc

    if table_kind(state.doc).leaving is not Leaving.CLOSES_TABLE:  # else the table ends with it
        await service.update_table(table_id, tell)
    state = await service.table_leave(user=user, table_id=table_id)
    await in_db(_record_removal)(
        table_id=table_id, user=user, staff_user=staff_user, reason=reason, token=token
    )
    return state


def _record_removal(*, table_id: int, user: User, staff_user: User, reason: str, token: str | None) -> None:
    with transaction.atomic():
        TableEvent.objects.create(
            table_id=table_id, kind=TableEvent.Kind.REMOVED, staff_user=staff_user, user=user, reason=reason
        )
        try:
            record_staff_action(
                staff_user=staff_user,
                kind=staff_kinds.SEAT_REMOVE,
                user=user,
                table_id=table_id,
                reason=reason,
                token=token,
            )
        except StaffRefusal as exc:
            raise Refused(str(exc)) from None


# ---------------------------------------------------------------- changing a table's settings


def check_table_change(*, table_id: int, changes: Mapping[str, Any]) -> None:
    """Refuse a change to the stake, the seats or dark play while anyone sits at the table."""
    if set(changes) & set(LOCKED_WHILE_SEATED) and Seat.objects.filter(table_id=table_id).exists():
        raise Refused(
            _(
                "The stake, the number of seats and dark play are fixed while players sit at the table; "
                "nothing was changed."
            )
        )


async def table_change_settings(*, table_id: int, staff_user: User, changes: Mapping[str, Any]) -> Table:
    """Change a table's settings (needs "change table"); the table in play follows at once.

    The name, the turn time and privacy may change at any time; the stake, the seats and dark
    play only while nobody sits there. A renaming is a TableEvent; every change is logged.
    """
    table, changed = await in_db(change_table_in_db)(
        table_id=table_id, staff_user=staff_user, changes=changes
    )
    await table_follow_settings(table_id=table_id, new={field: getattr(table, field) for field in changed})
    return table


async def table_follow_settings(*, table_id: int, new: Mapping[str, Any]) -> None:
    """Bring the table in play (if the store holds it) to the settings just saved.

    No database work here: the admin calls it once its own transaction has committed.
    """
    if new and await service.read_table(table_id) is not None:
        await service.update_table(
            table_id, lambda current: _with_settings(current.doc, new), settle_ended=False
        )
        await service.notify_lobby(table_id)


def _with_settings(doc: Doc, new: Mapping[str, Any]) -> Doc:
    doc = copy_doc(doc)
    doc["table"].update(new)
    count = new.get("seat_count")
    if count is not None:
        seats = doc["seats"]
        if any(seats[count:]):
            # Someone sat down between the database's check and here: never drop a seated player.
            log.error("table %s: seat count kept, seats taken beyond %s", doc["table"]["id"], count)
            doc["table"]["seat_count"] = len(seats)
        else:
            doc["seats"] = (seats + [None] * count)[:count]
    return doc


def change_table_in_db(
    *, table_id: int, staff_user: Any, changes: Mapping[str, Any]
) -> tuple[Table, list[str]]:
    try:
        check_right(staff_user=staff_user, kind=staff_kinds.TABLE_EDIT)
    except StaffRefusal as exc:
        raise Refused(str(exc)) from None
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise Refused(_("These settings cannot be changed: %(fields)s.") % {"fields": ", ".join(unknown)})
    with transaction.atomic():
        # The row lock makes two changes of one table queue; a seat taken meanwhile is seen below.
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None:
            raise Refused(_("there is no such table"))
        before = {field: getattr(table, field) for field in EDITABLE}
        changed = [field for field in EDITABLE if field in changes and changes[field] != before[field]]
        check_table_change(table_id=table_id, changes={field: changes[field] for field in changed})
        if not changed:
            return table, []
        for field in changed:
            setattr(table, field, changes[field])
        try:
            table.full_clean(exclude=[f.name for f in Table._meta.fields if f.name not in changed])
        except ValidationError as exc:
            raise Refused(" ".join(exc.messages)) from None
        table.save(update_fields=changed)
        detail = {field: [before[field], getattr(table, field)] for field in changed}
        if "name" in changed:
            TableEvent.objects.create(
                table_id=table_id,
                kind=TableEvent.Kind.RENAMED,
                staff_user=staff_user,
                detail={"from": before["name"], "to": table.name},
            )
        if set(changed) - {"name"}:
            TableEvent.objects.create(
                table_id=table_id,
                kind=TableEvent.Kind.SETTINGS,
                staff_user=staff_user,
                detail={field: pair for field, pair in detail.items() if field != "name"},
            )
        record_staff_action(
            staff_user=staff_user, kind=staff_kinds.TABLE_EDIT, table_id=table_id, detail=detail
        )
    return table, changed
