"""The warnings before the daily play-time limit on pages (issue 36), 5 minutes and 1 minute before,
and the service rules they follow; the table says them live (tests/tables/test_consumer_care.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.services.responsible import play_time_warning, set_play_time_limit
from games.live.records import play_time_left
from tests.live.test_play_breaks import _played_today

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("left", "warning"),
    [
        (timedelta(minutes=10), None),
        (timedelta(minutes=5, seconds=1), None),
        (timedelta(minutes=5), 5),
        (timedelta(minutes=1, seconds=1), 5),
        (timedelta(minutes=1), 1),
        (timedelta(seconds=1), 1),
        (timedelta(0), None),  # reached: the limit itself speaks, no more warning
        (timedelta(minutes=-3), None),
    ],
)
def test_the_warning_due_with_the_time_left(left, warning) -> None:
    assert play_time_warning(left=left) == warning


def test_time_left_counts_the_hands_played_today(player) -> None:
    assert play_time_left(user_id=player.pk) is None  # no limit, nothing to count
    _played_today(player, minutes=3)
    set_play_time_limit(user=player, minutes=10)
    left = play_time_left(user_id=player.pk)
    assert left is not None and not left.running
    assert left.left == timedelta(minutes=7)


@pytest.mark.parametrize(("limit", "shown"), [(20, False), (5, True), (2, True)])
def test_pages_warn_5_minutes_and_1_minute_before_the_limit(client, player, limit, shown) -> None:
    _played_today(player, minutes=1)
    set_play_time_limit(user=player, minutes=limit)
    client.force_login(player)
    page = client.get("/lobby/").content.decode()
    if not shown:
        assert 'id="play-time-warning"' not in page
        return
    warning = page.split('id="play-time-warning"')[1].split("</p>")[0]
    assert 'class="care-warning" id="play-time-warning" role="status"' in page
    expected = "5 minutes of play left today" if limit == 5 else "1 minute of play left today"
    assert expected in warning
