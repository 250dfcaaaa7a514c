"""Scoring against RULES.md §2: every worked example, the whole distribution, and an
independent scorer written separately from the engine's, compared on all 4,960 hands."""

from itertools import combinations

import pytest

from games.engine import score
from games.engine.cards import DECK, card_text
from games.engine.scoring import ALL_HANDS, distribution, points_of, score_cards

# RULES.md §2 "Worked examples", row by row.
EXAMPLES = [
    ("J♣ 10♠ 8♦", 10),
    ("7♥ 9♦ 9♣", 9),
    ("7♥ 8♦ 8♠", 8),
    ("8♣ K♥ 9♦", 10),
    ("K♥ 9♥ Q♣", 19),
    ("Q♦ K♦ 10♠", 20),
    ("10♠ 8♠ K♥", 18),
    ("Q♣ Q♥ 9♦", 10),
    ("10♦ 9♦ J♦", 29),
    ("10♠ 10♦ 10♣", 30),
    ("Q♣ Q♥ Q♦", 30),
    ("A♠ A♦ 10♣", 22),
    ("A♥ A♦ 7♥", 22),
    ("8♠ A♦ 7♣", 22),
    ("7♣ 8♣ 8♦", 27),
    ("7♣ 9♠ J♠", 30),
    ("7♣ K♥ K♦", 31),
    ("7♣ Q♥ Q♦", 31),
    ("7♣ A♥ K♥", 32),
    ("7♣ A♥ A♦", 33),
    ("7♣ 9♣ 10♣", 30),
    ("7♣ 8♥ 9♦", 20),
    ("7♣ 10♥ J♦", 21),
    ("7♣ A♣ 8♦", 22),
    ("7♥ 7♠ K♦", 23),
    ("7♣ 7♥ 8♦", 23),
    ("7♣ 7♥ A♥", 29),
    ("7♦ 7♥ 7♠", 34),
    ("7♣ 7♥ 7♦", 34),
    # Other examples in the text of §2.
    ("K♥ K♦ Q♠", 10),
    ("8♣ 8♦ 8♥", 24),
    ("A♣ A♦ A♥", 33),
]

DISTRIBUTION = (
    "8:9, 9:51, 10:1104, 11:540, 15:63, 16:63, 17:345, 18:426, 19:453, 20:651, 21:492, 22:234, "
    "23:147, 24:7, 25:12, 26:18, 27:50, 28:56, 29:65, 30:68, 31:76, 32:16, 33:10, 34:4"
)


@pytest.mark.parametrize(("cards", "points"), EXAMPLES)
def test_worked_examples(cards, points):
    assert score(cards.split()) == points


def test_the_issue_example():
    assert score(["7C", "8C", "8D"]) == 27


def test_order_and_notation_do_not_matter():
    assert score(["8D", "7♣", "8C"]) == score(["7C", "8C", "8D"]) == 27


def test_distribution_of_all_4960_hands():
    expected = {int(v): int(n) for v, n in (pair.split(":") for pair in DISTRIBUTION.split(", "))}
    assert sum(expected.values()) == 4960
    assert distribution() == expected
    assert min(distribution()) == 8  # RULES.md §2: 8 is the true minimum, not 9


def _independent_points(texts: list[str]) -> int:
    """A second scorer, written from RULES.md without looking at the engine's."""
    value = {"7": 7, "8": 8, "9": 9, "10": 10, "J": 10, "Q": 10, "K": 10, "A": 11}
    wild = "7C" in texts
    natural = [t for t in texts if t != "7C"]
    ranks = [t[:-1] for t in natural]
    best = max([value[r] for r in ranks] + ([11] if wild else []))
    for suit in "CDHS":
        total = sum(value[t[:-1]] for t in natural if t[-1] == suit) + (11 if wild else 0)
        best = max(best, total)
    sevens = ranks.count("7") + (1 if wild else 0)
    if sevens == 3:
        best = max(best, 34)
    if sevens == 2:
        best = max(best, 23)
    aces = ranks.count("A")
    if aces >= 2:
        best = max(best, 11 * (aces + (1 if wild else 0)))
    if len(natural) == 3 and len(set(ranks)) == 1:
        best = max(best, 3 * value[ranks[0]])
    if wild and len(natural) == 2 and ranks[0] == ranks[1]:
        best = max(best, 11 + 2 * value[ranks[0]])
    return best


def test_engine_agrees_with_an_independent_scorer_on_every_hand():
    for hand in combinations(DECK, 3):
        texts = [card_text(c) for c in hand]
        assert score_cards(hand) == _independent_points(texts), texts


def test_table_lookup_equals_direct_rules():
    assert len(ALL_HANDS) == 4960
    for hand in ALL_HANDS:
        assert score_cards(reversed(hand)) == points_of(hand)


@pytest.mark.parametrize(
    "bad", [["7C", "8C"], ["7C", "8C", "8D", "9D"], ["7C", "7C", "8D"], ["7C", "8C", "1D"]]
)
def test_not_a_hand_is_refused(bad):
    with pytest.raises(ValueError):
        score(bad)
