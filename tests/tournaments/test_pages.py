"""The tournament pages through Django's test client: the sit-and-go lobby, registering and
unregistering with one clear message each, a tournament's page, and the lobby socket's hint."""

# ruff: noqa: RUF001
from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.services import wallet_balance
from games.engine.tournament import FORMATS, SitAndGo
from games.models import Entry, Tournament
from games.tournaments.service import open_tournament, register
from svara_site.asgi import application
from tests.live.tablekit import make_player

HEADS_UP = SitAndGo(seats=2, speed="turbo", buy_in=100)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


@pytest.mark.django_db
def test_the_tournament_lobby_lists_every_format_open_with_its_seats_and_prizes(client):
    page = client.get("/tournaments/")
    assert page.status_code == 200
    html = page.content.decode()
    rows = re.findall(r'data-format="([^"]+)"', html)
    assert rows == [f.key for f in FORMATS]
    assert "0/6" in html and "0/2" in html
    assert "1,950 / 1,050" in html  # 6-max at 500: 65 % and 35 % of 3,000
    assert "Register for" not in html  # a visitor is asked to log in instead
    assert 'href="/lobby/"' in html and 'aria-current="page"' in html


@pytest.mark.django_db
def test_registering_and_unregistering_from_the_page(client):
    ann = make_player("ann")  # 1,000 chips
    client.force_login(ann)
    tournament = open_tournament(sit_and_go=HEADS_UP)
    done = client.post(f"/tournaments/{tournament.pk}/register/", follow=True)
    assert "You are registered" in " ".join(messages_of(done))
    assert wallet_balance(user=ann) == 1000 - 100
    html = done.content.decode()
    assert "Unregister" in html and "1/2" in html
    again = client.post(f"/tournaments/{tournament.pk}/register/", follow=True)
    assert "already registered" in " ".join(messages_of(again))
    back = client.post(f"/tournaments/{tournament.pk}/unregister/", follow=True)
    assert "buy-in is back" in " ".join(messages_of(back)) and wallet_balance(user=ann) == 1000


@pytest.mark.django_db
def test_the_last_seat_takes_the_player_to_the_tournament_page(client):
    ann, bob = make_player("ann"), make_player("bob")
    tournament = open_tournament(sit_and_go=HEADS_UP)
    register(user=ann, tournament_id=tournament.pk)
    client.force_login(bob)
    done = client.post(f"/tournaments/{tournament.pk}/register/")
    assert done.status_code == 302 and done["Location"] == f"/tournaments/{tournament.pk}/"
    page = client.get(done["Location"]).content.decode()
    assert "ann" in page and "bob" in page and "running" in page


@pytest.mark.django_db
def test_bad_requests_change_nothing(client):
    anonymous = client.post("/tournaments/1/register/")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    ann = make_player("ann")
    client.force_login(ann)
    assert client.get("/tournaments/register/").status_code == 404
    assert client.get("/tournaments/999999/").status_code == 404
    assert client.get("/tournaments/x1/").status_code == 404
    missing = client.post("/tournaments/999999/register/", follow=True)
    assert "no such tournament" in " ".join(messages_of(missing))
    assert client.get(f"/tournaments/{open_tournament(sit_and_go=HEADS_UP).pk}/register/").status_code == 405
    assert not Entry.objects.exists() and wallet_balance(user=ann) == 1000


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_tells_the_tournament_tab_when_a_player_registers():
    ann = await sync_to_async(make_player)("ann")
    tournament = await sync_to_async(open_tournament)(sit_and_go=HEADS_UP)
    comm = WebsocketCommunicator(
        application,
        "/ws/lobby/?tab=tournaments",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1")],
    )
    connected, _ = await comm.connect()
    assert connected
    assert await comm.receive_nothing(timeout=0.3)  # the page has its lists: nothing is sent at once

    from django.test import Client

    client = Client()
    await sync_to_async(client.force_login)(ann)
    await sync_to_async(client.post)(f"/tournaments/{tournament.pk}/register/")
    hint = await comm.receive_from(timeout=3)
    assert 'id="tournaments-hint"' in hint and 'hx-get="/tournaments/list/"' in hint
    await comm.disconnect()
    assert await sync_to_async(Tournament.objects.filter(pk=tournament.pk).exists)()


@pytest.mark.django_db
def test_the_tournament_lobby_speaks_bulgarian(client):
    client.cookies["django_language"] = "bg"
    html = client.get("/tournaments/").content.decode()
    assert "Всеки започва с 1 500 турнирни чипа" in html and "65 % и 35 %" in html
    assert "Един срещу един" in html and "До 6 играчи" in html and "Записани" in html


@pytest.mark.django_db
def test_closed_to_players_until_play_is_built(client, settings):
    settings.TOURNAMENTS_OPEN = False
    ann = make_player("ann")
    client.force_login(ann)
    tournament = open_tournament(sit_and_go=HEADS_UP)
    for url in ("/tournaments/", "/tournaments/list/", f"/tournaments/{tournament.pk}/"):
        assert client.get(url).status_code == 404
    assert client.post(f"/tournaments/{tournament.pk}/register/").status_code == 404
    assert not Entry.objects.exists() and wallet_balance(user=ann) == 1000
    assert 'href="/tournaments/"' not in client.get("/lobby/").content.decode()
