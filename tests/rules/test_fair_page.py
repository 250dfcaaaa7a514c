"""The fair-deck page: recompute a deck, check it against a hash, and check stored hands."""

# Bulgarian page text is checked on purpose: Cyrillic letters that look Latin are expected here.
# ruff: noqa: RUF001

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from games.engine.cards import card_text
from games.engine.fairness import seed_hash, shuffled_deck
from games.models import PlayedHand, Table

# The worked example of docs/fairness.md.
SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
HASH = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
CLIENT_SEEDS = ["ann-7f3a", "bob"]


def deck_shown(html: str) -> list[str]:
    match = re.search(r'data-deck="([^"]*)"', html)
    assert match, "no deck on the page"
    return match.group(1).split()


def deck_text(**kwargs) -> list[str]:
    return [card_text(c) for c in shuffled_deck(**kwargs)]


@pytest.mark.django_db
@pytest.mark.parametrize("deal", [0, 1, 5])
def test_the_page_shows_the_deck_the_engine_computes(client, deal):
    html = client.get(
        "/fair/",
        {"server_seed": SEED, "client_seeds": "ann-7f3a\r\nbob", "nonce": "41", "deal": str(deal)},
    ).content.decode()
    assert deck_shown(html) == deck_text(server_seed=SEED, client_seeds=CLIENT_SEEDS, nonce=41, deal=deal)
    assert HASH in html  # SHA-256 of the seed is always shown


@pytest.mark.django_db
def test_client_seeds_are_taken_exactly_and_in_order(client):
    html = client.get(
        "/fair/", {"server_seed": SEED, "client_seeds": "bob\nann-7f3a", "nonce": "41"}
    ).content.decode()
    assert deck_shown(html) == deck_text(server_seed=SEED, client_seeds=["bob", "ann-7f3a"], nonce=41)
    html = client.get("/fair/", {"server_seed": SEED, "client_seeds": " ann", "nonce": "0"}).content.decode()
    assert deck_shown(html) == deck_text(server_seed=SEED, client_seeds=[" ann"], nonce=0)
    html = client.get("/fair/", {"server_seed": SEED, "client_seeds": "", "nonce": "3"}).content.decode()
    assert deck_shown(html) == deck_text(server_seed=SEED, client_seeds=[], nonce=3)


@pytest.mark.django_db
def test_a_matching_hash_is_confirmed_and_a_wrong_one_reported(client):
    query = {"server_seed": SEED, "client_seeds": "ann-7f3a\nbob", "nonce": "41"}
    good = client.get("/fair/", {**query, "expected_hash": HASH.upper()}).content.decode()
    assert 'data-hash-check="match"' in good and "mismatch" not in good
    wrong = HASH[:-1] + ("0" if HASH[-1] != "0" else "1")
    bad = client.get("/fair/", {**query, "expected_hash": wrong}).content.decode()
    assert 'data-hash-check="mismatch"' in bad
    assert "does NOT match the hash you pasted" in bad
    bg = client.get("/fair/", {**query, "expected_hash": wrong}, HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "НЕ съвпада" in bg


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"server_seed": "abc", "nonce": "1"}, "exactly 64 hexadecimal digits"),
        ({"server_seed": SEED[:-1] + "g", "nonce": "1"}, "exactly 64 hexadecimal digits"),
        ({"server_seed": SEED, "nonce": "-1"}, "greater than or equal to 0"),
        ({"server_seed": SEED, "nonce": "x"}, "Enter a whole number"),
        ({"server_seed": SEED, "nonce": "1", "client_seeds": "a" * 65}, "at most 64 are allowed"),
        (
            {"server_seed": SEED, "nonce": "1", "expected_hash": "1234"},
            "SHA-256 hash is 64 hexadecimal digits",
        ),
    ],
)
def test_bad_input_is_explained_and_no_deck_is_shown(client, query, message):
    html = client.get("/fair/", query).content.decode()
    assert message in html
    assert "data-deck" not in html


