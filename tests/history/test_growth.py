""" "My hands" at any depth: the same queries for the first page and a deep one, whatever the number
of hands, and each page from the player's own rows in their order (start, hand)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import HandPlayer, PlayedHand, Table
from tests.history.test_service import FOLD_AND_SHOWDOWN, T0, make_user, stored_hand

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return {name: make_user(name) for name in ("ann", "bob", "cem")}


def add_hands(
    players, table: Table, numbers: range, *, status=PlayedHand.Status.FINISHED
) -> list[PlayedHand]:
    return [
        stored_hand(
            hand_file=FOLD_AND_SHOWDOWN,
            users=players,
            table=table,
            number=n,
            # Pairs started in the same second: the hand's id orders them.
            started_at=T0 + timedelta(seconds=n // 2),
            status=status,
        )
        for n in numbers
    ]


def get(client: Client, query: dict) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/hands/", query)
    assert response.status_code == 200
    return response.content.decode(), len(captured)


def listed(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'data-hand="(\d+)"', html)]


def older_link(html: str) -> str | None:
    found = re.search(r'rel="next" href="[^"]*older_than=(\d+)"', html)
    return found[1] if found else None


def test_every_page_costs_the_same_queries_and_walking_them_lists_each_hand_once(players):
    table = Table.objects.create(name="Oak", stake=10, seat_count=3)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(players["bob"])
    add_hands(players, table, range(1, 4))
    for _ in range(3):  # the session and the like settle after the first requests
        _, few = get(client, {})
    hands = add_hands(players, table, range(4, 45))
    add_hands(players, table, range(45, 47), status=PlayedHand.Status.IN_PLAY)  # never listed

    seen: list[int] = []
    query: dict = {}
    while True:
        html, count = get(client, query)
        assert count == few + (1 if query else 0)  # a deep page: one more (where it starts)
        seen += listed(html)
        after = older_link(html)
        if after is None:
            break
        query = {"older_than": after}
    ended = sorted(
        PlayedHand.objects.exclude(status=PlayedHand.Status.IN_PLAY), key=lambda h: (h.started_at, h.pk)
    )
    assert seen == [h.pk for h in reversed(ended)]
    assert len(hands) + 3 == len(seen)


def test_the_rows_carry_their_hands_start_and_status(players):
    table = Table.objects.create(name="Oak", stake=10, seat_count=3)
    hand = add_hands(players, table, range(1, 2), status=PlayedHand.Status.CANCELLED)[0]
    rows = HandPlayer.objects.filter(hand=hand)
    assert rows.count() > 0
    assert {(r.started_at, r.hand_status) for r in rows} == {(hand.started_at, "cancelled")}
