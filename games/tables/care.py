"""Responsible play at the table, for one socket's player (issue 36): the reality check between
hands and the warnings before the daily play-time limit, live over the table's socket.

Each socket keeps a ``TableCare``: what it read of the player's settings (reality check interval,
the session's log-in and last answer, play time left today) and what it already showed and said.
It reads the database at connect, when the player's hand starts or ends, and when the player
answers; never on the other frames (another player's move costs nothing here). Between those,
time alone moves it on: the socket wakes itself when the reality check falls due or a warning's
moment comes (``wake_at``).

The reality check never interrupts a hand the player is in: it waits for the player's hand to end.
Shown, it sits the player out (the next hand deals them no cards while they read it); Continue
brings them back. What it shows goes through the table's live region like every other change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import User
from accounts.services.responsible import (
    PERIOD_LABELS,
    PLAY_TIME_WARNINGS,
    SESSION_CHECKED,
    SESSION_START,
    TIME_OUT_PERIODS,
    RealityCheck,
    mark_reality_checked,
    play_time_warning,
    play_time_warning_text,
    reality_check_figures,
    session_moment,
)
from games.live.records import PlayTimeLeft, play_time_left

CARE_TEMPLATE = "games/table/_care.html"


@dataclass(frozen=True)
class CareFacts:
    """What the database and the session say, read at one moment (``read_at``)."""

    interval: int  # minutes between reality checks, 0: off
    start: datetime | None  # the session's log-in
    checked: datetime | None  # the last reality check answered (or the log-in)
    left: PlayTimeLeft | None  # play time left today, None without a limit
    read_at: datetime


def _session(session_key: str | None) -> Any:
    engine = import_module(settings.SESSION_ENGINE)
    return engine.SessionStore(session_key=session_key)


def read_facts(*, user_id: int, session_key: str | None) -> CareFacts:
    """Read again (the socket's session is read once at connect; a page may have answered since)."""
    now = timezone.now()
    interval = User.objects.filter(pk=user_id).values_list("reality_check_minutes", flat=True).first() or 0
    start = checked = None
    if interval and session_key:
        session = _session(session_key)
        start = session_moment(session.get(SESSION_START))
        checked = session_moment(session.get(SESSION_CHECKED))
        if start is None or checked is None:
            # A session from before the setting: the count starts now, as on pages.
            mark_reality_checked(session=session, now=now)
            session.save()
            start = checked = now
    return CareFacts(
        interval=interval,
        start=start,
        checked=checked,
        left=play_time_left(user_id=user_id, now=now),
        read_at=now,
    )


def answer_continue(*, user_id: int, session_key: str | None) -> CareFacts:
    """Continue: the next reality check comes one interval from now (the pages' too: one session)."""
    if session_key:
        session = _session(session_key)
        mark_reality_checked(session=session)
        session.save()
    return read_facts(user_id=user_id, session_key=session_key)


def figures(*, user: User, start: datetime) -> RealityCheck:
    return reality_check_figures(user=user, start=start, now=timezone.now())


@dataclass
class TableCare:
    """One socket's reality check and play-time warnings (see the module's docstring)."""

    facts: CareFacts
    hand_key: tuple[Any, ...] | None = None  # (hand number, in it?) as last seen
    check: RealityCheck | None = None  # the reality check shown, until answered
    sat_out: bool = False  # the check sat the player out: Continue brings them back
    warned: set[int] = field(default_factory=set)  # warnings said (minutes left)
    shown: tuple[Any, ...] | None = None  # what the region last sent showed (``showing``)

    @property
    def active(self) -> bool:
        return bool(self.facts.interval) or self.facts.left is not None

    def due_at(self) -> datetime | None:
        if not self.facts.interval or self.facts.checked is None:
            return None
        return self.facts.checked + timedelta(minutes=self.facts.interval)

    def left_now(self, now: datetime) -> timedelta | None:
        left = self.facts.left
        if left is None:
            return None
        if not left.running:
            return left.left
        return left.left - (now - self.facts.read_at)

    def wake_at(self, now: datetime) -> datetime | None:
        """The next moment time alone changes what is shown: the check falling due, a warning."""
        moments = []
        due = self.due_at()
        if due is not None and self.check is None:
            moments.append(due)
        left = self.left_now(now)
        if left is not None and self.facts.left is not None and self.facts.left.running:
            for minutes in (*PLAY_TIME_WARNINGS, 0):
                moments.append(now + left - timedelta(minutes=minutes))
        future = [m for m in moments if m > now]
        return min(future) if future else None

    def new_warning(self, now: datetime) -> str | None:
        """The play-time warning to say now, once each (5 minutes, then 1)."""
        left = self.left_now(now)
        level = play_time_warning(left=left) if left is not None else None
        if level is None or level in self.warned:
            return None
        self.warned.update(m for m in PLAY_TIME_WARNINGS if m >= level)
        return play_time_warning_text(minutes=level)

    def showing(self, now: datetime) -> tuple[Any, ...]:
        """What the region shows now, compared cheaply with what was sent: it is rendered only
        when this changes, not on every frame."""
        left = self.left_now(now)
        level = play_time_warning(left=left) if left is not None else None
        return (self.check, level, left is not None and left <= timedelta(0))

    def region(self, now: datetime) -> str:
        """The care region as it is now (rendered in the active language)."""
        check, level, limit_reached = self.showing(now)
        return render_to_string(
            CARE_TEMPLATE,
            {
                "check": check,
                "warning": play_time_warning_text(minutes=level) if level else None,
                "limit_reached": limit_reached,
                "periods": [(period, PERIOD_LABELS[period]) for period in TIME_OUT_PERIODS],
            },
        )


def between_hands(view: dict[str, Any]) -> bool:
    """Whether the viewer is not in a hand (a spectator, or seated and not dealt in or done)."""
    position = view["my_position"]
    return position is None or not view["seats"][position]["in_hand"]


def hand_key(view: dict[str, Any]) -> tuple[Any, ...]:
    hand = view.get("hand")
    return (hand["number"] if hand else None, not between_hands(view))
