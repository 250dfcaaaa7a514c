"""The reality check on pages (issue 36): at the interval the player picks, every page shows the
time played this session (since logging in) and the net chips of its hands, with Continue, Take a
break and Log out. Continue hides it until the next interval."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import PlayBreak
from accounts.services import hand_settle, seat_buy_in
from accounts.services.responsible import SESSION_CHECKED, SESSION_START

pytestmark = pytest.mark.django_db


def _session_began(client, minutes_ago: int) -> None:
    session = client.session
    moment = (timezone.now() - timedelta(minutes=minutes_ago)).isoformat()
    session[SESSION_START] = moment
    session[SESSION_CHECKED] = moment
    session.save()


def test_the_player_picks_an_interval_and_a_bad_one_is_refused(client, player) -> None:
    client.force_login(player)
    page = client.get(reverse("profile")).content.decode()
    assert 'name="reality_check"' in page
    done = client.post(reverse("set_reality_check"), {"minutes": "30"}, follow=True).content.decode()
    assert "A reality check every 30 minutes." in done
    player.refresh_from_db()
    assert player.reality_check_minutes == 30
    bad = client.post(reverse("set_reality_check"), {"minutes": "7"}, follow=True).content.decode()
    assert "Pick one of the offered intervals" in bad
    player.refresh_from_db()
    assert player.reality_check_minutes == 30


def test_a_reality_check_shows_on_pages_when_its_interval_has_passed_and_continue_hides_it(
    client, player, make_user, fund
) -> None:
    other = make_user()
    fund(other, 1000)
    seat_buy_in(user=player, table_id=5, amount=300, idempotency_key="b1")
    seat_buy_in(user=other, table_id=5, amount=300, idempotency_key="b2")
    hand_settle(table_id=5, deltas={player.pk: -120, other.pk: 120}, idempotency_key="h1")
    player.reality_check_minutes = 15
    player.save()
    client.force_login(player)
    _session_began(client, minutes_ago=10)
    assert 'id="reality-check"' not in client.get("/lobby/").content.decode()

    _session_began(client, minutes_ago=16)
    page = client.get("/lobby/").content.decode()
    assert 'id="reality-check"' in page
    check = page.split('id="reality-check"')[1].split("</section>")[0]
    assert "16 minutes" in check and "since you logged in: -120." in check
    # Take a break: a one-click time-out of the length picked; Log out: the header's form.
    assert f'action="{reverse("reality_check_break")}"' in check
    assert 'value="24h"' in check and 'value="6weeks"' in check and 'value="6months"' not in check
    assert 'form="logout-form"' in check and 'id="logout-form"' in page

    client.post(reverse("reality_check_continue"), {"next": "/lobby/"})
    assert 'id="reality-check"' not in client.get("/lobby/").content.decode()


def test_no_reality_check_when_it_is_off(client, player) -> None:
    client.force_login(player)
    _session_began(client, minutes_ago=600)
    assert 'id="reality-check"' not in client.get("/lobby/").content.decode()


def test_take_a_break_from_the_reality_check_starts_the_time_out_picked_in_one_click(client, player) -> None:
    player.reality_check_minutes = 15
    player.save()
    client.force_login(player)
    _session_began(client, minutes_ago=20)
    done = client.post(reverse("reality_check_break"), {"period": "week"}, follow=True).content.decode()
    assert "Your break from play has begun" in done
    current = PlayBreak.objects.get(user=player)
    assert current.kind == PlayBreak.Kind.TIME_OUT
    assert timedelta(days=7) - (current.ends_at - current.started_at) == timedelta(0)
    # Answered: the reminder is gone until the next interval.
    assert 'id="reality-check"' not in client.get("/lobby/").content.decode()


@pytest.mark.parametrize("period", ["6months", "3days", "", "week "])
def test_a_break_the_reality_check_does_not_offer_is_refused_and_changes_nothing(
    client, player, period
) -> None:
    client.force_login(player)
    done = client.post(reverse("reality_check_break"), {"period": period}, follow=True).content.decode()
    assert "Pick one of the offered lengths" in done
    assert not PlayBreak.objects.filter(user=player).exists()
