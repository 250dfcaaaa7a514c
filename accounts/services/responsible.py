"""Responsible play: a player's own time-out, self-exclusion and loss limits (docs/playing.md).

A break starts at once and the player cannot end it early (a shorter one taken later does not
shorten it: the latest end of the active breaks counts). Only a superuser can lift one, with a
reason, logged in the staff log. The games app asks ``ensure_may_play`` in every path that
seats a player or moves chips onto a seat; a self-exclusion also closes every seat the player
holds, through ``user_self_excluded`` (accounts must not import games).

Loss limits are checked by the ledger itself, in ``seat_buy_in`` (every buy-in and added chips go
through it): what the player may still lose this period is the limit less their net loss in
settled hands since the period began, less every chip on their seats (all of which they can still
lose). The check locks the player's limit rows, so two buy-ins at once are decided one after the
other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.dispatch import Signal
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import staff_kinds
from accounts.ledger.errors import InvalidRequest, LedgerError
from accounts.ledger.posting import MAX_AMOUNT, check_user
from accounts.models import (
    LedgerAccount,
    LedgerEntry,
    LedgerTransaction,
    LossLimit,
    PlayBreak,
    PlayTimeLimit,
    User,
)
from accounts.staff_log.log import (
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
    staff_user = check_right(staff_user=staff_user, kind=staff_kinds.LIFT_BREAK)
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
            kind=staff_kinds.LIFT_BREAK,
            user=user,
            reason=reason,
            token=token,
            detail={"breaks": [b.pk for b in current], "kinds": [b.kind for b in current]},
        )
    return current


# ---------------------------------------------------------------- loss limits

Period = LossLimit.Period
# A raise or a removal waits this long: the moment of wanting more is the one to sleep on.
RAISE_DELAY = timedelta(hours=24)


class LossLimitReached(LedgerError):
    """The buy-in would let the player lose more than their loss limit allows."""


def period_bounds(*, period: str, now: datetime) -> tuple[datetime, datetime]:
    """When the period holding ``now`` began and when it resets (the room's local time: the
    day at midnight, the week on Monday, the month on the 1st)."""
    # Aware in the room's zone: replace() and adding days keep the wall clock (zoneinfo), so a
    # daylight-saving change inside the period still resets at midnight.
    day = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == Period.DAY:
        return day, day + timedelta(days=1)
    if period == Period.WEEK:
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    start = day.replace(day=1)
    return start, (start + timedelta(days=32)).replace(day=1)


# The transactions that win or lose chips (a buy-in at a table only moves them to a seat).
LOSS_KINDS = (
    LedgerTransaction.Kind.HAND_SETTLE,
    LedgerTransaction.Kind.TOURNAMENT_BUY_IN,
    LedgerTransaction.Kind.TOURNAMENT_REFUND,
    LedgerTransaction.Kind.TOURNAMENT_PRIZES,
)


def net_loss(*, user: User, since: datetime, until: datetime | None = None) -> int:
    """Chips lost in settled hands and tournaments since ``since`` less chips won (negative: a net
    win). A tournament's buy-in counts as lost when paid; a refund or a prize gives it back."""
    entries = LedgerEntry.objects.filter(owner=user, created_at__gte=since, transaction__kind__in=LOSS_KINDS)
    if until is not None:
        entries = entries.filter(created_at__lt=until)
    return -(entries.aggregate(total=Sum("amount"))["total"] or 0)


def chips_on_seats(*, user: User) -> int:
    accounts = LedgerAccount.objects.filter(user=user, kind=LedgerAccount.Kind.SEAT)
    return accounts.aggregate(total=Sum("balance"))["total"] or 0


@dataclass(frozen=True)
class LossLimitStatus:
    """The loss limit that binds now (the one leaving the least room), None when none is set."""

    period: str | None
    limit: int | None
    net_loss: int
    on_seats: int
    room: int | None  # chips the player may still bring to the tables; None: no limit
    resets_at: datetime | None


