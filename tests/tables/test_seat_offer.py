"""Opening a table offers its creator the seat at once: the offer on the table page, its form
seating them, and bad input (a buy-in that is no number or out of range, someone else's table, a
second seat) refused with a message and nothing changed."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Seat
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_creator_is_offered_the_seat_and_one_click_seats_them():
    ann = make_player("ann")
    table = make_table(created_by=ann)
    client = logged_in(ann)
    page = client.get(f"/table/{table.pk}/").content.decode()
    assert 'id="seat-offer"' in page and 'value="500"' in page  # the default buy-in, 50 stakes of 10
    response = client.post(f"/table/{table.pk}/sit/", {"buy_in": "200"})
    assert response.status_code == 302 and response["Location"] == f"/table/{table.pk}/"
    assert Seat.objects.filter(table=table, user=ann, position=0).exists()
    assert 'id="seat-offer"' not in client.get(f"/table/{table.pk}/").content.decode()


@pytest.mark.parametrize(
    ("buy_in", "message"),
    [
        ("abc", "The buy-in is a whole number of chips."),
        ("", "The buy-in is a whole number of chips."),
        ("9" * 40, "The buy-in is a whole number of chips."),
        ("5", "the buy-in is between"),
    ],
)
def test_a_bad_buy_in_is_refused_and_seats_nobody(buy_in, message):
    ann = make_player("ann")
    table = make_table(created_by=ann)
    client = logged_in(ann)
    response = client.post(f"/table/{table.pk}/sit/", {"buy_in": buy_in}, follow=True)
    assert message in response.content.decode()
    assert not Seat.objects.filter(table=table).exists()


def test_only_the_creator_is_offered_the_seat():
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(created_by=ann)
    client = logged_in(bob)
    assert 'id="seat-offer"' not in client.get(f"/table/{table.pk}/").content.decode()
    response = client.post(f"/table/{table.pk}/sit/", {"buy_in": "200"}, follow=True)
    assert "There is no seat to offer you here." in response.content.decode()
    assert not Seat.objects.filter(table=table).exists()
