"""The staff's pages of the room as a whole: the dashboard (and the part it polls), the patterns
worth a look and the hands a pair shared; who may open them, what they say in English and
Bulgarian, and a fixed number of queries whatever the rows.

Bulgarian text is checked on purpose: Cyrillic letters that look Latin are expected here.
"""

# ruff: noqa: RUF001

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import LedgerAccount
from accounts.services import seat_buy_in
from games.models import Seat, Table
from tests.oversight.room import Hands, person, play_room, pot_to
from tests.staff_pages import messages_of
from tests.staff_roles import staff_with, superuser

pytestmark = pytest.mark.django_db

DASHBOARD = "/admin/room/"
FIGURES = "/admin/room/now/"
PATTERNS = "/admin/room/patterns/"


@pytest.fixture
def boss(client):
    user = superuser()
    client.force_login(user)
    return user


def sit(table: Table, user, position: int, chips: int, *, sitting_out: bool = False) -> None:
    seat_buy_in(user=user, table_id=table.pk, amount=chips, idempotency_key=f"sit:{table.pk}:{user.pk}")
    Seat.objects.create(table=table, user=user, position=position, sitting_out=sitting_out)


def busy_room(tables: int = 1) -> None:
    """``tables`` tables of three seats: two playing, one sitting out; two hands ended at each in
    the last five minutes and one an hour ago (outside the hour)."""
    now = timezone.now()
    built = Hands()
    for i in range(tables):
        board = Table.objects.create(name=f"oak{i}", stake=10, seat_count=3)
        ann, bob, cem = (person(name) for name in ("ann", "bob", "cem"))
        sit(board, ann, 0, 300)
        sit(board, bob, 1, 200)
        sit(board, cem, 2, 500, sitting_out=True)
        for minutes in (1, 3, 70):
            built.deal(board, pot_to(ann, [ann, bob], 10), at=now - timedelta(minutes=minutes, seconds=40))
    built.save()


def text_of(response) -> str:
    return response.content.decode()


def part(page: str, name: str) -> str:
    start = page.index(f'id="{name}"')
    return page[start : page.index("</t", start)]


def test_the_dashboard_shows_the_room_now(client, boss):
    busy_room()
    page = text_of(client.get(DASHBOARD))
    assert "The room now" in page
    assert part(page, "tables-in-play") == 'id="tables-in-play">1'
    assert part(page, "players-seated").startswith('id="players-seated">3 (1 seat sitting out)')
    assert part(page, "players-online").startswith('id="players-online">0 (0 sockets open)')
    assert part(page, "hands-5").startswith('id="hands-5">0.4 (2 hands)')
    assert part(page, "hands-60").startswith('id="hands-60">0.0 (2 hands)')
    assert part(page, "chips-on-seats") == 'id="chips-on-seats">1,000'
    assert part(page, "chips-in-wallets") == 'id="chips-in-wallets">2,000'  # 3 x 1,000 less 1,000 seated
    assert part(page, "audit-circulating") == 'id="audit-circulating">3,000'
    assert part(page, "audit-house") == 'id="audit-house">-3,000'
    assert "The books balance" in part(page, "audit-verdict")
    assert "No reports waiting." in part(page, "reports-waiting")
    # It polls the part with the figures, which answers alone.
    assert f'hx-get="{FIGURES}" hx-trigger="every 10s"' in page
    figures = text_of(client.get(FIGURES))
    assert 'id="room-now"' in figures and 'id="tables-in-play">1' in figures and "<html" not in figures


def test_the_dashboard_speaks_bulgarian(client, boss):
    busy_room()
    page = text_of(client.get(DASHBOARD, HTTP_ACCEPT_LANGUAGE="bg"))
    assert "Залата сега" in page and "Маси в игра" in page and "Раздавания в минута" in page
    assert 'id="chips-on-seats">1\xa0000' in page
    assert "Няма чакащи сигнали." in page


def test_a_ledger_that_does_not_balance_is_said_on_the_dashboard(client, boss):
    busy_room()
    LedgerAccount.objects.filter(kind=LedgerAccount.Kind.WALLET).update(balance=7)  # behind the ledger's back
    page = text_of(client.get(DASHBOARD))
    verdict = part(page, "audit-verdict")
    assert "problems in the ledger" in verdict and "stored balance 7" in verdict


def test_the_audit_is_cached_briefly_and_the_figures_too(client, boss, settings):
    busy_room()
    client.get(DASHBOARD)
    with CaptureQueriesContext(connection) as again:
        page = text_of(client.get(DASHBOARD))
    # Within the cache's seconds the page asks the database about its viewer only, not the room.
    asked = " ".join(q["sql"] for q in again)
    assert "games_" not in asked and "accounts_ledger" not in asked, asked
    assert 'id="tables-in-play">1' in page


def test_the_admin_index_links_the_pages_to_who_may_open_them(client, boss):
    index = text_of(client.get("/admin/"))
    assert f'href="{DASHBOARD}"' in index and f'href="{PATTERNS}"' in index
    client.force_login(staff_with())  # view rights on everything: both pages
    index = text_of(client.get("/admin/"))
    assert f'href="{DASHBOARD}"' in index and f'href="{PATTERNS}"' in index


