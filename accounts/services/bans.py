"""Staff bans: a banned user cannot log in (see accounts.backends) nor sit at a table."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Ban, User
from accounts.services.errors import InvalidRequest, LedgerError, UserBanned
from accounts.services.posting import check_user

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


def _check_staff(staff_user: Any) -> User:
    if not isinstance(staff_user, User) or not staff_user.is_staff:
        raise LedgerError(_("Only staff can ban or lift a ban."))
    return staff_user


def ban_user(*, user: Any, reason: str, staff_user: Any) -> Ban:
    user = check_user(user)
    staff_user = _check_staff(staff_user)
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidRequest(_("A reason is required to ban a user."))
    if user.pk == staff_user.pk:
        raise LedgerError(_("Staff cannot ban themselves."))
    try:
        with transaction.atomic():
            ban = Ban.objects.create(user=user, reason=reason.strip(), staff_user=staff_user)
            # The tables (another app) take the player off their seats and close their sockets.
            transaction.on_commit(lambda: user_banned.send(sender=Ban, user=user, ban=ban))
            return ban
    except IntegrityError:
        # The partial unique constraint: one active ban per user.
        raise LedgerError(_("%(user)s is already banned.") % {"user": user}) from None


def lift_ban(*, user: Any, staff_user: Any) -> Ban:
    user = check_user(user)
    staff_user = _check_staff(staff_user)
    with transaction.atomic():
        ban = Ban.objects.select_for_update().filter(user=user, lifted_at__isnull=True).first()
        if ban is None:
            raise LedgerError(_("%(user)s is not banned.") % {"user": user})
        ban.lifted_at = timezone.now()
        ban.lifted_by = staff_user
        ban.save(update_fields=["lifted_at", "lifted_by"])
    return ban
