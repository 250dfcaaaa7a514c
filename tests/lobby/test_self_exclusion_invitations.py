"""A self-excluded player gets none of the room's invitations to play (issue 36): no "Play now" on
the home page and the lobby, and an invite link does not open the table; ``may_be_notified`` is
the one question every notification asks."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import PlayBreak
from accounts.services.responsible import is_self_excluded, lift_break, may_be_notified, take_break
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db


def test_may_be_notified_is_false_only_during_a_self_exclusion(django_user_model) -> None:
    ann = make_player("ann")
    assert may_be_notified(user=ann) and not is_self_excluded(user=ann)
    take_break(user=ann, period="24h")  # a time-out: play is closed, the room may still write
    assert may_be_notified(user=ann)
    take_break(user=ann, period="6months")
    assert not may_be_notified(user=ann) and is_self_excluded(user=ann)
    boss = django_user_model.objects.create_superuser(username="boss", password="pw-for-tests-1")
    lift_break(user=ann, staff_user=boss, reason="asked in writing, checked")
    assert may_be_notified(user=ann)
    assert PlayBreak.objects.filter(user=ann, lifted_at__isnull=False).count() == 2


def test_a_self_excluded_player_is_not_invited_to_play(client) -> None:
    ann = make_player("ann")
    client.force_login(ann)
    for url in ("/", reverse("lobby")):
        assert reverse("play_now") in client.get(url).content.decode()
    table = make_table(private=True)
    invite = reverse("invite", args=[table.invite_code])

    take_break(user=ann, period="year")

    for url in ("/", reverse("lobby")):
        assert reverse("play_now") not in client.get(url).content.decode()
    answer = client.get(invite, follow=True)
    assert answer.redirect_chain[-1][0] == reverse("lobby")
    assert "invitations to tables are not shown" in answer.content.decode()
    assert table.pk not in client.session.get("invited_tables", [])
    assert client.get(reverse("table", args=[table.pk])).status_code == 404


def test_an_invite_link_still_opens_the_table_for_everyone_else(client) -> None:
    bob = make_player("bob")
    client.force_login(bob)
    table = make_table(private=True)
    answer = client.get(reverse("invite", args=[table.invite_code]))
    assert answer.status_code == 302 and answer["Location"] == reverse("table", args=[table.pk])