def loss_limit_status(
    *, user: Any, now: datetime | None = None, rows: list[LossLimit] | None = None
) -> LossLimitStatus:
    """How much the player's loss limits leave them this period."""
    user = check_user(user)
    now = now or timezone.now()
    if rows is None:
        rows = list(LossLimit.objects.filter(user=user))
    on_seats = chips_on_seats(user=user)
    best = LossLimitStatus(period=None, limit=None, net_loss=0, on_seats=on_seats, room=None, resets_at=None)
    for row in rows:
        limit = row.amount_at(now)
        if limit is None:
            continue
        start, end = period_bounds(period=row.period, now=now)
        lost = net_loss(user=user, since=start)
        room = max(limit - lost - on_seats, 0)
        if best.room is None or room < best.room or (room == best.room and limit < (best.limit or 0)):
            best = LossLimitStatus(
                period=row.period, limit=limit, net_loss=lost, on_seats=on_seats, room=room, resets_at=end
            )
    return best


PERIOD_WORDS: dict[str, Any] = {
    Period.DAY: gettext_lazy("day"),
    Period.WEEK: gettext_lazy("week"),
    Period.MONTH: gettext_lazy("month"),
}


def loss_limits(*, user: Any, now: datetime | None = None) -> list[dict[str, Any]]:
    """Each period's limit as the profile shows it: in force now, and what waits (if anything)."""
    user = check_user(user)
    now = now or timezone.now()
    rows = {row.period: row for row in LossLimit.objects.filter(user=user)}
    shown = []
    for period in Period.values:
        row = rows.get(period)
        waiting = row is not None and row.next_at is not None and row.next_at > now
        shown.append(
            {
                "period": period,
                "label": PERIOD_WORDS[period],
                "amount": row.amount_at(now) if row else None,
                "waiting": waiting,
                "next_amount": row.next_amount if waiting and row else None,
                "next_at": row.next_at if waiting and row else None,
            }
        )
    return shown


def ensure_within_loss_limit(*, user: User, amount: int) -> None:
    """Refuse (``LossLimitReached``) chips brought to a table beyond the loss limit. Call it inside
    the buy-in's transaction: it locks the player's limit rows until the buy-in commits."""
    rows = list(LossLimit.objects.select_for_update().filter(user=user).order_by("pk"))
    if not rows:
        return
    status = loss_limit_status(user=user, rows=rows)
    if status.room is None or amount <= status.room:
        return
    raise LossLimitReached(
        _(
            "Your loss limit for the %(period)s (%(limit)s chips) leaves room for %(room)s more chips "
            "at the tables until %(when)s."
        )
        % {
            "period": PERIOD_WORDS[status.period or Period.DAY],
            "limit": formats.number_format(status.limit or 0, force_grouping=True),
            "room": formats.number_format(status.room, force_grouping=True),
            "when": _when(status.resets_at or timezone.now()),
        }
    )


def _limit_change(
    current: int | None, new: int | None, *, now: datetime
) -> tuple[int | None, int | None, datetime | None]:
    """One rule for every limit a player sets: setting or lowering applies at once, raising or
    removing (``new=None``) only after RAISE_DELAY. The limit now, the one waiting, and when."""
    if new is not None and (current is None or new <= current):
        return new, None, None
    return current, new, now + RAISE_DELAY


def set_loss_limit(*, user: Any, period: Any, amount: Any) -> LossLimit:
    """Set, lower, raise or remove (``amount=None``) a loss limit: lowering or setting applies at
    once, raising or removing after 24 hours."""
    user = check_user(user)
    if period not in Period.values:
        raise InvalidRequest(_("A loss limit is per day, week or month."))
    if amount is not None and (
        isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_AMOUNT
    ):
        raise InvalidRequest(_("A loss limit is a whole number of chips, at least 1."))
    now = timezone.now()
    with transaction.atomic():
        row, _created = LossLimit.objects.get_or_create(user=user, period=period)
        row = LossLimit.objects.select_for_update().get(pk=row.pk)
        row.amount, row.next_amount, row.next_at = _limit_change(row.amount_at(now), amount, now=now)
        row.changed_at = now
        row.save()
    return row


