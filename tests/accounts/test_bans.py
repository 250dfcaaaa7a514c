"""Ban services: the record, the one-active-ban rule, and the checks tables call."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.models import Ban
from accounts.services import (
    LedgerError,
    UserBanned,
    active_ban,
    ban_user,
    ensure_not_banned,
    is_banned,
    lift_ban,
    user_can_sit,
)
from accounts.staff_log.errors import BadStaffForm, NotPermitted

pytestmark = pytest.mark.django_db


def test_a_ban_is_recorded_with_reason_and_staff(make_user, staff):
    user = make_user()
    ban = ban_user(user=user, reason="  chip dumping  ", staff_user=staff)
    assert (ban.user, ban.reason, ban.staff_user, ban.lifted_at) == (user, "chip dumping", staff, None)
    assert is_banned(user=user) and active_ban(user=user) == ban


def test_banned_users_cannot_sit(make_user, staff):
    user = make_user()
    assert user_can_sit(user=user)
    ensure_not_banned(user=user)
    ban_user(user=user, reason="abusive chat", staff_user=staff)
    assert not user_can_sit(user=user)
    with pytest.raises(UserBanned, match="banned by staff: abusive chat"):
        ensure_not_banned(user=user)


def test_lifting_a_ban_keeps_the_record(make_user, staff):
    user = make_user()
    ban_user(user=user, reason="first", staff_user=staff)
    lifted = lift_ban(user=user, staff_user=staff, reason="  appeal granted ")
    assert lifted.lifted_at is not None and lifted.lifted_by == staff
    assert lifted.lift_reason == "appeal granted"
    assert user_can_sit(user=user)
    ban_user(user=user, reason="second", staff_user=staff)
    assert Ban.objects.filter(user=user).count() == 2
    assert active_ban(user=user).reason == "second"


@pytest.mark.parametrize("reason", ["", "   ", None])
def test_a_ban_needs_a_reason(make_user, staff, reason):
    user = make_user()
    with pytest.raises(BadStaffForm, match="reason is required"):
        ban_user(user=user, reason=reason, staff_user=staff)
    assert not Ban.objects.exists()


def test_only_staff_ban_and_not_themselves_and_not_twice(make_user, staff):
    user = make_user()
    with pytest.raises(NotPermitted, match="do not have the right to ban"):
        ban_user(user=user, reason="x", staff_user=make_user())
    with pytest.raises(LedgerError, match="cannot ban themselves"):
        ban_user(user=staff, reason="x", staff_user=staff)
    ban_user(user=user, reason="x", staff_user=staff)
    with pytest.raises(LedgerError, match="already banned"):
        ban_user(user=user, reason="y", staff_user=staff)
    assert Ban.objects.count() == 1


def test_lifting_without_a_ban_is_refused(make_user, staff):
    with pytest.raises(LedgerError, match="is not banned"):
        lift_ban(user=make_user(), staff_user=staff, reason="r")


@pytest.mark.parametrize("reason", ["", "   ", None])
def test_lifting_a_ban_needs_a_reason(make_user, staff, reason):
    user = make_user()
    ban_user(user=user, reason="x", staff_user=staff)
    with pytest.raises(BadStaffForm, match="reason is required to lift"):
        lift_ban(user=user, staff_user=staff, reason=reason)
    assert Ban.objects.get().lifted_at is None


def test_inactive_and_anonymous_users_cannot_sit(make_user):
    assert not user_can_sit(user=make_user(is_active=False))
    assert not user_can_sit(user=AnonymousUser())
    assert not user_can_sit(user=None)
