"""The staff's chat moderation: deleting a message, muting a player from chat, closing a report.

Each checks the staff member's right (accounts.staff_log), asks for a reason, and writes
the action to the room's one staff log in the same transaction; a form's ``token`` makes a form
sent twice act once. A deleted message disappears from every open page of its table: once the
deletion is committed, the table's channel group gets ``{"type": "chat.deleted", "message_id": N}``
and each table socket removes the line (games.tables' consumer).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import StaffAction, User
from accounts.staff_log.errors import StaffRefusal
from accounts.staff_log.kinds import StaffKind
from accounts.staff_log.log import check_staff_form, record_staff_action
from games import staff_kinds
from games.live.service import group_name
from games.models import ChatMessage, ChatMute, Report
from games.social.refusals import Refused

log = logging.getLogger(__name__)
M = TypeVar("M", ChatMessage, Report)

Kind = staff_kinds

# The lengths the report page offers (minutes); any whole number up to the maximum is accepted.
MUTE_CHOICES = (15, 60, 24 * 60)
MAX_MUTE_MINUTES = 30 * 24 * 60
CHAT_DELETED = "chat.deleted"


def _checked(
    *, staff: Any, kind: StaffKind, reason: Any, token: Any, missing: str
) -> tuple[User, str, str | None]:
    """The right, the reason and the form's token, in that order; ``Refused`` if one fails."""
    try:
        return check_staff_form(
            staff_user=staff, kind=kind, reason=reason, token=token, missing_reason=missing
        )
    except StaffRefusal as exc:
        raise Refused(str(exc)) from None


def _locked(model: type[M], row: Any, *, missing: str) -> M:
    """``row`` (an instance or its id), read again under a row lock; ``Refused`` when it is gone.
    Inside the caller's transaction, so two staff acting on it at once act one after the other."""
    pk = row.pk if isinstance(row, model) else row
    found = None
    if isinstance(pk, int) and not isinstance(pk, bool):
        found = model._default_manager.select_for_update().filter(pk=pk).first()
    if found is None:
        raise Refused(missing)
    return found


def _record(**fields: Any) -> StaffAction:
    try:
        return record_staff_action(**fields)
    except StaffRefusal as exc:  # the same form acted on meanwhile: the transaction rolls back
        raise Refused(str(exc)) from None


# ---------------------------------------------------------------- deleting a message


def announce_deleted(*, table_id: int, message_id: int) -> None:
    """Tell the table's open pages to remove the line (sent after the deletion is committed)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            group_name(table_id), {"type": CHAT_DELETED, "message_id": message_id}
        )
    except Exception:
        # The deletion stands: a page that missed the event no longer gets the line when it loads.
        log.warning("could not announce the deletion of chat message %s", message_id, exc_info=True)


def delete_chat_message(*, message: Any, staff: Any, reason: Any, token: Any = None) -> ChatMessage:
    """Hide a message from everyone, for good; the row stays (a report still shows what was said)."""
    staff, reason, token = _checked(
        staff=staff,
        kind=Kind.CHAT_DELETE,
        reason=reason,
        token=token,
        missing=_("A reason is required to delete a message."),
    )
    with transaction.atomic():
        found = _locked(ChatMessage, message, missing=_("There is no such message; nothing was changed."))
        if found.deleted_at is not None:
            raise Refused(_("This message was deleted already; nothing was changed."))
        found.deleted_at = timezone.now()
        found.deleted_by = staff
        found.save(update_fields=["deleted_at", "deleted_by"])
        _record(
            staff_user=staff,
            kind=Kind.CHAT_DELETE,
            user=found.user,
            table_id=found.table_id,
            reason=reason,
            token=token,
            detail={"message": found.pk, "text": found.text, "hand": found.hand_number},
        )
        table_id, pk = found.table_id, found.pk
        transaction.on_commit(lambda: announce_deleted(table_id=table_id, message_id=pk))
    return found


# ---------------------------------------------------------------- muting in chat


def active_mute(*, user: Any) -> ChatMute | None:
    """The mute that keeps ``user`` out of the chat now (the longest one), if any."""
    if not isinstance(user, User) or user.pk is None:
        return None
    return ChatMute.objects.filter(user_id=user.pk, until__gt=timezone.now()).order_by("-until").first()


def mute_in_chat(*, user: Any, staff: Any, minutes: Any, reason: Any, token: Any = None) -> ChatMute:
    """Keep a player out of the chat for ``minutes`` from now; they still play."""
    staff, reason, token = _checked(
        staff=staff,
        kind=Kind.CHAT_MUTE,
        reason=reason,
        token=token,
        missing=_("A reason is required to mute a player."),
    )
    if not isinstance(minutes, int) or isinstance(minutes, bool) or not 0 < minutes <= MAX_MUTE_MINUTES:
        raise Refused(
            _("A mute lasts from 1 minute to %(limit)s minutes; nothing was changed.")
            % {"limit": MAX_MUTE_MINUTES}
        )
    target = User.objects.filter(pk=user.pk).first() if isinstance(user, User) else None
    if target is None:
        raise Refused(_("There is no such player; nothing was changed."))
    if target.pk == staff.pk:
        raise Refused(_("Staff cannot mute themselves."))
    if (target.is_staff or target.is_superuser) and not staff.is_superuser:
        # As with bans: a moderator does not silence the room's admins.
        raise Refused(_("Only superusers may mute a staff account; nothing was changed."))
    until = timezone.now() + timedelta(minutes=minutes)
    with transaction.atomic():
        mute = ChatMute.objects.create(user=target, until=until, reason=reason, created_by=staff)
        _record(
            staff_user=staff,
            kind=Kind.CHAT_MUTE,
            user=target,
            reason=reason,
            token=token,
            detail={"mute": mute.pk, "minutes": minutes, "until": until.isoformat()},
        )
    return mute


# ---------------------------------------------------------------- closing a report


def close_report(*, report: Any, staff: Any, outcome: Any, token: Any = None) -> Report:
    """Mark a report dealt with, saying what was done (the outcome is the log's reason)."""
    staff, outcome, token = _checked(
        staff=staff,
        kind=Kind.REPORT_CLOSE,
        reason=outcome,
        token=token,
        missing=_("Say what was done about the report (its outcome) to close it."),
    )
    with transaction.atomic():
        found = _locked(Report, report, missing=_("There is no such report; nothing was changed."))
        if found.status != Report.Status.OPEN:
            raise Refused(_("This report was dealt with already; nothing was changed."))
        found.status = Report.Status.CLOSED
        found.handled_by = staff
        found.handled_at = timezone.now()
        found.outcome = outcome
        found.save(update_fields=["status", "handled_by", "handled_at", "outcome"])
        _record(
            staff_user=staff,
            kind=Kind.REPORT_CLOSE,
            user=found.reported,
            table_id=found.table_id,
            reason=outcome,
            token=token,
            detail={"report": found.pk, "reason": found.reason, "message": found.message_id},
        )
    return found