# ---------------------------------------------------------------- play time

MAX_MINUTES_A_DAY = 24 * 60


class PlayTimeReached(LedgerError):
    """The player has played their daily play-time limit."""


def set_play_time_limit(*, user: Any, minutes: Any) -> PlayTimeLimit:
    """Set, lower, raise or remove (``minutes=None``) the daily play-time limit: lowering or setting
    applies at once, raising or removing after 24 hours."""
    user = check_user(user)
    if minutes is not None and (
        isinstance(minutes, bool) or not isinstance(minutes, int) or not 0 < minutes <= MAX_MINUTES_A_DAY
    ):
        raise InvalidRequest(_("A play-time limit is a whole number of minutes, from 1 to 1440 (a day)."))
    now = timezone.now()
    with transaction.atomic():
        row, _created = PlayTimeLimit.objects.get_or_create(user=user)
        row = PlayTimeLimit.objects.select_for_update().get(pk=row.pk)
        row.minutes, row.next_minutes, row.next_at = _limit_change(row.minutes_at(now), minutes, now=now)
        row.changed_at = now
        row.save()
    return row


def play_time_limits(*, user_ids: list[int], now: datetime | None = None) -> dict[int, int]:
    """The daily limit in minutes of each of these players who has one (one query: the tables ask
    it before every hand)."""
    now = now or timezone.now()
    limits = {}
    for row in PlayTimeLimit.objects.filter(user_id__in=user_ids):
        minutes = row.minutes_at(now)
        if minutes is not None:
            limits[row.user_id] = minutes
    return limits


def play_time_refusal(*, played: timedelta, limit_minutes: int, now: datetime | None = None) -> str | None:
    """The message for a player whose play today has reached their limit, else None."""
    if played < timedelta(minutes=limit_minutes):
        return None
    _start, tomorrow = period_bounds(period=Period.DAY, now=now or timezone.now())
    return _("You have played your %(minutes)s minutes for today: no new hands until %(when)s.") % {
        "minutes": limit_minutes,
        "when": _when(tomorrow),
    }


# ---------------------------------------------------------------- reality check

# The intervals a player may pick (0: off), and where the session keeps its times (ISO strings).
REALITY_CHECK_MINUTES = (0, 15, 30, 60, 120)
SESSION_START = "svara_play_session_start"
SESSION_CHECKED = "svara_reality_checked_at"


@dataclass(frozen=True)
class RealityCheck:
    """What the reminder shows: minutes since logging in and the net chips of hands since then."""

    minutes: int
    net: int

    @property
    def sign(self) -> str:
        """ "+" before a net win (a loss carries its own minus)."""
        return "+" if self.net > 0 else ""


def set_reality_check(*, user: Any, minutes: Any) -> None:
    user = check_user(user)
    if isinstance(minutes, bool) or minutes not in REALITY_CHECK_MINUTES:
        raise InvalidRequest(_("Pick one of the offered intervals: off, 15, 30, 60 or 120 minutes."))
    User.objects.filter(pk=user.pk).update(reality_check_minutes=minutes)
    user.reality_check_minutes = minutes


def reality_check_due(
    *, user: User, start: datetime, checked: datetime, now: datetime
) -> RealityCheck | None:
    """The reality check to show now, if the player's interval has passed since the last one."""
    interval = user.reality_check_minutes
    if not interval or now - checked < timedelta(minutes=interval):
        return None
    return RealityCheck(
        minutes=int((now - start) / timedelta(minutes=1)), net=-net_loss(user=user, since=start)
    )
