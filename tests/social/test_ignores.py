"""Ignore lists: kept in the database across sessions; not oneself, not the computer's players."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.models import Ignore
from games.social.ignores import IgnoreRefused, ignore_player, ignored_ids, ignored_players, unignore_player
from tests.live.tablekit import make_player

pytestmark = pytest.mark.django_db


def test_ignore_and_unignore():
    ann, bob = make_player("ann"), make_player("bob")
    ignore_player(user=ann, ignored=bob)
    ignore_player(user=ann, ignored=bob)  # twice is once
    assert ignored_ids(user=ann) == {bob.pk}
    assert ignored_ids(user=bob) == frozenset()  # the ignored player is not told, nor affected
    assert ignored_players(user=ann) == [bob]
    assert Ignore.objects.count() == 1
    assert unignore_player(user=ann, ignored=bob) is True
    assert unignore_player(user=ann, ignored=bob) is False
    assert ignored_ids(user=ann) == frozenset()


def test_not_oneself():
    ann = make_player("ann")
    with pytest.raises(IgnoreRefused, match="yourself"):
        ignore_player(user=ann, ignored=ann)
    assert not Ignore.objects.exists()


def test_not_the_computer():
    ann = make_player("ann")
    computer = User.objects.exclude(computer_level="").first() or User.objects.create_user(
        username="computer-test", computer_level="test"
    )
    with pytest.raises(IgnoreRefused, match="computer"):
        ignore_player(user=ann, ignored=computer)
    assert not Ignore.objects.exists()
