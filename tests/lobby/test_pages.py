"""The lobby through Django's test client: listing, filtering, opening tables, invites, Play now,
the live list over its WebSocket, the header's balance, and the test-only deck hook's URL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import Resolver404, resolve

from accounts.services import seat_balance, wallet_adjust, wallet_balance
from games.engine.cards import parse_cards
from games.live import service
from games.live.store import get_state_store
from games.lobby import service as lobby
from games.models import Seat, Table
from svara_site.asgi import application
from tests.live.tablekit import make_player, make_table

ROOT = Path(__file__).resolve().parents[2]


def sit(user, table: Table, position: int, buy_in: int | None = None) -> None:
    async_to_sync(service.table_sit)(
        user=user, table_id=table.pk, position=position, buy_in=buy_in or table.default_buy_in
    )


def logged_in(client, user):
    client.force_login(user)
    return client


# ---------------------------------------------------------------- listing


@pytest.mark.django_db(transaction=True)
def test_lobby_lists_public_open_tables_with_stake_seats_dark_play_and_players(client):
    ann = make_player("ann")
    public = make_table(name="Sofia", stake=10, seat_count=4, dark_play=False)
    make_table(name="Hidden room", private=True)
    make_table(name="Shut", status=Table.Status.CLOSED)
    make_table(name="Solo drill", kind="practice")
    sit(ann, public, 2)

    response = client.get("/lobby/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "Sofia" in text and "ann" in text
    row = text[text.index(f'data-table-id="{public.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "1/4" in row
    assert ">no<" in row  # dark play off
    assert f'href="/table/{public.pk}/"' in row  # spectate: anyone may open a public table's page
    listed = text[text.index('id="lobby-tables"') :]
    for absent in ("Hidden room", "Shut", "Solo drill"):
        assert absent not in listed
    assert 'ws-connect="/ws/lobby/"' in text


@pytest.mark.django_db
def test_lobby_filters_by_stake(client):
    make_table(name="Small", stake=10)
    make_table(name="Big", stake=200)
    text = client.get("/lobby/?stake=200").content.decode()
    assert "Big" in text and "Small" not in text
    assert 'ws-connect="/ws/lobby/?stake=200"' in text  # the live list keeps the filter
    # Anything that is not a stake shows every table rather than an error page.
    text = client.get("/lobby/?stake=7").content.decode()
    assert "Big" in text and "Small" in text
    assert (
        lobby.parse_stake("50") == 50 and lobby.parse_stake("abc") is None and lobby.parse_stake("11") is None
    )


@pytest.mark.django_db
def test_the_list_alone_is_served_for_the_polling_fallback(client):
    make_table(name="Small", stake=10)
    make_table(name="Big", stake=200)
    text = client.get("/lobby/tables/?stake=10").content.decode()
    assert 'id="lobby-tables" hx-swap-oob="true"' in text
    assert "Small" in text and "Big" not in text and "<html" not in text
    assert 'hx-get="/lobby/tables/?stake=10"' in client.get("/lobby/?stake=10").content.decode()


@pytest.mark.django_db
def test_home_page_links_to_the_lobby(client):
    assert 'href="/lobby/"' in client.get("/").content.decode()


@pytest.mark.django_db
def test_header_shows_the_balance_and_navigation(client):
    ann = make_player("ann")
    text = logged_in(client, ann).get("/lobby/").content.decode()
    assert 'id="nav-balance"' in text and "1,000" in text
    assert 'href="/profile/"' in text and "Log out" in text
    assert client.get("/balance/").content.decode().count("1,000") == 1


@pytest.mark.django_db
def test_anonymous_visitors_see_the_lobby_but_must_log_in_to_play(client):
    make_table(name="Sofia")
    text = client.get("/lobby/").content.decode()
    assert "Sofia" in text and "Log in" in text and "Play now" not in text
    for method, url in (("post", "/lobby/play-now/"), ("get", "/tables/new/"), ("post", "/tables/new/")):
        response = getattr(client, method)(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert client.get("/balance/").status_code == 302


# ---------------------------------------------------------------- opening a table


@pytest.mark.django_db
def test_open_a_table_with_the_rules_settings(client):
    ann = make_player("ann")
    response = logged_in(client, ann).post(
        "/tables/new/",
        {"name": "Friday", "stake": "50", "seat_count": "6", "turn_seconds": "20"},  # dark play unticked
    )
    table = Table.objects.get(name="Friday")
    assert response.status_code == 302 and response["Location"] == f"/table/{table.pk}/"
    assert (table.stake, table.seat_count, table.dark_play, table.turn_seconds, table.private) == (
        50,
        6,
        False,
        20,
        False,
    )
    assert table.created_by == ann and table.status == Table.Status.OPEN


@pytest.mark.django_db
def test_a_table_without_a_name_is_named_after_its_opener(client):
    ann = make_player("ann")
    logged_in(client, ann).post(
        "/tables/new/", {"stake": "10", "seat_count": "2", "dark_play": "on", "turn_seconds": "30"}
    )
    assert Table.objects.get().name == "ann's table"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("stake", "20", "Choose a stake of 10, 50, 200 or 1,000."),
        ("seat_count", "7", "A table has 2 to 6 seats."),
        ("turn_seconds", "2", "The turn time is at least 5 seconds."),
        ("turn_seconds", "500", "The turn time is at most 120 seconds."),
        ("turn_seconds", "ten", "The turn time is a whole number of seconds."),
    ],
)
def test_bad_table_settings_are_refused_with_a_clear_message(client, field, value, message):
    ann = make_player("ann")
    data = {"stake": "10", "seat_count": "2", "dark_play": "on", "turn_seconds": "30", field: value}
    response = logged_in(client, ann).post("/tables/new/", data)
    assert response.status_code == 400
    text = response.content.decode()
    assert message in text and "Please correct the settings" in text
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_the_form_shows_its_fields(client):
    ann = make_player("ann")
    text = logged_in(client, ann).get("/tables/new/").content.decode()
    for name in ("stake", "seat_count", "dark_play", "turn_seconds", "private"):
        assert f'name="{name}"' in text
    assert 'name="dark_play" id="id_dark_play" checked' in text  # dark play is on by default (§3)


# ---------------------------------------------------------------- private tables and invites


@pytest.mark.django_db(transaction=True)
def test_a_private_table_is_reached_only_through_its_invite_link(client):
    ann, bob = make_player("ann"), make_player("bob")
    response = logged_in(client, ann).post(
        "/tables/new/",
        {
            "name": "Family",
            "stake": "10",
            "seat_count": "3",
            "dark_play": "on",
            "turn_seconds": "30",
            "private": "on",
        },
    )
    table = Table.objects.get(name="Family")
    assert table.private and len(table.invite_code) >= 16
    page = client.get(response["Location"]).content.decode()
    invite = f"/t/{table.invite_code}/"
    assert f"http://testserver{invite}" in page  # the creator sees the link to hand out
    assert "Family" not in client.get("/lobby/").content.decode().split("Your private tables")[0]
    assert invite in client.get("/lobby/").content.decode()  # ...and finds it again in the lobby

    client.force_login(bob)
    assert client.get(f"/table/{table.pk}/").status_code == 404  # the id alone is not enough
    assert client.get("/t/not-a-code/").status_code == 404
    response = client.get(invite)
    assert response.status_code == 302 and response["Location"] == f"/table/{table.pk}/"
    page = client.get(f"/table/{table.pk}/")
    assert page.status_code == 200 and "Family" in page.content.decode()


# ---------------------------------------------------------------- play now


@pytest.mark.django_db(transaction=True)
def test_play_now_seats_the_player_where_someone_waits(client):
    ann, bob = make_player("ann"), make_player("bob")
    empty = make_table(name="Empty", stake=10)
    waiting = make_table(name="Waiting", stake=10)
    make_table(name="Too dear", stake=1000)
    sit(ann, waiting, 0)

    response = logged_in(client, bob).post("/lobby/play-now/")
    assert response.status_code == 302 and response["Location"] == f"/table/{waiting.pk}/"
    seat = Seat.objects.get(user=bob)
    assert seat.table == waiting and seat.position == 1
    assert seat_balance(user=bob, table_id=waiting.pk) == waiting.default_buy_in == 500
    assert wallet_balance(user=bob) == 500
    assert not Seat.objects.filter(table=empty).exists()
    doc = async_to_sync(service.load_table_state)(waiting.pk).doc
    assert doc["seats"][1]["name"] == "bob"  # the table in play knows, not just the database

    # Pressing it again goes back to the same seat; no second buy-in.
    response = client.post("/lobby/play-now/")
    assert response["Location"] == f"/table/{waiting.pk}/"
    assert Seat.objects.filter(user=bob).count() == 1 and wallet_balance(user=bob) == 500


@pytest.mark.django_db(transaction=True)
def test_play_now_opens_a_table_when_none_fits(client):
    ann = make_player("ann")
    full = make_table(name="Full", stake=10, seat_count=2)
    sit(make_player("cat"), full, 0)
    sit(make_player("dan"), full, 1)
    make_table(name="Too dear", stake=200)  # min buy-in 4,000: more than ann has

    response = logged_in(client, ann).post("/lobby/play-now/")
    table = Table.objects.exclude(name__in=["Full", "Too dear"]).get()
    assert response["Location"] == f"/table/{table.pk}/"
    assert (table.stake, table.seat_count, table.dark_play, table.private) == (10, 6, True, False)
    assert Seat.objects.get(user=ann).table == table
    # A 1,000-chip wallet covers the default buy-in of stake 10 (500), not of stake 50 (2,500).
    assert lobby.affordable_stake(balance=1000) == 10
    assert lobby.affordable_stake(balance=2500) == 50
    assert lobby.affordable_stake(balance=1500) == 10  # stake 50's minimum fits, its default does not
    assert lobby.affordable_stake(balance=300) == 10  # only stake 10's minimum (200) fits
    assert lobby.affordable_stake(balance=199) is None


@pytest.mark.django_db(transaction=True)
def test_play_now_buys_in_with_what_the_wallet_holds_when_it_is_short(client):
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(stake=10)
    sit(ann, table, 0)
    staff = make_player("staff")
    staff.is_staff = staff.is_superuser = True  # wallet_adjust needs its permission; a superuser has all
    staff.save()
    wallet_adjust(user=bob, amount=-700, reason="test: a short wallet", staff_user=staff)

    logged_in(client, bob).post("/lobby/play-now/")
    assert seat_balance(user=bob, table_id=table.pk) == 300 and wallet_balance(user=bob) == 0


@pytest.mark.django_db
def test_play_now_without_enough_chips_says_where_to_get_more(client):
    from django.contrib.auth import get_user_model

    poor = get_user_model().objects.create_user(username="poor", password="pw-for-tests-1")  # no bonus
    response = logged_in(client, poor).post("/lobby/play-now/", follow=True)
    text = response.content.decode()
    assert response.redirect_chain[-1][0] == "/lobby/"
    assert "at least 200 chips" in text and "refill" in text
    assert not Table.objects.exists()


# ---------------------------------------------------------------- the live list


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_resends_the_list_when_someone_sits_down():
    ann = await sync_to_async(make_player)("ann")
    small = await sync_to_async(make_table)(name="Small", stake=10)
    await sync_to_async(make_table)(name="Big", stake=200)
    comm = WebsocketCommunicator(
        application,
        "/ws/lobby/?stake=10",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1")],
    )
    connected, _ = await comm.connect()
    assert connected  # no login needed: the list is public
    first = await comm.receive_from(timeout=3)
    assert 'id="lobby-tables"' in first and "Small" in first and "Big" not in first and "0/2" in first

    await service.table_sit(user=ann, table_id=small.pk, position=0, buy_in=500)
    update = await comm.receive_from(timeout=3)
    assert "1/2" in update and "ann" in update
    assert await comm.receive_nothing(timeout=0.4)  # one re-render for one change
    await comm.disconnect()


# ---------------------------------------------------------------- the test-only deck hook


def test_the_deck_hook_exists_under_the_test_settings():
    match = resolve("/test-hooks/tables/1/decks/")
    assert match.url_name == "test_stack_decks"


def test_the_deck_hook_does_not_exist_under_the_production_settings():
    code = (
        "import django; django.setup()\n"
        "from django.urls import resolve, Resolver404\n"
        "try:\n    resolve('/test-hooks/tables/1/decks/')\nexcept Resolver404:\n    print('absent')\n"
        "else:\n    print('PRESENT')\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "svara_site.settings"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "absent", out.stdout + out.stderr
    # The same check under the test settings sees it, so the subprocess check can fail.
    env["DJANGO_SETTINGS_MODULE"] = "svara_site.test_settings"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "PRESENT"
    with pytest.raises(Resolver404):
        resolve("/test-hooks/nothing-here/")


@pytest.mark.django_db(transaction=True)
def test_the_deck_hook_stacks_the_next_hand_and_refuses_when_the_setting_is_off(client, settings):
    table = make_table()
    url = f"/test-hooks/tables/{table.pk}/decks/"
    deck = ["AH", "KH", "QH", "AS", "KS", "QS"]
    response = client.post(url, json.dumps({"decks": [deck]}), content_type="application/json")
    assert response.status_code == 200, response.content
    state = async_to_sync(get_state_store().get)(str(table.pk))
    assert state.doc["stacked_decks"] == [parse_cards(deck)]

    assert client.post(url, "nope", content_type="application/json").status_code == 400
    bad = client.post(url, json.dumps({"decks": [["XX"]]}), content_type="application/json")
    assert bad.status_code == 400 and "not a card" in bad.json()["error"]
    missing = client.post(
        "/test-hooks/tables/999999/decks/", json.dumps({"decks": [deck]}), "application/json"
    )
    assert missing.status_code == 404

    settings.SVARA_TEST_HOOKS = False  # the URL is still routed in this process; the view refuses
    response = client.post(url, json.dumps({"decks": [deck]}), content_type="application/json")
    assert response.status_code == 404
