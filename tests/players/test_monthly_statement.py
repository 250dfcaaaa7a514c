"""The profile's monthly statement (issue 36, responsible play): hands, time played and net chips
per month, from the standings and the hand records."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import HandPlayer, PlayedHand, Standing
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db


def _hand(user, *, started, minutes: int, number: int, status=PlayedHand.Status.FINISHED) -> None:
    table = make_table(name=f"t{number}")
    hand = PlayedHand.objects.create(
        table=table,
        number=number,
        status=status,
        started_at=started,
        ended_at=started + timedelta(minutes=minutes),
        server_seed_hash="0" * 64,
        server_seed="1" * 64,
    )
    HandPlayer.objects.create(
        hand=hand,
        user=user,
        position=0,
        chips_before=500,
        chips_after=500,
        started_at=started,
        hand_status=status,
    )


def test_the_profile_shows_hands_time_and_net_chips_per_month(client) -> None:
    ann = make_player("ann")
    this_month = timezone.localtime().replace(day=1, hour=12, minute=0, second=0, microsecond=0)
    last_month = (this_month - timedelta(days=1)).replace(day=1)
    Standing.objects.create(user=ann, period="month", starts=this_month.date(), stake=0, hands=3, net=-150)
    Standing.objects.create(user=ann, period="month", starts=last_month.date(), stake=0, hands=12, net=420)
    _hand(ann, started=this_month, minutes=40, number=1)
    _hand(ann, started=this_month + timedelta(hours=1), minutes=21, number=2)
    _hand(
        ann,
        started=this_month + timedelta(hours=2),
        minutes=500,
        number=3,
        status=PlayedHand.Status.CANCELLED,
    )
    _hand(ann, started=last_month, minutes=90, number=4)

    client.force_login(ann)
    page = client.get(reverse("profile")).content.decode()

    assert 'id="monthly-statement"' in page
    rows = page.split('id="monthly-statement"')[1].split("</table>")[0]
    first, second = rows.split('<tr class="month">')[1:3]
    assert (
        this_month.strftime("%Y-%m") in first and ">3<" in first and "1 h 1 min" in first and "-150" in first
    )
    assert last_month.strftime("%Y-%m") in second and ">12<" in second and "1 h 30 min" in second
    assert "+420" in second
