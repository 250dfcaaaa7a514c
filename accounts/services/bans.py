"""Staff bans: a banned user cannot log in (see accounts.backends) nor sit at a table."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import staff_kinds
from accounts.ledger.errors import LedgerError, UserBanned
from accounts.ledger.posting import check_user
from accounts.models import Ban, User
from accounts.staff_log.errors import NotPermitted
from accounts.staff_log.log import (
    check_not_done,
    check_reason,
    check_right,
    check_token,
    record_staff_action,
)

# Sent once a ban is committed, with ``user`` and ``ban``.
user_banned = Signal()


def active_ban(*, user: Any) -> Ban | None:
    if not isinstance(user, User) or user.pk is None:
        return None
    return Ban.objects.filter(user_id=user.pk, lifted_at__isnull=True).first()


def is_banned(*, user: Any) -> bool:
    return active_ban(user=user) is not None


def ensure_not_banned(*, user: Any) -> None:
    """Raise ``UserBanned`` (a ``LedgerError``) when the user is banned; tables call this on sit-down."""
    ban = active_ban(user=user)
    if ban is not None:
        raise UserBanned(_("%(user)s is banned by staff: %(reason)s") % {"user": user, "reason": ban.reason})


def user_can_sit(*, user: Any) -> bool:
    """Whether the user may take a seat: a registered, active user with no active ban."""
    if not isinstance(user, User) or user.pk is None or not user.is_active:
        return False
    return not is_banned(user=user)


def ban_user(*, user: Any, reason: str, staff_user: Any, token: str | None = None) -> Ban:
    """Ban a player with a reason (needs "add ban"); logged as a staff action."""
    staff_user = check_right(staff_user=staff_user, kind=staff_kinds.BAN)
    user = check_user(user)
    token = check_token(token)
    reason = check_reason(reason, message=_("A reason is required to ban a user."))
    if user.pk == staff_user.pk:
        raise LedgerError(_("Staff cannot ban themselves."))
    if (user.is_staff or user.is_superuser) and not staff_user.is_superuser:
        # Banning locks an account out: a moderator must not be able to lock out the room's admins.
        raise NotPermitted(_("Only superusers may ban a staff account; nothing was changed."))
    check_not_done(token)
    try:
        with transaction.atomic():
            ban = Ban.objects.create(user=user, reason=reason, staff_user=staff_user)
            record_staff_action(
                staff_user=staff_user, kind=staff_kinds.BAN, user=user, reason=reason, token=token
            )
            # The tables (another app) take the player off their seats and close their sockets.
            transaction.on_commit(lambda: user_banned.send(sender=Ban, user=user, ban=ban))
    except IntegrityError:
        # The partial unique constraint: one active ban per user.
        raise LedgerError(_("%(user)s is already banned.") % {"user": user}) from None
    return ban


def lift_ban(*, user: Any, staff_user: Any, reason: str, token: str | None = None) -> Ban:
    """Lift the active ban, with a reason (needs "lift ban"); logged as a staff action."""
    staff_user = check_right(staff_user=staff_user, kind=staff_kinds.LIFT_BAN)
    user = check_user(user)
    token = check_token(token)
    reason = check_reason(reason, message=_("A reason is required to lift a ban."))
    check_not_done(token)
    with transaction.atomic():
        ban = Ban.objects.select_for_update().filter(user=user, lifted_at__isnull=True).first()
        if ban is None:
            raise LedgerError(_("%(user)s is not banned.") % {"user": user})
        ban.lifted_at = timezone.now()
        ban.lifted_by = staff_user
        ban.lift_reason = reason
        ban.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
        record_staff_action(
            staff_user=staff_user,
            kind=staff_kinds.LIFT_BAN,
            user=user,
            reason=reason,
            token=token,
            detail={"ban": ban.pk, "banned_for": ban.reason},
        )
    return ban
