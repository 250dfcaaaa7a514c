"""The players' pages: a player's page (figures, chart, last hands, hidden figures), the
leaderboards (periods, the minimum, who is left out), bad addresses, and a fixed number of queries
whatever the history."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.services import wallet_adjust, wallet_balance
from accounts.services.computer import computer_account
from accounts.services.grants import SIGNUP_BONUS
from games.live.seat_rows import add_seat_row
from games.models import Standing
from games.players import service
from tests.history.test_service import FOLD_AND_SHOWDOWN, make_user, stored_hand
from tests.live.tablekit import make_player, make_table
from tests.staff_roles import superuser
from tests.standings.handkit import stored

pytestmark = pytest.mark.django_db


def logged_in(user, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def page_url(user) -> str:
    return reverse("player_page", args=[user.get_username()])


@pytest.fixture
def room():
    """ann beat bob three times at stake 50 today, bob beat ann once at stake 10; one hand at a
    private table and one at practice, which the public lists leave out."""
    ann, bob, cem = make_player("ann"), make_player("bob"), make_player("cem")
    fifty, ten = make_table(name="Fifty", stake=50), make_table(name="Ten", stake=10)
    private = make_table(name="Secret", stake=10, private=True)
    now = timezone.now()
    for i in range(3):
        stored(
            table=fifty,
            at=now - timedelta(minutes=10 - i),
            nets={ann.pk: 100, bob.pk: -100},
            winner_id=ann.pk,
            pot=250,
        )
    stored(table=ten, at=now - timedelta(days=3), nets={ann.pk: -30, bob.pk: 30}, winner_id=bob.pk, pot=70)
    stored(
        table=private, at=now - timedelta(minutes=1), nets={ann.pk: 5, cem.pk: -5}, winner_id=ann.pk, pot=30
    )
    return ann, bob, cem


def test_a_player_page_shows_the_figures_the_chart_and_the_last_public_hands(room):
    ann, bob, cem = room
    html = logged_in(bob).get(page_url(ann)).content.decode()
    assert "Member since" in html
    assert re.search(r'id="player-hands">5<', html) and re.search(r'id="player-won">4<', html)
    assert re.search(r'id="player-pot">250<', html)
    assert "50 (3 hands)" in html  # the favourite stake first
    assert '<svg id="chips-chart"' in html and "<polyline" in html and "<script" not in html.split("<main")[1]
    hands = re.findall(r'<tr data-hand="(\d+)">', html)
    assert len(hands) == 4  # the private table's hand is not listed
    # bob played every one of them: each has its replay link.
    assert html.count(">Replay</a>") == 4


def test_replays_are_linked_only_for_hands_the_viewer_played(room):
    ann, bob, cem = room
    html = logged_in(cem).get(page_url(ann)).content.decode()
    assert len(re.findall(r'<tr data-hand="(\d+)">', html)) == 4
    assert ">Replay</a>" not in html
    # And the replay itself stays closed to cem (the history's rules).
    hand = re.search(r'<tr data-hand="(\d+)">', html).group(1)
    assert logged_in(cem).get(reverse("hand_replay", args=[hand])).status_code == 404


def test_the_chart_counts_back_from_what_the_player_holds(room):
    ann, _, _ = room
    wallet_adjust(user=ann, amount=700, reason="a gift", staff_user=superuser(), idempotency_key="gift")
    chart = service.chart_of(player=ann, today=timezone.localdate())
    assert chart.last == wallet_balance(user=ann) == SIGNUP_BONUS + 700
    # Thirty days ago ann held what she holds now less her winnings since, the gift and her
    # sign-up bonus (she signed up today).
    assert chart.first == chart.last - (300 - 30 + 5) - 700 - SIGNUP_BONUS
    assert chart.high == chart.last  # (the stored hands here moved no ledger chips: only the sums matter)
    assert len(chart.line.split()) == service.CHART_DAYS


def test_hidden_figures_leave_others_only_the_name_and_the_date_of_joining(room):
    ann, bob, _ = room
    owner = logged_in(ann)
    assert owner.post(reverse("set_privacy"), {"stats_hidden": "on"}).status_code == 302
    ann.refresh_from_db()
    assert ann.stats_hidden
    html = logged_in(bob).get(page_url(ann)).content.decode()
    assert "Member since" in html and 'id="stats-hidden"' in html
    assert "player-hands" not in html and "chips-chart" not in html and "Fifty" not in html
    # She still sees her own, with a word that others do not.
    mine = owner.get(page_url(ann)).content.decode()
    assert 'id="player-hands">5<' in mine and "stats-hidden-note" in mine
    # And the leaderboards leave her out.
    board = logged_in(bob).get(reverse("leaderboard") + "?period=all").content.decode()
    assert ">ann<" not in board and ">bob<" in board
    owner.post(reverse("set_privacy"), {})
    ann.refresh_from_db()
    assert not ann.stats_hidden
    assert (
        "checked" not in owner.get(reverse("profile")).content.decode().split('id="stats-hidden-box"')[1][:20]
    )


def test_unknown_players_and_the_computer_get_the_room_s_404(room):
    ann, _, _ = room
    client = logged_in(ann)
    response = client.get(reverse("player_page", args=["nobody-here"]))
    assert response.status_code == 404 and "Page not found" in response.content.decode()
    computer = computer_account(level="hard", name="Computer (hard)")
    assert client.get(page_url(computer)).status_code == 404
    assert client.get("/players/%3Cscript%3E/").status_code == 404


def test_player_pages_are_for_logged_in_players(room):
    ann, _, _ = room
    response = Client().get(page_url(ann))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_leaderboards_rank_by_chips_pot_and_hands_with_a_minimum(room, monkeypatch):
    ann, bob, cem = room
    client = logged_in(cem)
    html = client.get(reverse("leaderboard")).content.decode()
    # Nobody has played 20 hands this week: the chips board is empty, the others are not.
    chips = html.split('id="board-chips"')[1].split("</section>")[0]
    assert "Nobody yet." in chips
    monkeypatch.setattr(service, "MIN_HANDS", 2)
    board = service.leaderboard(period="all")
    # cem played one hand: below the minimum, not ranked by chips.
    assert [(r.username, r.value) for r in board.chips] == [("ann", 275), ("bob", -270)]
    assert [(r.username, r.value) for r in board.pots] == [("ann", 250), ("bob", 70)]
    assert [(r.username, r.value) for r in board.hands][:2] == [("ann", 5), ("bob", 4)]
    html = client.get(reverse("leaderboard") + "?period=all").content.decode()
    assert f'href="{page_url(ann)}"' in html


def test_the_week_and_month_boards_count_only_their_period(room):
    ann, bob, _ = room
    week = service.leaderboard(period="week")
    old = timezone.localdate() - timedelta(days=3)
    expected = 4 if old >= week.starts else 3
    assert dict((r.username, r.value) for r in week.hands)["bob"] == expected
    alltime = service.leaderboard(period="all")
    assert dict((r.username, r.value) for r in alltime.hands)["bob"] == 4


def test_the_computer_is_left_out_of_the_leaderboards(room):
    computer = computer_account(level="easy", name="Computer (easy)")
    Standing.objects.create(user=computer, period="all", starts=service.ALL_TIME, hands=999, net=5000)
    assert "computer" not in {r.username for r in service.leaderboard(period="all").hands}


@pytest.mark.parametrize("period", ["year", "WEEK", "1", "all'--", "x" * 300])
def test_a_bad_period_gets_a_clear_400(room, period):
    response = Client().get(reverse("leaderboard"), {"period": period})
    assert response.status_code == 400
    assert "There is no such leaderboard" in response.content.decode()


def test_pages_in_bulgarian(room):
    ann, bob, _ = room
    client = logged_in(bob, "bg")
    html = client.get(page_url(ann)).content.decode()
    assert "Член от" in html and "Изиграни ръце" in html and "Любими мизи" in html
    board = client.get(reverse("leaderboard")).content.decode()
    assert "Класации" in board and "Тази седмица" in board and "Спечелени чипове" in board
    assert (
        "Няма такава класация"
        in Client(HTTP_ACCEPT_LANGUAGE="bg").get("/leaderboard/?period=x").content.decode()
    )


def test_names_in_the_lobby_link_to_the_player_page(room):
    ann, bob, _ = room
    table = make_table(name="Open one", stake=10)
    # Through seat_rows, which counts the seat on the table: the lobby lists by that count.
    add_seat_row(table=table, user=ann, position=0)
    client = logged_in(bob)
    assert f'href="{page_url(ann)}"' in client.get(reverse("lobby")).content.decode()


def test_names_in_a_replay_link_to_the_player_page():
    players = {name: make_user(name) for name in ("ann", "bob", "cem")}
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players)
    html = (
        logged_in(players["ann"]).get(reverse("hand_replay", args=[hand.pk]), {"step": 99}).content.decode()
    )
    for name, user in players.items():
        assert f'<a class="player-link" href="{page_url(user)}">{name}</a>' in html


# ---------------------------------------------------------------- queries


def grow(room, extra: int) -> None:
    ann, bob, cem = room
    table = make_table(name="More", stake=200)
    now = timezone.now()
    for i in range(extra):
        winner = (ann, bob, cem)[i % 3]
        others = [p for p in (ann, bob, cem) if p != winner]
        stored(
            table=table,
            at=now - timedelta(days=i % 40, minutes=i),
            nets={winner.pk: 40, others[0].pk: -20, others[1].pk: -20},
            winner_id=winner.pk,
            pot=600,
        )
    boss = superuser()
    for i, name in enumerate(f"extra{i}" for i in range(extra)):
        wallet_adjust(
            user=make_player(name), amount=10 + i, reason="x", staff_user=boss, idempotency_key=f"x{i}"
        )


@pytest.mark.parametrize("path", ["player", "leaderboard"])
def test_each_page_costs_the_same_queries_whatever_the_history(room, path, django_assert_num_queries):
    ann, bob, _ = room
    client = logged_in(bob)
    url = page_url(ann) if path == "player" else reverse("leaderboard") + "?period=all"
    client.get(url)  # the session's first use
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    grow(room, 30)
    with django_assert_num_queries(len(few.captured_queries)):
        assert client.get(url).status_code == 200
    # The session, the viewer, their ban, the header's balance, their play-time limit (the warning
    # before it, responsible play); then the page's own (the player page's last: whether the viewer
    # ignores this player's chat, and whether they are friends).
    assert len(few.captured_queries) == (14 if path == "player" else 8)
