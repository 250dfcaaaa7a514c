"""Faces: a player picks one of the room's faces on the profile (a bad choice is refused and
changes nothing), and it shows at the seat, on the player page and in the lobby."""

from __future__ import annotations

from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.faces import FACES
from games.live import service
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_every_face_is_a_file_the_site_ships():
    folder = Path(settings.BASE_DIR) / "static" / "faces"
    assert len(FACES) == 12
    for face in FACES:
        text = (folder / f"{face}.svg").read_text()
        assert text.startswith("<svg") and "<script" not in text


def test_a_face_is_chosen_on_the_profile_and_a_bad_one_changes_nothing():
    ann = make_player("ann")
    client = logged_in(ann)
    assert client.post(reverse("set_face"), {"face": "owl"}).status_code == 302
    ann.refresh_from_db()
    assert ann.face == "owl"
    for bad in ("../../etc/passwd", "dragon", "OWL"):
        response = client.post(reverse("set_face"), {"face": bad}, follow=True)
        assert "Choose one of the faces shown." in response.content.decode()
        ann.refresh_from_db()
        assert ann.face == "owl"
    # No field at all is no choice either.
    client.post(reverse("set_face"), {})
    ann.refresh_from_db()
    assert ann.face == "owl"
    html = client.get(reverse("profile")).content.decode()
    assert 'value="owl" checked' in html and html.count('name="face"') == len(FACES) + 1
    client.post(reverse("set_face"), {"face": ""})
    ann.refresh_from_db()
    assert ann.face == ""


def test_the_face_shows_at_the_seat_on_the_player_page_and_in_the_lobby():
    ann, bob = make_player("ann"), make_player("bob")
    logged_in(ann).post(reverse("set_face"), {"face": "fox"})
    ann.refresh_from_db()
    table = make_table()
    async_to_sync(service.table_sit)(user=ann, table_id=table.pk, position=0, buy_in=500)
    async_to_sync(service.table_sit)(user=bob, table_id=table.pk, position=1, buy_in=500)
    viewer = logged_in(bob)
    seats = viewer.get(f"/table/{table.pk}/").content.decode()
    seats = seats[seats.index('id="table-seats"') :]
    assert seats.count("faces/fox") == 1
    # bob chose none: his seat shows his first letter.
    assert '<span class="face letter" aria-hidden="true">B</span>' in seats
    assert "faces/fox" in viewer.get(reverse("player_page", args=["ann"])).content.decode()
    lobby = viewer.get(reverse("lobby")).content.decode()
    assert "faces/fox" in lobby
