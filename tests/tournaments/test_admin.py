"""Staff cancel a sit-and-go from the admin: a reason, a confirmation, the chips back, one line in
the staff log; a staff member without the right is not offered the action."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts.models import StaffAction
from accounts.services import wallet_balance
from games.engine.tournament import SitAndGo
from games.models import Tournament
from games.tournaments.service import open_tournament, register
from tests.live.tablekit import make_player
from tests.staff_pages import confirm, list_action, preview

pytestmark = pytest.mark.django_db
TOURNAMENTS = "/admin/games/tournament/"


@pytest.fixture
def staff_client(client):
    admin = get_user_model().objects.create_superuser(
        username="boss", password="pw-boss-123", email="b@x.org"
    )
    client.force_login(admin)
    client.staff = admin
    return client


def test_cancelling_a_registering_tournament_from_the_admin(staff_client):
    tournament = open_tournament(sit_and_go=SitAndGo(seats=6, speed="turbo", buy_in=100))
    ann = make_player("ann")
    register(user=ann, tournament_id=tournament.pk)
    assert staff_client.get(TOURNAMENTS).status_code == 200  # the list renders
    data = list_action(staff_client, TOURNAMENTS, "cancel_tournaments", [tournament.pk])
    empty = confirm(staff_client, TOURNAMENTS, {**data, "reason": ""})
    assert "This field is required" in empty.content.decode()
    assert Tournament.objects.get(pk=tournament.pk).status == "open"
    data["reason"] = "the room closes for maintenance"
    page = preview(staff_client, TOURNAMENTS, data)
    assert page.context["summary"] == [f"Cancel {tournament}."]
    done = confirm(staff_client, TOURNAMENTS, data, follow=True)
    assert "is cancelled" in done.content.decode()
    assert Tournament.objects.get(pk=tournament.pk).status == "cancelled"
    assert wallet_balance(user=ann) == 1000
    action = StaffAction.objects.get(kind="sng_cancel")
    assert action.staff_user == staff_client.staff and action.reason == "the room closes for maintenance"
    again = confirm(staff_client, TOURNAMENTS, data, follow=True)  # the same form sent twice
    assert StaffAction.objects.filter(kind="sng_cancel").count() == 1 and again.status_code == 200
    call_command("audit_chips")


def test_staff_without_the_right_are_not_offered_the_action(client):
    plain = get_user_model().objects.create_user(username="clerk", password="pw-clerk-123", is_staff=True)
    from django.contrib.auth.models import Permission

    plain.user_permissions.add(Permission.objects.get(codename="view_tournament"))
    client.force_login(plain)
    page = client.get(TOURNAMENTS)
    assert page.status_code == 200 and "cancel_tournaments" not in page.content.decode()
