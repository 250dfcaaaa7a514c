"""Ignore lists: kept once, undone, never of oneself or of nobody."""

from __future__ import annotations

import pytest

from games.models import Ignore
from games.social.ignores import ignore_player, ignored_ids, is_ignoring, unignore_player
from games.social.refusals import Refused
from tests.social.kit import chat_room

pytestmark = pytest.mark.django_db


def test_ignoring_is_kept_once_and_undone():
    ann, bob, _table, _line = chat_room()
    ignore_player(user=ann, ignored=bob)
    ignore_player(user=ann, ignored=bob)
    assert Ignore.objects.count() == 1
    assert is_ignoring(user=ann, ignored=bob) and not is_ignoring(user=bob, ignored=ann)
    assert ignored_ids(user=ann) == {bob.pk} and ignored_ids(user=bob) == set()
    assert unignore_player(user=ann, ignored=bob) is True
    assert unignore_player(user=ann, ignored=bob) is False
    assert not Ignore.objects.exists()


def test_oneself_and_nobody_cannot_be_ignored():
    ann, _bob, _table, _line = chat_room()
    for ignored, refusal in [(ann, "yourself"), (None, "no such player"), ("bob", "no such player")]:
        with pytest.raises(Refused, match=refusal):
            ignore_player(user=ann, ignored=ignored)
    assert not Ignore.objects.exists()
