"""Time-outs and self-exclusions (issue 36): they start at once, cannot be undone by the player
nor by staff below a superuser, and a superuser ends one early only with a reason, logged."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from accounts import staff_kinds
from accounts.models import PlayBreak, StaffAction
from accounts.services import InvalidRequest, LedgerError, NotPermitted
from accounts.services.responsible import (
    PlayPaused,
    active_break,
    ensure_may_play,
    lift_break,
    take_break,
)
from accounts.staff_log.errors import BadStaffForm

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("period", "kind", "days"),
    [
        ("24h", PlayBreak.Kind.TIME_OUT, 1),
        ("week", PlayBreak.Kind.TIME_OUT, 7),
        ("month", PlayBreak.Kind.TIME_OUT, 30),
        ("6weeks", PlayBreak.Kind.TIME_OUT, 42),
        ("6months", PlayBreak.Kind.SELF_EXCLUSION, 182),
        ("year", PlayBreak.Kind.SELF_EXCLUSION, 365),
        ("5years", PlayBreak.Kind.SELF_EXCLUSION, 1826),
    ],
)
def test_each_length_starts_at_once(player, period, kind, days) -> None:
    before = timezone.now()
    play_break = take_break(user=player, period=period)
    assert play_break.kind == kind
    assert before <= play_break.started_at <= timezone.now()
    assert play_break.ends_at - play_break.started_at == timedelta(days=days)
    assert active_break(user=player) == play_break
    with pytest.raises(PlayPaused):
        ensure_may_play(user=player)


@pytest.mark.parametrize("period", ["3days", "", None, 24, "24H "])
def test_a_length_not_offered_is_refused_and_changes_nothing(player, period) -> None:
    with pytest.raises(InvalidRequest, match="Pick one of the offered lengths"):
        take_break(user=player, period=period)
    assert not PlayBreak.objects.exists()
    ensure_may_play(user=player)


def test_a_shorter_break_taken_later_does_not_shorten_the_first(player) -> None:
    long = take_break(user=player, period="month")
    take_break(user=player, period="24h")
    assert active_break(user=player) == long
    assert active_break(user=player, now=timezone.now() + timedelta(days=2)) == long


def test_a_break_ends_by_itself(player) -> None:
    take_break(user=player, period="24h")
    assert active_break(user=player, now=timezone.now() + timedelta(hours=24, seconds=1)) is None


def test_staff_below_a_superuser_cannot_lift_a_self_exclusion(player, make_user) -> None:
    moderator = make_user(is_staff=True)
    moderator.user_permissions.add(*Permission.objects.all())  # every right but the superuser's
    moderator = type(moderator).objects.get(pk=moderator.pk)  # fresh permission cache
    take_break(user=player, period="year")
    with pytest.raises(NotPermitted):
        lift_break(user=player, staff_user=moderator, reason="asked nicely")
    with pytest.raises(NotPermitted):
        lift_break(user=player, staff_user=player, reason="changed my mind")
    assert active_break(user=player) is not None
    assert not StaffAction.objects.exists()


def test_a_superuser_lifts_a_self_exclusion_only_with_a_reason_and_it_is_logged(player, staff) -> None:
    take_break(user=player, period="year")
    with pytest.raises(BadStaffForm, match="reason is required"):
        lift_break(user=player, staff_user=staff, reason="  ")
    assert active_break(user=player) is not None

    lifted = lift_break(user=player, staff_user=staff, reason="taken by a relative, checked by phone")

    assert active_break(user=player) is None
    ensure_may_play(user=player)
    action = StaffAction.objects.get()
    assert action.kind == staff_kinds.LIFT_BREAK.name
    assert action.user == player and action.staff_user == staff
    assert action.detail["breaks"] == [lifted[0].pk]
    with pytest.raises(LedgerError, match="not on a break"):
        lift_break(user=player, staff_user=staff, reason="again")