def make_hand(*, status: str, decks: list[list[str]] | None = None, number: int = 3) -> PlayedHand:
    table = Table.objects.create(name="Fair test", stake=10)
    record = {}
    if decks is not None:
        record = {
            "hand_id": f"{table.pk}-{number}",
            "table": table.pk,
            "server_seed_hash": HASH,
            "server_seed": SEED,
            "client_seeds": CLIENT_SEEDS,
            "nonce": number,
            "decks": decks,
        }
    return PlayedHand.objects.create(
        table=table,
        number=number,
        status=status,
        started_at=timezone.now(),
        server_seed_hash=HASH,
        server_seed=SEED,
        client_seeds=CLIENT_SEEDS,
        record=record,
    )


def real_decks(number: int = 3) -> list[list[str]]:
    # A hand and one svara replay, two players: six cards dealt from each deck.
    return [deck_text(server_seed=SEED, client_seeds=CLIENT_SEEDS, nonce=number, deal=k)[:6] for k in (0, 1)]


@pytest.mark.django_db
@pytest.mark.parametrize("by", ["pk", "table-number"])
def test_a_finished_hand_checks_out(client, by):
    hand = make_hand(status=PlayedHand.Status.FINISHED, decks=real_decks())
    ref = str(hand.pk) if by == "pk" else f"{hand.table_id}-{hand.number}"
    html = client.get("/fair/", {"hand": ref}).content.decode()
    assert 'data-hand-check="checked-ok"' in html
    assert "This hand checks out" in html and SEED in html
    assert html.count("✓") == 2  # the deal and the replay
    bg = client.get("/fair/", {"hand": ref}, HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "Тази ръка издържа проверката" in bg


@pytest.mark.django_db
def test_a_tampered_hand_reports_the_problem(client):
    decks = real_decks()
    decks[1][2], decks[1][4] = decks[1][4], decks[1][2]  # two cards of the replay swapped
    hand = make_hand(status=PlayedHand.Status.FINISHED, decks=decks)
    html = client.get("/fair/", {"hand": str(hand.pk)}).content.decode()
    assert 'data-hand-check="checked-problems"' in html
    assert "This hand does NOT check out" in html
    assert "deck 2 (svara replay 1), card 3" in html  # verify_hand's own words
    assert "differs at card 3" in html


@pytest.mark.django_db
def test_a_hand_whose_seed_does_not_fit_its_hash_is_reported(client):
    hand = make_hand(status=PlayedHand.Status.FINISHED, decks=real_decks())
    PlayedHand.objects.filter(pk=hand.pk).update(server_seed_hash="ab" * 32)
    html = client.get("/fair/", {"hand": str(hand.pk)}).content.decode()
    assert 'data-hand-check="checked-problems"' in html
    assert "SHA-256 of the revealed server seed" in html


@pytest.mark.django_db
def test_a_hand_in_play_keeps_its_seed_secret(client):
    hand = make_hand(status=PlayedHand.Status.IN_PLAY, decks=None)
    html = client.get("/fair/", {"hand": f"{hand.table_id}-{hand.number}"}).content.decode()
    assert 'data-hand-check="in_play"' in html
    assert "revealed when its seed series ends" in html
    assert HASH in html and SEED not in html


@pytest.mark.django_db
def test_a_cancelled_hand_without_cards_checks_only_the_seed(client):
    hand = make_hand(status=PlayedHand.Status.CANCELLED, decks=None)
    html = client.get("/fair/", {"hand": str(hand.pk)}).content.decode()
    assert 'data-hand-check="no_record-ok"' in html
    assert seed_hash(SEED) == HASH


@pytest.mark.django_db
@pytest.mark.parametrize("ref", ["999999", "5-5", "seven", "1-2-3"])
def test_an_unknown_hand_is_reported(client, ref):
    html = client.get("/fair/", {"hand": ref}).content.decode()
    assert "There is no stored hand with that number." in html
