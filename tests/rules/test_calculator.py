"""The hand calculator: its odds against an independent brute-force count, htmx and plain GET."""

# Bulgarian page text is checked on purpose: Cyrillic letters that look Latin are expected here.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from itertools import combinations

import pytest

from games.engine.cards import parse_cards
from games.engine.scoring import ALL_HANDS, points_of

# Independent of games.rules.content: points from the rules function (not the lookup table the
# calculator uses), and every deal of the unseen cards enumerated one by one.
POINTS = {hand: points_of(hand) for hand in ALL_HANDS}


def brute_one(hand: tuple[int, ...]) -> tuple[int, int, int]:
    mine = POINTS[tuple(sorted(hand))]
    unseen = [c for c in range(32) if c not in hand]
    win = tie = lose = 0
    for other in combinations(unseen, 3):
        theirs = POINTS[other]
        win += theirs < mine
        tie += theirs == mine
        lose += theirs > mine
    return win, tie, lose


def brute_two(hand: tuple[int, ...]) -> tuple[int, int, int]:
    """Every ordered deal (A, B) of two hands from the unseen cards, halved at the end."""
    mine = POINTS[tuple(sorted(hand))]
    unseen = [c for c in range(32) if c not in hand]
    win = tie = lose = 0
    for a in combinations(unseen, 3):
        if POINTS[a] > mine:
            lose += 2600  # C(26, 3): whatever B is, A already beats the hand
            continue
        rest = [c for c in unseen if c not in a]
        for b in combinations(rest, 3):
            top = max(POINTS[a], POINTS[b])
            if top < mine:
                win += 1
            elif top == mine:
                tie += 1
            else:
                lose += 1
    return win // 2, tie // 2, lose // 2


def shown_odds(html: str) -> dict[str, tuple[int, int, int, int]]:
    rows = re.findall(
        r'data-against="(\w+)" data-win="(\d+)" data-tie="(\d+)" data-lose="(\d+)" data-total="(\d+)"', html
    )
    return {key: tuple(int(n) for n in numbers) for key, *numbers in rows}


def hand_of(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text.split()))


@pytest.mark.django_db
@pytest.mark.parametrize("cards", ["7C 8C 8D", "KH KD QS", "7H 8D 8S", "AH AD AS", "7C 7H AH", "JC 10S 8D"])
def test_odds_against_one_hand_equal_a_brute_force_count(client, cards):
    html = client.get("/rules/calculator/", {"cards": cards}).content.decode()
    win, tie, lose = brute_one(hand_of(cards))
    assert shown_odds(html)["one"] == (win, tie, lose, 3654)


@pytest.mark.django_db
@pytest.mark.parametrize("cards", ["KH KD QS", "10D 9D JD"])
def test_odds_against_two_hands_equal_a_brute_force_count(client, cards):
    html = client.get("/rules/calculator/", {"cards": cards}).content.decode()
    win, tie, lose = brute_two(hand_of(cards))
    assert win + tie + lose == 3654 * 2600 // 2
    assert shown_odds(html)["two"] == (win, tie, lose, win + tie + lose)


@pytest.mark.django_db
def test_the_result_says_the_points_and_which_group_counts(client):
    html = client.get("/rules/calculator/?cards=7C+8C+8D").content.decode()
    assert "27 points" in html and "the wild 7♣ joins the pair" in html and "11 + 8 + 8 = 27" in html
    bg = client.get("/rules/calculator/?cards=7C+8C+8D", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "27 точки" in bg and "чечакът (7♣) се добавя към чифта" in bg


@pytest.mark.django_db
def test_htmx_gets_only_the_fragment_and_a_plain_get_the_whole_page(client):
    fragment = client.get("/rules/calculator/?cards=7C+8C+8D", HTTP_HX_REQUEST="true")
    text = fragment.content.decode()
    assert text.lstrip().startswith('<div class="rc-calc-result">')
    assert "<html" not in text and "<form" not in text and "data-against" in text
    assert "HX-Request" in fragment["Vary"]
    page = client.get("/rules/calculator/?cards=7C+8C+8D").content.decode()
    assert "<html" in page and 'hx-get="/rules/calculator/"' in page and "data-against" in page
    # The typed cards stay in the box and ticked in the grid, and the result links to itself.
    assert 'value="7C 8C 8D"' in page
    assert re.search(r'value="8D" checked', page)
    assert 'href="/rules/calculator/?cards=7C+8C+8D"' in page


@pytest.mark.django_db
def test_picking_cards_in_the_grid_works_like_typing(client):
    picked = client.get("/rules/calculator/", {"card": ["7C", "8C", "8D"]}).content.decode()
    typed = client.get("/rules/calculator/", {"cards": "7C 8C 8D"}).content.decode()
    assert shown_odds(picked) == shown_odds(typed)
    # People may type in lower case (the engine's parser reads capitals only, as RULES.md writes them).
    lower = client.get("/rules/calculator/", {"cards": "7c t♣ 8d"}).content.decode()
    assert shown_odds(lower) == shown_odds(
        client.get("/rules/calculator/", {"cards": "7C 10C 8D"}).content.decode()
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"cards": "7C 8C 1D"}, "“1D” is not a card"),
        ({"cards": "7C 7C 8D"}, "7C is there twice"),
        ({"cards": "7C 8C"}, "A hand is exactly three cards; you gave 2."),
        ({"card": ["7C", "8C", "8D", "9D"]}, "A hand is exactly three cards; you gave 4."),
    ],
)
def test_bad_input_gives_a_clear_message(client, query, message):
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        html = client.get("/rules/calculator/", query, **headers).content.decode()
        assert 'class="rc-error" role="alert"' in html
        assert message.replace("“", "&ldquo;") in html or message in html
        assert "data-against" not in html


@pytest.mark.django_db
def test_bad_input_message_in_bulgarian(client):
    html = client.get("/rules/calculator/?cards=7C+7C+8D", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "7C е написана два пъти" in html


@pytest.mark.django_db
def test_an_empty_calculator_invites_a_pick(client):
    html = client.get("/rules/calculator/").content.decode()
    assert "Pick or type three cards" in html and "rc-error" not in html.split('id="calc-result"')[1]
