"""Client seeds go from a stored hand to the fair page's recompute link and back exactly (empty,
repeated and Unicode seeds included), and the table's "How to check the deck" opens the hand."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from games.engine.cards import card_text
from games.engine.fairness import shuffled_deck
from games.live import transitions as t
from games.live.document import hand_of, new_table_doc, seat_entry
from games.live.views import build_view
from games.models import PlayedHand, Table
from games.rules import content as rc
from games.tables.ui.regions import render_regions
from tests.rules.test_fair_page import HASH, SEED, deck_shown

SEED_LISTS = [
    [],
    [""],
    ["", ""],
    ["", "", "", "", "", ""],
    ["ann", ""],
    ["", "ann"],
    ["bob", "bob"],
    ["иван", "ℵ\u2028x", "é", "e\u0301", "🂡", " spaced "],
    ["a\rb", "tab\there"],
    ["line\nbreak", "x"],
]


def stored(client_seeds: list[str], *, number: int = 5) -> PlayedHand:
    table = Table.objects.create(name="Seeds", stake=10)
    decks = [
        [card_text(c) for c in shuffled_deck(server_seed=SEED, client_seeds=client_seeds, nonce=number)][:6]
    ]
    record = {
        "hand_id": f"{table.pk}-{number}",
        "server_seed_hash": HASH,
        "server_seed": SEED,
        "client_seeds": client_seeds,
        "nonce": number,
        "decks": decks,
    }
    return PlayedHand.objects.create(
        table=table,
        number=number,
        status=PlayedHand.Status.FINISHED,
        started_at=timezone.now(),
        server_seed_hash=HASH,
        server_seed=SEED,
        client_seeds=client_seeds,
        record=record,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("client_seeds", SEED_LISTS)
def test_the_recompute_link_gives_the_hands_own_deck(client, client_seeds):
    hand = stored(client_seeds)
    page = client.get("/fair/", {"hand": f"{hand.table_id}-{hand.number}"}).content.decode()
    assert 'data-hand-check="checked-ok"' in page
    link = unescape(re.search(r'<a href="(/fair/\?[^"#]*)#recompute"', page).group(1))
    deck_page = client.get(link).content.decode()
    expected = [
        card_text(c) for c in shuffled_deck(server_seed=SEED, client_seeds=client_seeds, nonce=hand.number)
    ]
    assert deck_shown(deck_page) == expected
    assert 'data-hash-check="match"' in deck_page
    # The box shows the seeds one per line; sent again as typed, it gives the same deck (for
    # seeds a line can hold: no line break inside one).
    box = unescape(
        re.search(r'<textarea name="client_seeds"[^>]*>\n?(.*?)</textarea>', deck_page, re.S).group(1)
    )
    if not any("\n" in s or "\r" in s for s in client_seeds):
        assert rc.client_seed_lines(box) == client_seeds
        again = client.get("/fair/", {"server_seed": SEED, "client_seeds": box, "nonce": hand.number})
        assert deck_shown(again.content.decode()) == expected


line_seeds = st.lists(
    st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]))
)


@given(seeds=line_seeds)
def test_seed_lines_round_trip(seeds):
    assert rc.client_seed_lines(rc.client_seed_text(seeds)) == seeds
    # As a browser sends a textarea: every line break as CR LF.
    assert rc.client_seed_lines(rc.client_seed_text(seeds).replace("\n", "\r\n")) == seeds


def test_typed_seed_lines():
    assert rc.client_seed_lines("") == []
    assert rc.client_seed_lines("\n") == [""]
    assert rc.client_seed_lines("\r\n\r\n") == ["", ""]
    assert rc.client_seed_lines("ann\nbob") == rc.client_seed_lines("ann\nbob\n") == ["ann", "bob"]
    assert rc.client_seed_lines("x\u2028y\x85z") == ["x\u2028y\x85z"]  # only a newline ends a seed


def test_the_tables_check_link_opens_the_hand_itself():
    doc = new_table_doc(
        table={"id": 42, "name": "t", "stake": 10, "seat_count": 2, "dark_play": False, "turn_seconds": 30}
        | {"status": "open", "private": False, "kind": "cash"},
        seats=[
            seat_entry(user_id=1, name="ann", chips=500),
            seat_entry(user_id=2, name="bob", chips=500),
        ],
    )
    doc = t.start_hand(doc, number=7, now=1.0, started_at="2026-01-01T00:00:00+00:00", server_seed=SEED)
    while doc["hand"]:
        legal = hand_of(doc).legal()
        user = doc["hand"]["players"][legal.seat]
        doc = t.apply_move(doc, user_id=user, verb="fold", amount=None, now=2.0, action_id="f")
    html = str(render_regions(view=build_view(doc, user_id=1, version=9)))
    assert 'href="/fair/?hand=42-7#stored"' in html
    assert "How to check the deck" in html
