"""games/rules/content.py: the numbers the rules pages show, against the engine and brute force."""

# Bulgarian page text is checked on purpose: Cyrillic letters that look Latin are expected here.
# ruff: noqa: RUF001

from __future__ import annotations

from itertools import combinations, pairwise, permutations

import pytest
from django.utils import translation

from games.engine.cards import parse_cards
from games.engine.scoring import ALL_HANDS, distribution, score, score_cards
from games.rules import content as rc
from games.tables.ui.cards import card_face, card_name


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def test_the_group_that_counts_is_worth_the_engines_points_for_every_hand():
    for hand in ALL_HANDS:
        group = rc.best_group(hand)
        assert group.points == score_cards(hand), hand
        if group.terms is not None:
            assert sum(group.terms) == group.points, hand
        assert set(group.cards) <= set(hand)


def test_the_group_does_not_depend_on_card_order():
    for text in rc.WORKED_EXAMPLES:
        cards = parse_cards(text.split())
        kinds = {rc.best_group(list(order)).kind for order in permutations(cards)}
        assert len(kinds) == 1, text


@pytest.mark.parametrize(
    ("cards", "label", "arithmetic"),
    [
        ("7C 8C 8D", "the wild 7♣ joins the pair", "11 + 8 + 8 = 27"),
        ("7C 9S JS", "the wild 7♣ joins the spades", "11 + 9 + 10 = 30"),
        ("7C AH AD", "the wild 7♣ joins the aces", "11 + 11 + 11 = 33"),
        ("8S AD 7C", "the wild 7♣ joins the ace of diamonds", "11 + 11 = 22"),
        ("KH KD QS", "mixed suits: the highest card counts", "10"),
        ("7H 7S KD", "two sevens", "23"),
        ("7C 7H 7D", "three sevens (the 7♣ counts as a seven)", "34"),
        ("QC QH QD", "three of a kind", "10 + 10 + 10 = 30"),
        ("KH 9H QC", "cards of one suit: hearts", "9 + 10 = 19"),
    ],
)
def test_explain_names_the_group_and_its_sum(cards, label, arithmetic):
    explained = rc.example(cards)
    assert explained.points == score(cards.split())
    assert explained.label == label
    assert explained.arithmetic == arithmetic


def test_a_rival_group_is_named_only_when_it_is_news():
    assert rc.example("7C 7H AH").beaten.kind is rc.GroupKind.TWO_SEVENS  # 29 beats 23
    assert rc.example("AH AD 7H").beaten.kind is rc.GroupKind.SUIT  # aces 22 beat hearts 18
    assert rc.example("7C 8C 8D").beaten is None  # "the 7♣ with the 8♣" is part of the pair
    assert rc.example("KH 9H QC").beaten is None  # the single king is no news


def test_card_names_in_both_languages():
    assert card_name(0) == "seven of clubs"
    assert card_face(8 * 2 + 6).red  # KH
    with translation.override("bg"):
        assert card_name(0) == "седмица спатия"
        assert card_name(8 * 2 + 6) == "поп купа"
        assert card_name(8 * 1 + 7) == "асо каро"


def test_parse_hand_reads_text_and_symbols_and_the_grid():
    assert rc.parse_hand(text="7C 8C 8D") == tuple(parse_cards(["7C", "8C", "8D"]))
    assert rc.parse_hand(text=" 7♣, 8♣ ,TD ") == tuple(parse_cards(["7C", "8C", "10D"]))
    assert rc.parse_hand(picked=["AH", "AD", "AS"]) == tuple(parse_cards(["AH", "AD", "AS"]))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Pick three cards"),
        ("7C 8C 1D", "“1D” is not a card"),
        ("7C 7C 8D", "7C is there twice"),
        ("7C 8C", "exactly three cards; you gave 2"),
        ("7C 8C 8D 9D", "exactly three cards; you gave 4"),
    ],
)
def test_parse_hand_refuses_bad_input_with_a_message(text, message):
    with pytest.raises(rc.HandInputError, match=message):
        rc.parse_hand(text=text)


def test_disjoint_pair_formula_against_brute_force_on_small_sets():
    hands = list(combinations(range(9), 3))  # 84 hands over 9 cards
    for subset in (hands, hands[::3], hands[5:40], [hands[0]], []):
        brute = sum(1 for a in subset for b in subset if not set(a) & set(b))
        assert rc._disjoint_ordered_pairs(subset) == brute


def test_odds_cover_every_deal_and_one_opponent_matches_a_plain_count():
    hand = tuple(parse_cards(["7C", "8C", "8D"]))
    one, two = rc.odds_against_one(hand), rc.odds_against_two(hand)
    assert one.total == 3654  # C(29, 3)
    assert two.total == 3654 * 2600 // 2  # C(29, 3) · C(26, 3) / 2
    unseen = [c for c in range(32) if c not in hand]
    below = sum(1 for h in combinations(unseen, 3) if score_cards(h) < 27)
    assert one.win == below
    assert one.win_percent + one.tie_percent + one.lose_percent == pytest.approx(100)


def test_the_top_and_bottom_hands():
    top = rc.odds_against_two(tuple(parse_cards(["7D", "7H", "7S"])))
    assert top.lose == 0 and top.tie == 0  # 34 is the top, and the other sevens are all held
    bottom = rc.odds_against_one(tuple(parse_cards(["7H", "8D", "8S"])))
    assert bottom.win == 0


def test_odds_refuse_a_hand_that_is_not_three_cards():
    with pytest.raises(ValueError):
        rc.odds_against_one((1, 1, 2))


def test_distribution_rows_add_up():
    rows = rc.distribution_rows()
    assert sum(r.hands for r in rows) == rc.TOTAL_HANDS == 4960
    assert {r.points: r.hands for r in rows} == distribution()
    assert rows[0].lower == 0
    assert all(b.lower == a.lower + a.hands for a, b in pairwise(rows))
    assert max(r.bar for r in rows) == 100


def test_betting_example_follows_the_rules():
    example = rc.betting_example(stake=10, dark_count=3, pot=135)
    assert example.dark_bets == (10, 20, 40)
    assert example.target == 80  # twice the last dark bet
    assert example.min_raise == 90  # T + S
    assert example.join_fee == 68  # half of 135, rounded up
    assert rc.betting_example(stake=50, dark_count=0, pot=100).target == 0


def test_client_seed_lines_keep_seeds_exact():
    assert rc.client_seed_lines("ann\r\n bob \r\n\r\ncy\n") == ["ann", " bob ", "", "cy"]
    assert rc.client_seed_lines("") == []


def test_compare_decks_finds_the_first_difference():
    same = rc.compare_decks(stored=[1, 2, 3, 4, 5, 6], computed=list(range(1, 33)), deal=0)
    assert same.matches and same.first_difference is None
    changed = rc.compare_decks(stored=[1, 2, 9, 4, 5, 6], computed=list(range(1, 33)), deal=1)
    assert not changed.matches and changed.first_difference == 3
