"""Hand value in points (RULES.md §2).

``points_of`` applies the rules directly; ``score`` looks the answer up in a table of all
4,960 three-card hands built once from ``points_of`` at import (a few milliseconds), keyed by
the hand's 32-bit card mask, so scoring during play is one dict lookup.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from games.engine.cards import ACE, DECK, SEVEN, WILD, Card, parse_cards, rank_of, suit_of, value_of

WILD_VALUE = 11


def points_of(cards: tuple[Card, Card, Card] | list[Card]) -> int:
    """The largest value the three cards hold, by the groups of RULES.md §2."""
    has_wild = WILD in cards
    naturals = [c for c in cards if c != WILD]
    ranks = [rank_of(c) for c in naturals]
    candidates: list[int] = []

    sevens = ranks.count(SEVEN) + has_wild
    if sevens == 3:
        candidates.append(34)
    elif sevens == 2:
        candidates.append(23)

    aces = ranks.count(ACE)
    if aces >= 2:
        candidates.append(11 * (aces + has_wild))

    if len(naturals) == 3 and ranks[0] == ranks[1] == ranks[2]:
        candidates.append(3 * value_of(naturals[0]))
    if has_wild and len(naturals) == 2 and ranks[0] == ranks[1]:
        candidates.append(WILD_VALUE + 2 * value_of(naturals[0]))

    # Cards of one suit add up; the wild adds 11 to any one suit.
    by_suit: dict[int, int] = {}
    for card in naturals:
        by_suit[suit_of(card)] = by_suit.get(suit_of(card), 0) + value_of(card)
    best_suit = max(by_suit.values(), default=0)
    candidates.append(best_suit + (WILD_VALUE if has_wild else 0))
    # A single card (suit sums above already include every single card).
    candidates.append(max(value_of(c) for c in naturals) if naturals else 0)
    if has_wild:
        candidates.append(WILD_VALUE)
    return max(candidates)


def _mask(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


ALL_HANDS: tuple[tuple[Card, Card, Card], ...] = tuple(combinations(DECK, 3))
_TABLE: dict[int, int] = {_mask(hand): points_of(hand) for hand in ALL_HANDS}


def score_cards(cards: Iterable[Card]) -> int:
    """Points of three distinct card ints, by table lookup (on the path of every showdown)."""
    try:
        a, b, c = cards
        return _TABLE[(1 << a) | (1 << b) | (1 << c)]
    except (KeyError, ValueError, TypeError):
        raise ValueError("a hand is exactly three different cards") from None


def score(cards: Iterable[object]) -> int:
    """Points of a hand given as text: ``score(["7C", "8C", "8D"]) == 27``."""
    parsed = parse_cards(cards)
    if len(parsed) != 3:
        raise ValueError(f"a hand is exactly three cards, got {len(parsed)}")
    return _TABLE[_mask(parsed)]


def distribution() -> dict[int, int]:
    """How many of the 4,960 hands have each value."""
    counts: dict[int, int] = {}
    for value in _TABLE.values():
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))
