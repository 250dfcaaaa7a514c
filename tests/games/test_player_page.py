"""A player's whole picture for staff: wallet and chip history (filtered by kind), seats now, hands
with their replays, bans, addresses, the accounts behind the same addresses, and who they play
with most; in a fixed number of queries whatever the history.

Bulgarian text is checked on purpose: Cyrillic letters that look Latin are expected here.
"""

# ruff: noqa: RUF001

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import SignIn
from accounts.services import ban_user, lift_ban, wallet_adjust
from games.models import Seat
from tests.games.test_admin_pages import hand, player, table
from tests.staff_pages import messages_of
from tests.staff_roles import staff_with, superuser

pytestmark = pytest.mark.django_db


def url(user) -> str:
    return reverse("admin:games_player_picture", args=[user.pk])


@pytest.fixture
def boss(client):
    user = superuser()
    client.force_login(user)
    return user


@pytest.fixture
def ann(boss):
    ann, bob, cem, dan = (player(name) for name in ("ann", "bob", "cem", "dan"))
    oak = table("oak")
    for number in (1, 2, 3):
        hand(oak, number, [ann, bob])
    hand(oak, 4, [cem, ann], status="in_play")
    Seat.objects.create(table=oak, user=ann, position=2, sitting_out=True)
    wallet_adjust(user=ann, amount=250, reason="tournament prize", staff_user=boss)
    ban_user(user=ann, reason="bot play", staff_user=boss)
    lift_ban(user=ann, reason="appeal granted", staff_user=boss)
    for user, address in ((ann, "10.1.2.3"), (ann, "10.1.2.3"), (dan, "10.1.2.3"), (cem, "10.9.9.9")):
        SignIn.objects.create(user=user, address=address)
    return ann


def section(page, name: str) -> str:
    start = page.index(f'id="{name}"')
    return page[start : page.index("</table>", start)]


def test_the_whole_picture_of_a_player(client, ann):
    response = client.get(url(ann))
    page = response.content.decode()
    picture = response.context["picture"]
    assert picture.wallet == 1250
    assert "1250 in the wallet." in page
    assert "tournament prize" in section(page, "ledger") and "welcome chips" in section(page, "ledger")
    seats = section(page, "seats")
    assert "oak" in seats and "seat 3" in seats and "sitting out" in seats
    hands = section(page, "hands")
    assert hands.count("Replay") == 3  # the hand in play has no replay
    assert [row.hand.number for row in picture.hands] == [4, 3, 2, 1]
    bans = section(page, "bans")
    assert "bot play" in bans and "appeal granted" in bans
    assert "10.1.2.3" in section(page, "addresses")
    same = section(page, "same-address")
    assert "dan" in same and "cem" not in same
    mates = section(page, "table-mates")
    assert mates.index("bob") < mates.index("cem")
    assert "3 hands together" in mates and "1 hand together" in mates
    assert reverse("admin:games_player_picture", args=[picture.table_mates[0]["user_id"]]) in mates


def test_the_chip_history_filters_by_kind(client, ann):
    picture = client.get(url(ann) + "?kind=adjust").context["picture"]
    assert [e.transaction.memo for e in picture.ledger] == ["tournament prize"]
    unknown = client.get(url(ann) + "?kind=nonsense").context["picture"]
    assert unknown.ledger_kind == "" and len(unknown.ledger) == 2  # an unknown kind filters nothing


def test_the_player_page_links_here_and_it_speaks_bulgarian(client, ann):
    change = client.get(reverse("admin:accounts_user_change", args=[ann.pk]))
    assert (url(ann), "The whole picture") in change.context["staff_links"]
    bg = client.get(url(ann), HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "Цялата картина за ann" in bg and "История на чиповете" in bg and "Места сега" in bg
    assert "Преглед" in bg and "3 общи раздавания" in bg


def test_view_rights_are_enough_to_look_and_a_missing_player_is_said(client, ann):
    client.force_login(staff_with())  # view rights only
    assert client.get(url(ann)).status_code == 200
    response = client.get(reverse("admin:games_player_picture", args=[999999]), follow=True)
    assert "There is no player #999999; nothing was changed." in messages_of(response)


def test_a_staff_member_without_any_view_of_users_is_refused(client, ann):
    from django.contrib.auth.models import Permission

    clerk = staff_with()
    clerk.groups.first().permissions.remove(Permission.objects.get(codename="view_user"))
    client.force_login(clerk)
    assert client.get(url(ann)).status_code == 403


def test_the_page_runs_the_same_number_of_queries_whatever_the_history(client, ann, boss):
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(ann)).status_code == 200
        return len(queries)

    client.get(url(ann))  # Django's own caches, filled once per process
    few = count()
    elm = table("elm")
    for k in range(1, 30):
        mate = player(f"mate{k}")
        hand(elm, k, [ann, mate])
        wallet_adjust(user=ann, amount=1, reason=f"gift {k}", staff_user=boss)
        SignIn.objects.create(user=mate, address="10.1.2.3")
        SignIn.objects.create(user=ann, address=f"10.2.0.{k}")
    Seat.objects.create(table=elm, user=ann, position=0)
    assert count() == few <= 16
