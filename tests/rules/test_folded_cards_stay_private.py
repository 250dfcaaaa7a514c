"""A table that plays on: no frame or page anyone else can reach shows a folded hand's cards, the
seed or a deck, until the seed series ends; then the fair page checks every hand of the series.

Hands are dealt from the real series seed (no stacked decks) and end by folds, so no card of any
hand is ever shown: every hand dealt is a card that must stay with its player. The viewers are the
three players, a spectator and a logged-out visitor; a frame is what the table's socket sends a
viewer (its regions, rendered from the viewer's view after every move).
"""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from games.engine.cards import card_text
from games.engine.verify import check_series
from games.live import service
from games.live.document import hand_of
from games.live.views import build_view
from games.models import PlayedHand, SeedSeries
from games.tables.ui.regions import render_regions
from tests.live.framecheck import label, labels_in
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = 3


def state(table):
    return async_to_sync(service.load_table_state)(table.pk)


def leaks(text: str, *, cards: list[str], seed: str) -> list[str]:
    """What of a hidden hand (or the seed) the text gives away: card faces, card codes as a file or
    a data attribute would hold them, the seed."""
    found = sorted(labels_in(text) & {label(c) for c in cards})
    found += [c for c in cards if re.search(rf'["\s]{re.escape(c)}["\s]', text)]
    if seed in text:
        found.append("the server seed")
    return found


def frames(doc, viewers) -> dict[str, str]:
    """Each viewer's frame of the table as it is now (None: a spectator who is not logged in)."""
    return {
        name: str(render_regions(view=build_view(doc, user_id=user.pk if user else None, version=1)))
        for name, user in viewers.items()
    }


def play_a_hand_by_folds(
    table, users, viewers, seen: dict[str, list[str]]
) -> tuple[int, dict[str, list[str]]]:
    """Deal a hand; everyone to act folds until one is left. Every frame of every viewer is kept."""
    dealt = async_to_sync(service.start_next_hand)(table_id=table.pk)
    number = dealt.doc["hand"]["number"]
    positions = dealt.doc["hand"]["positions"]
    by_user = {u.pk: u for u in users}
    while True:
        current = state(table)
        for name, frame in frames(current.doc, viewers).items():
            seen.setdefault(name, []).append(frame)
        hand = hand_of(current.doc)
        if hand is None or current.doc["hand"]["number"] != number:
            break
        user = by_user[current.doc["hand"]["players"][hand.to_act]]
        verb = "decline" if "decline" in hand.legal().verbs else "fold"
        async_to_sync(service.table_act)(
            user=user,
            table_id=table.pk,
            verb=verb,
            amount=None,
            client_version=current.version,
            action_id=f"{user.pk}-{current.version}",
        )
    cards = hand_cards(dealt.doc, positions)
    return number, cards


def hand_cards(doc, positions) -> dict[str, list[str]]:
    hand = hand_of(doc)
    assert hand is not None
    return {doc["seats"][p]["name"]: [card_text(c) for c in hand.cards[i]] for i, p in enumerate(positions)}


def _hand_of_page(what: str) -> int | None:
    found = re.match(r"replay of hand (\d+)", what)
    return int(found.group(1)) if found else None


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_a_table_that_plays_on_shows_nobody_a_folded_hand_then_its_series_checks_out():
    users = [make_player(n) for n in ("ann", "bob", "cat")]
    spectator = make_player("dan")
    table = make_table(seat_count=3, dark_play=False)
    for position, user in enumerate(users):
        async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=500)
    viewers = {u.username: u for u in [*users, spectator]} | {"visitor": None}
    clients = {name: client_for(user) for name, user in viewers.items()}
    hands: dict[int, dict[str, list[str]]] = {}
    frames_of: dict[int, dict[str, list[str]]] = {}
    for _ in range(HANDS):
        seen = {}
        number, cards = play_a_hand_by_folds(table, users, viewers, seen)
        hands[number], frames_of[number] = cards, seen
    record_rows = {h.number: h for h in PlayedHand.objects.filter(table=table)}
    series = SeedSeries.objects.get(table=table)
    assert not series.revealed and {h.series_id for h in record_rows.values()} == {series.pk}
    seed = series.server_seed

    # Every page each viewer can reach about these hands, while the table plays on.
    for name, client in clients.items():
        pages = {"table page": client.get(f"/table/{table.pk}/")}
        pages["series page"] = client.get("/fair/", {"table": table.pk, "series": series.number})
        pages["series list"] = client.get("/fair/", {"table": table.pk})
        pages["series file"] = client.get(f"/fair/series/{table.pk}-{series.number}.json")
        for number, row in record_rows.items():
            pages[f"fair page of hand {number}"] = client.get("/fair/", {"hand": f"{table.pk}-{number}"})
            replay = client.get(f"/hands/{row.pk}/")
            pages[f"replay of hand {number}"] = replay
            for step in range(8):
                pages[f"replay of hand {number}, step {step}"] = client.get(
                    f"/hands/{row.pk}/", {"step": step}
                )
            pages[f"file of hand {number}"] = client.get(f"/hands/{row.pk}/hand.json")
        for what, response in pages.items():
            assert response.status_code < 500, (name, what)
            text = response.content.decode()
            # A player sees their own cards: in a hand's replay, and at the table's last result. A
            # card of theirs there may be another's in another hand (each hand has its own deck).
            about = max(hands) if what == "table page" else _hand_of_page(what)
            own = set(hands[about].get(name, [])) if about else set()
            for number, cards in hands.items():
                for owner, hidden in cards.items():
                    if owner == name and number == about:
                        continue
                    others = [c for c in hidden if c not in own]
                    assert not leaks(text, cards=others, seed=seed), (name, what, owner, number)
        sealed = clients[name].get("/fair/", {"hand": f"{table.pk}-1"}).content.decode()
        assert 'data-hand-check="sealed"' in sealed and series.server_seed_hash in sealed
        assert pages["series file"].status_code == 403
        assert "still running" in pages["series file"].content.decode()
    # Every frame of a hand, for every viewer, against every other player's cards of that hand.
    for number, seen in frames_of.items():
        for name, kept in seen.items():
            assert len(kept) >= 2
            for frame in kept:
                for owner, hidden in hands[number].items():
                    if owner != name:
                        assert not leaks(frame, cards=hidden, seed=seed), (name, owner, number)
    # Files are refused with a reason, not served.
    ann_file = clients["ann"].get(f"/hands/{record_rows[1].pk}/hand.json")
    assert ann_file.status_code == 403 and "seed series ends" in ann_file.content.decode()

    # Everyone leaves: the series ends, its seed is revealed, and every hand of it checks out.
    for user in users:
        async_to_sync(service.table_leave)(user=user, table_id=table.pk)
    series.refresh_from_db()
    assert series.revealed and series.end_reason == SeedSeries.EndReason.LEFT
    page = clients["visitor"].get("/fair/", {"table": table.pk, "series": series.number}).content.decode()
    assert 'data-series-check="checked-ok"' in page and seed in page
    assert page.count('data-ok="yes"') == HANDS and 'data-ok="no"' not in page
    for number in hands:
        one = clients["visitor"].get("/fair/", {"hand": f"{table.pk}-{number}"}).content.decode()
        assert 'data-hand-check="checked-ok"' in one
    download = clients["visitor"].get(f"/fair/series/{table.pk}-{series.number}.json")
    assert download.status_code == 200
    data = json.loads(download.content)
    assert check_series(data) == [] and [h["nonce"] for h in data["hands"]] == sorted(hands)
    assert clients["ann"].get(f"/hands/{record_rows[1].pk}/hand.json").status_code == 200
