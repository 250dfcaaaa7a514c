"""Responsible play: a player's own time-out or self-exclusion (docs/playing.md).

A break starts at once and the player cannot end it early (a shorter one taken later does not
shorten it: the latest end of the active breaks counts). Only a superuser can lift one, with a
reason, logged in the staff log. The games app asks ``ensure_may_play`` in every path that
seats a player or moves chips onto a seat; a self-exclusion also closes every seat the player
holds, through ``user_self_excluded`` (accounts must not import games).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import PlayBreak, StaffAction, User
from accounts.services.errors import InvalidRequest, LedgerError
from accounts.services.posting import check_user
from accounts.services.staff_log import (
    check_not_done,
    check_reason,
    check_right,
    check_token,
    record_staff_action,
)

Kind = PlayBreak.Kind

# Sent once a self-exclusion is committed, with ``user`` and ``play_break``: the tables close the
# player's seats (chips back to the wallet) and sockets.
user_self_excluded = Signal()

# The lengths a player may pick (the list; a month is 30 days, six months 182).
PERIODS: dict[str, tuple[str, timedelta]] = {
    "24h": (Kind.TIME_OUT, timedelta(hours=24)),
    "week": (Kind.TIME_OUT, timedelta(days=7)),
    "month": (Kind.TIME_OUT, timedelta(days=30)),
    "6weeks": (Kind.TIME_OUT, timedelta(days=42)),
    "6months": (Kind.SELF_EXCLUSION, timedelta(days=182)),
    "year": (Kind.SELF_EXCLUSION, timedelta(days=365)),
    "5years": (Kind.SELF_EXCLUSION, timedelta(days=5 * 365 + 1)),
}
# The form's labels, in the order shown.
PERIOD_LABELS: dict[str, Any] = {
    "24h": gettext_lazy("24 hours"),
    "week": gettext_lazy("a week"),
    "month": gettext_lazy("a month"),
    "6weeks": gettext_lazy("six weeks"),
    "6months": gettext_lazy("six months"),
    "year": gettext_lazy("a year"),
    "5years": gettext_lazy("five years"),
}


class PlayPaused(LedgerError):
    """The player is on a time-out or self-excluded: no seat, buy-in or added chips."""


def _when(moment: datetime) -> str:
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def active_break(*, user: Any, now: datetime | None = None) -> PlayBreak | None:
    """The break that ends last among those in force, or None."""
    if not isinstance(user, User) or user.pk is None:
        return None
    now = now or timezone.now()
    return (
        PlayBreak.objects.filter(
            user_id=user.pk, lifted_at__isnull=True, started_at__lte=now, ends_at__gt=now
        )
        .order_by("-ends_at")
        .first()
    )


def ensure_may_play(*, user: Any) -> None:
    """Raise ``PlayPaused`` (a ``LedgerError``) while the player is on a break from play."""
    current = active_break(user=user)
    if current is None:
        return
    if current.kind == Kind.SELF_EXCLUSION:
        message = _("You have excluded yourself from play until %(when)s.")
    else:
        message = _("You are taking a break from play until %(when)s.")
    raise PlayPaused(message % {"when": _when(current.ends_at)})


def take_break(*, user: Any, period: Any) -> PlayBreak:
    """Start a time-out or a self-exclusion now, for one of ``PERIODS``; it cannot be undone."""
    user = check_user(user)
    if not isinstance(period, str) or period not in PERIODS:
        raise InvalidRequest(
            _("Pick one of the offered lengths: %(lengths)s.")
            % {"lengths": ", ".join(str(label) for label in PERIOD_LABELS.values())}
        )
    kind, length = PERIODS[period]
    now = timezone.now()
    with transaction.atomic():
        play_break = PlayBreak.objects.create(user=user, kind=kind, started_at=now, ends_at=now + length)
        if kind == Kind.SELF_EXCLUSION:
            transaction.on_commit(
                lambda: user_self_excluded.send(sender=PlayBreak, user=user, play_break=play_break)
            )
    return play_break


def lift_break(*, user: Any, staff_user: Any, reason: str, token: str | None = None) -> list[PlayBreak]:
    """End the player's breaks in force early: superusers only, with a reason, logged."""
    staff_user = check_right(staff_user=staff_user, kind=StaffAction.Kind.LIFT_BREAK)
    user = check_user(user)
    token = check_token(token)
    reason = check_reason(reason, message=_("A reason is required to end a break from play early."))
    check_not_done(token)
    now = timezone.now()
    with transaction.atomic():
        current = list(
            PlayBreak.objects.select_for_update().filter(user=user, lifted_at__isnull=True, ends_at__gt=now)
        )
        if not current:
            raise LedgerError(_("%(user)s is not on a break from play.") % {"user": user})
        for play_break in current:
            play_break.lifted_at = now
            play_break.lifted_by = staff_user
            play_break.lift_reason = reason
            play_break.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
        record_staff_action(
            staff_user=staff_user,
            kind=StaffAction.Kind.LIFT_BREAK,
            user=user,
            reason=reason,
            token=token,
            detail={"breaks": [b.pk for b in current], "kinds": [b.kind for b in current]},
        )
    return current