@pytest.mark.parametrize(
    ("without", "refused", "allowed"),
    [
        ("view_table", [DASHBOARD, FIGURES], [PATTERNS]),
        ("view_ledgeraccount", [DASHBOARD, FIGURES], [PATTERNS]),
        ("view_playedhand", [PATTERNS, f"{PATTERNS}1/2/"], [DASHBOARD]),
        ("view_user", [PATTERNS, f"{PATTERNS}1/2/"], [DASHBOARD]),
    ],
)
def test_each_page_needs_its_view_rights_and_is_linked_only_with_them(client, without, refused, allowed):
    from django.contrib.auth.models import Permission

    clerk = staff_with()
    clerk.groups.first().permissions.remove(Permission.objects.get(codename=without))
    client.force_login(clerk)
    for url in refused:
        assert client.get(url).status_code == 403, url
    for url in allowed:
        assert client.get(url).status_code == 200, url
    if DASHBOARD in allowed:  # the dashboard links the patterns only to who may open them
        assert (f'href="{PATTERNS}"' in text_of(client.get(DASHBOARD))) == (PATTERNS in allowed)
    index = text_of(client.get("/admin/"))
    for url in refused[:1]:
        assert f'href="{url}"' not in index
    for url in allowed:
        assert f'href="{url}"' in index


@pytest.mark.parametrize("url", [DASHBOARD, FIGURES, PATTERNS, f"{PATTERNS}1/2/"])
def test_players_and_visitors_are_sent_to_the_staff_log_in(client, url):
    assert client.get(url)["Location"].startswith("/admin/login/")
    client.force_login(person("ann"))
    assert client.get(url)["Location"].startswith("/admin/login/")


def dashboard_queries(client) -> int:
    from django.core.cache import cache

    from games.oversight import dashboard

    cache.delete_many([dashboard.ROOM_KEY, dashboard.AUDIT_KEY])
    with CaptureQueriesContext(connection) as queries:
        assert client.get(DASHBOARD).status_code == 200
    return len(queries)


def test_the_dashboard_runs_the_same_number_of_queries_whatever_the_room(client, boss):
    busy_room(tables=1)
    client.get(DASHBOARD)  # Django's own caches, filled once per process
    few = dashboard_queries(client)
    busy_room(tables=6)
    play_room(seed=4, rounds=3)
    assert dashboard_queries(client) == few
    assert few <= 12


def test_the_patterns_page_lists_the_pair_and_links_their_pictures_and_hands(client, boss):
    room = play_room(seed=11)
    page = text_of(client.get(PATTERNS))
    sat = page[page.index('id="sat-together"') : page.index('id="steady-losses"')]
    dumper, partner = room.dumper, room.partner
    for user in (dumper, partner):
        assert reverse("admin:games_player_picture", args=[user.pk]) in sat
    assert (
        f"{PATTERNS}{dumper.pk}/{partner.pk}/?days=7" in sat or f"{PATTERNS}{partner.pk}/{dumper.pk}/" in sat
    )
    losses = page[page.index('id="steady-losses"') : page.index('id="passed-on"')]
    assert losses.index(dumper.username) < losses.index(partner.username)
    assert f"{PATTERNS}{dumper.pk}/{partner.pk}/?days=7" in losses
    fair = room.honest[0].username
    assert fair not in sat and fair not in losses

    together = client.get(f"{PATTERNS}{dumper.pk}/{partner.pk}/?days=7")
    rows = together.context["rows"]
    assert len(rows) == 100 and all(r.a_change <= 0 for r in rows)  # at most 100; he never won
    assert reverse("hand_replay", args=[rows[0].hand.pk]) in text_of(together)


def test_the_patterns_page_speaks_bulgarian_and_keeps_its_window(client, boss):
    play_room(seed=12, hours_ago=24 * 10)
    week = client.get(PATTERNS, HTTP_ACCEPT_LANGUAGE="bg")
    page = text_of(week)
    assert "Признаци, които заслужават поглед" in page and "Сядат заедно много по-често от случайното" in page
    assert week.context["found"].sat_together == []
    month = client.get(PATTERNS + "?days=30")
    assert month.context["found"].days == 30 and len(month.context["found"].sat_together) == 1
    odd = client.get(PATTERNS + "?days=1000")
    assert odd.status_code == 200 and odd.context["found"].days == 7


def test_the_hands_of_a_pair_that_does_not_exist_are_refused_with_a_message(client, boss):
    ann = person("ann")
    response = client.get(f"{PATTERNS}{ann.pk}/999999/", follow=True)
    assert "There is no player #999999; nothing was changed." in messages_of(response)
    response = client.get(f"{PATTERNS}{ann.pk}/{ann.pk}/", follow=True)
    assert "A pair is two different players." in messages_of(response)


def patterns_queries(client) -> int:
    from django.core.cache import cache

    from games.oversight.views import PATTERNS_KEY

    cache.delete(PATTERNS_KEY.format(days=7))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(PATTERNS)
    assert response.status_code == 200
    return len(queries)


def shared_queries(client, room) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"{PATTERNS}{room.dumper.pk}/{room.partner.pk}/")
    assert response.status_code == 200
    return len(queries)


def test_the_patterns_page_runs_the_same_number_of_queries_whatever_the_rows(client, boss):
    small = play_room(seed=21, rounds=8)
    client.get(PATTERNS)
    few = patterns_queries(client)
    few_shared = shared_queries(client, small)
    for seed in (22, 23, 24):
        big = play_room(seed=seed, rounds=20, hours_ago=24 * seed / 10)
    assert patterns_queries(client) == few
    assert shared_queries(client, big) == few_shared


@pytest.mark.parametrize(
    "query", ["days=%00", "days=" + "9" * 5000, "days=-7", "days=7.5", "days=", "days=1&days=x"]
)
def test_odd_windows_answer_a_weeks_page_never_an_error(client, boss, query):
    ann, bob = person("ann"), person("bob")
    lists = client.get(f"{PATTERNS}?{query}")
    assert lists.status_code == 200 and lists.context["found"].days == 7
    shared = client.get(f"{PATTERNS}{ann.pk}/{bob.pk}/?{query}")
    assert shared.status_code == 200 and shared.context["days"] == 7
