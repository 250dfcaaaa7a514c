"""What the rules, FAQ, calculator and fair-deck pages show, computed from the engine.

Pure functions over card ints (no requests, no database). Every number of points a page shows
comes from here, and every one of those comes from ``games.engine.scoring`` or is checked against
it by the tests, so the pages cannot drift from the game the tables play. Text for people is
translated with ``gettext`` at call time (the views call these per request, in the active language).

The calculator's odds (``odds_against_one``, ``odds_against_two``) are exact counts over the
29 cards the player cannot see; see ``_disjoint_ordered_pairs`` for how two opponents are counted
without enumerating the 9.5 million ordered pairs of hands.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import combinations

from django.utils.translation import gettext

from games.engine.bots import Odds as EngineOdds
from games.engine.bots import exact_odds
from games.engine.cards import (
    ACE,
    DECK,
    RANK_VALUES,
    RANKS,
    SEVEN,
    SUITS,
    WILD,
    Card,
    CardError,
    card_text,
    parse_card,
    rank_of,
    suit_of,
    value_of,
)
from games.engine.rules import RULES_V1, Rules
from games.engine.scoring import ALL_HANDS, WILD_VALUE, distribution, score_cards
from games.tables.ui.cards import CardFace, card_name, faces, suit_name

HAND_SIZE = 3
TOTAL_HANDS = len(ALL_HANDS)  # C(32, 3) = 4,960

# ---------------------------------------------------------------- cards as people see them


def card_codes(*, text: str) -> tuple[Card, ...]:
    """Cards from a fixed string in this module ("7C 8C 8D"); for examples, not user input."""
    return tuple(parse_card(part) for part in text.split())


def card_values() -> list[tuple[list[str], int]]:
    """Ranks grouped by value, from the engine's table: [(["7"], 7), ..., (["10", "J", "Q", "K"], 10)]."""
    by_value: dict[int, list[str]] = {}
    for rank, value in zip(RANKS, RANK_VALUES):
        by_value.setdefault(value, []).append(rank)
    return sorted(((ranks, value) for value, ranks in by_value.items()), key=lambda item: item[1])


# ---------------------------------------------------------------- which group counts


class GroupKind(StrEnum):
    THREE_SEVENS = "three_sevens"
    ACES = "aces"
    TWO_SEVENS = "two_sevens"
    TRIPLE = "triple"
    WILD_PAIR = "wild_pair"
    WILD_SUIT = "wild_suit"
    SUIT = "suit"
    WILD_CARD = "wild_card"
    HIGH_CARD = "high_card"


# When two groups hold the same points the page names the one a player would: the more special
# group first (7♣ A♥ A♦ is "the aces", though 7♣ + A♥ alone is 22 too).
_PREFERENCE = list(GroupKind)


@dataclass(frozen=True)
class Group:
    """One way three cards can be counted (a row of RULES.md §2), with its points.

    ``terms`` are the card values that add up to ``points`` ("11 + 8 + 8"); None for the two
    groups with a fixed value (two sevens 23, three sevens 34), which are not sums.
    """

    kind: GroupKind
    points: int
    cards: tuple[Card, ...]
    terms: tuple[int, ...] | None
    suit: int | None = None


def groups_of(cards: tuple[Card, ...] | list[Card]) -> list[Group]:
    """Every group the hand holds, best first. The first one's points are the hand's value."""
    hand = tuple(sorted(cards))
    has_wild = WILD in hand
    naturals = [c for c in hand if c != WILD]
    wild = (WILD,) if has_wild else ()
    found: list[Group] = []

    sevens = [c for c in naturals if rank_of(c) == SEVEN] + list(wild)
    if len(sevens) == 3:
        found.append(Group(GroupKind.THREE_SEVENS, 34, tuple(sevens), None))
    elif len(sevens) == 2:
        found.append(Group(GroupKind.TWO_SEVENS, 23, tuple(sevens), None))

    aces = [c for c in naturals if rank_of(c) == ACE]
    if len(aces) >= 2:
        members = (*aces, *wild)
        found.append(Group(GroupKind.ACES, 11 * len(members), members, (11,) * len(members)))

    by_rank = Counter(rank_of(c) for c in naturals)
    for rank, count in by_rank.items():
        same = tuple(c for c in naturals if rank_of(c) == rank)
        if count == 3:
            found.append(Group(GroupKind.TRIPLE, 3 * RANK_VALUES[rank], same, (RANK_VALUES[rank],) * 3))
        elif count == 2 and has_wild:
            terms = (WILD_VALUE, RANK_VALUES[rank], RANK_VALUES[rank])
            found.append(Group(GroupKind.WILD_PAIR, sum(terms), (WILD, *same), terms))

    for suit in range(len(SUITS)):
        in_suit = tuple(c for c in naturals if suit_of(c) == suit)
        if len(in_suit) < 2:
            continue  # one card of a suit is a single card (below), not a suit group
        if has_wild:
            terms = (WILD_VALUE, *(value_of(c) for c in in_suit))
            found.append(Group(GroupKind.WILD_SUIT, sum(terms), (WILD, *in_suit), terms, suit))
        else:
            terms = tuple(value_of(c) for c in in_suit)
            found.append(Group(GroupKind.SUIT, sum(terms), in_suit, terms, suit))

    # The best single card: highest value, then highest rank (J♦ over 10♥ for the label only).
    best = max(naturals, key=lambda c: (value_of(c), rank_of(c)), default=None)
    if has_wild and best is not None:
        terms = (WILD_VALUE, value_of(best))
        found.append(Group(GroupKind.WILD_CARD, sum(terms), (WILD, best), terms))
    elif best is not None:
        found.append(Group(GroupKind.HIGH_CARD, value_of(best), (best,), (value_of(best),)))

    found.sort(key=lambda g: (-g.points, _PREFERENCE.index(g.kind)))
    return found


def best_group(cards: tuple[Card, ...] | list[Card]) -> Group:
    return groups_of(cards)[0]


def group_label(group: Group) -> str:
    """What counts, in words: "the wild 7♣ joins the pair", "cards of one suit: hearts"."""
    kind = group.kind
    if kind is GroupKind.THREE_SEVENS:
        if WILD in group.cards:
            return gettext("three sevens (the 7♣ counts as a seven)")
        return gettext("three sevens, the top hand")
    if kind is GroupKind.TWO_SEVENS:
        if WILD in group.cards:
            return gettext("two sevens (the 7♣ counts as a seven)")
        return gettext("two sevens")
    if kind is GroupKind.ACES:
        if WILD in group.cards:
            return gettext("the wild 7♣ joins the aces")
        return gettext("three aces") if len(group.cards) == 3 else gettext("two aces")
    if kind is GroupKind.TRIPLE:
        return gettext("three of a kind")
    if kind is GroupKind.WILD_PAIR:
        return gettext("the wild 7♣ joins the pair")
    if kind is GroupKind.WILD_SUIT:
        return gettext("the wild 7♣ joins the %(suit)s") % {"suit": suit_name(group.suit or 0)}
    if kind is GroupKind.SUIT:
        return gettext("cards of one suit: %(suit)s") % {"suit": suit_name(group.suit or 0)}
    if kind is GroupKind.WILD_CARD:
        return gettext("the wild 7♣ joins the %(card)s") % {"card": card_name(group.cards[-1])}
    return gettext("mixed suits: the highest card counts")


def group_sum(group: Group) -> str:
    """The arithmetic, "11 + 8 + 8 = 27"; for the fixed-value groups just the value."""
    if group.terms is None or len(group.terms) == 1:
        return str(group.points)
    return " + ".join(str(t) for t in group.terms) + f" = {group.points}"


@dataclass(frozen=True)
class Explained:
    """A hand with its points, the group that counts and the next-best group it beats."""

    cards: tuple[Card, ...]
    faces: list[CardFace]
    points: int
    group: Group
    label: str
    arithmetic: str
    beaten: Group | None  # the best group of another kind, if any ("two sevens 23")
    beaten_label: str


def explain(cards: tuple[Card, ...] | list[Card]) -> Explained:
    """Points straight from the engine's table; the group is the page's words for them."""
    cards = tuple(cards)
    points = score_cards(cards)
    found = groups_of(cards)
    group = found[0]
    if group.points != points:  # the tests prove this never happens; a page must not lie
        raise AssertionError(f"group {group} disagrees with the engine's {points} for {cards}")
    beaten = next((g for g in found[1:] if g.kind != group.kind and g.points < points), None)
    if beaten is not None and not _worth_naming(beaten=beaten, best=group):
        beaten = None
    return Explained(
        cards=cards,
        faces=faces(cards),
        points=points,
        group=group,
        label=group_label(group),
        arithmetic=group_sum(group),
        beaten=beaten,
        beaten_label=group_label(beaten) if beaten else "",
    )


def _worth_naming(*, beaten: Group, best: Group) -> bool:
    """Name a rival group only when a player might have thought it counts ("two sevens 23" under
    7♣ 7♥ A♥ = 29); "the king counts 10" under a suit, or the 7♣ with one of the very cards that
    make the winning group, is no news. Under three sevens nothing else is worth saying."""
    if beaten.kind is GroupKind.HIGH_CARD or best.kind is GroupKind.THREE_SEVENS:
        return False
    return not (beaten.kind is GroupKind.WILD_CARD and set(beaten.cards) <= set(best.cards))


# Worked examples of RULES.md §2 (cards only: the points and the reason are computed).
WORKED_EXAMPLES: tuple[str, ...] = (
    "JC 10S 8D",
    "7H 9D 9C",
    "7H 8D 8S",
    "8C KH 9D",
    "KH 9H QC",
    "QD KD 10S",
    "10S 8S KH",
    "QC QH 9D",
    "10D 9D JD",
    "10S 10D 10C",
    "QC QH QD",
    "AS AD 10C",
    "AH AD 7H",
    "8S AD 7C",
    "7C 8C 8D",
    "7C 9S JS",
    "7C KH KD",
    "7C QH QD",
    "7C AH KH",
    "7C AH AD",
    "7C 9C 10C",
    "7C 8H 9D",
    "7C 10H JD",
    "7C AC 8D",
    "7H 7S KD",
    "7C 7H 8D",
    "7C 7H AH",
    "7D 7H 7S",
    "7C 7H 7D",
)

# One hand per row of the group table on the rules page, strongest group first.
GROUP_EXAMPLES: tuple[str, ...] = (
    "7D 7H 7S",
    "AS AD AH",
    "7C AH AD",
    "AS AD 10C",
    "7H 7S KD",
    "8S 8D 8H",
    "7C 8C 8D",
    "10D 9D JD",
    "7C 9S JS",
    "JC 10S 8D",
)


def worked_examples() -> list[Explained]:
    return [explain(card_codes(text=text)) for text in WORKED_EXAMPLES]


def group_examples() -> list[Explained]:
    return [explain(card_codes(text=text)) for text in GROUP_EXAMPLES]


def example(text: str) -> Explained:
    """One named hand for the FAQ ("7C 8C 8D")."""
    return explain(card_codes(text=text))


# ---------------------------------------------------------------- the distribution chart


@dataclass(frozen=True)
class DistributionRow:
    points: int
    hands: int
    percent: float  # of all 4,960 hands
    lower: int  # hands worth fewer points
    bar: float  # bar length in percent of the most common value's bar


def distribution_rows() -> list[DistributionRow]:
    counts = distribution()
    most = max(counts.values())
    rows: list[DistributionRow] = []
    lower = 0
    for points, hands in counts.items():
        rows.append(
            DistributionRow(
                points=points,
                hands=hands,
                percent=100 * hands / TOTAL_HANDS,
                lower=lower,
                bar=round(100 * hands / most, 2),
            )
        )
        lower += hands
    return rows


# ---------------------------------------------------------------- reading a typed hand


class HandInputError(ValueError):
    """Input that is not three different cards; the message is for the player (translated)."""


_SEPARATORS = re.compile(r"[\s,;+]+")


def parse_hand(*, text: str = "", picked: list[str] | None = None) -> tuple[Card, ...]:
    """Three cards from typed text ("7C 8C 8D", "7♣ 8♣ 8♦") or from the clicked grid."""
    tokens = [t for t in _SEPARATORS.split(text.strip()) if t] if text.strip() else list(picked or [])
    if not tokens:
        raise HandInputError(gettext("Pick three cards, or type them, for example 7C 8C 8D."))
    cards: list[Card] = []
    for token in tokens:
        try:
            card = parse_card(token.upper())  # people type 7c; files and the engine use capitals
        except CardError:
            raise HandInputError(
                gettext(
                    "“%(token)s” is not a card. A card is a rank (7, 8, 9, 10, J, Q, K, A) "
                    "and a suit (C, D, H, S), for example 10H or 7C."
                )
                % {"token": token[:20]}
            ) from None
        if card in cards:
            raise HandInputError(
                gettext("%(card)s is there twice: a hand is three different cards.")
                % {"card": card_text(card)}
            )
        cards.append(card)
    if len(cards) != HAND_SIZE:
        raise HandInputError(
            gettext("A hand is exactly three cards; you gave %(count)d.") % {"count": len(cards)}
        )
    return tuple(cards)


# ---------------------------------------------------------------- odds against unknown hands


class Odds(EngineOdds):
    """Counts of opponents' deals that the hand beats, ties (a svara) and loses to: the engine's
    counts, with the percentages the calculator shows."""

    __slots__ = ()

    @property
    def win_percent(self) -> float:
        return 100 * self.win / self.total

    @property
    def tie_percent(self) -> float:
        return 100 * self.tie / self.total

    @property
    def lose_percent(self) -> float:
        return 100 * self.lose / self.total


def _unseen_scores(hand: tuple[Card, ...]) -> list[tuple[tuple[Card, Card, Card], int]]:
    unseen = [c for c in DECK if c not in hand]
    return [(other, score_cards(other)) for other in combinations(unseen, HAND_SIZE)]


def _disjoint_ordered_pairs(hands: list[tuple[Card, Card, Card]]) -> int:
    """Ordered pairs (A, B) from ``hands`` with no card in common, without listing the pairs.

    Inclusion-exclusion over the cards of A: the hands B that share a card with A number
    Σ_c n(c) - Σ_{c<d} n(c,d) + n(c,d,e), where n(·) counts the hands holding those cards. Summed
    over every A in the set, Σ_A Σ_{c∈A} n(c) = Σ_c n(c)², likewise for pairs, and n(A) = 1, so

        pairs = |S|² - Σ_c n(c)² + Σ_{c<d} n(c,d)² - |S|.

    One pass over the set (at most 3,654 hands) instead of 3,654 x 2,600 pair checks.
    """
    by_card: Counter[Card] = Counter()
    by_pair: Counter[tuple[Card, Card]] = Counter()
    for a, b, c in hands:
        by_card.update((a, b, c))
        by_pair.update(((a, b), (a, c), (b, c)))
    size = len(hands)
    return size * size - sum(n * n for n in by_card.values()) + sum(n * n for n in by_pair.values()) - size


def _canonical(cards: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    hand = tuple(sorted(cards))
    if len(hand) != HAND_SIZE or len(set(hand)) != HAND_SIZE or not all(c in DECK for c in hand):
        raise ValueError("a hand is exactly three different cards")
    return hand


def odds_against_one(cards: tuple[Card, ...] | list[Card]) -> Odds:
    """Over the C(29, 3) = 3,654 hands one opponent can hold from the unseen cards."""
    return _odds_one(_canonical(cards))


def odds_against_two(cards: tuple[Card, ...] | list[Card]) -> Odds:
    """Over the C(29, 3) · C(26, 3) / 2 = 4,750,200 ways to deal two opponents from the unseen cards.

    Beating both: both opponents' hands are below; a tie (svara): the better of the two equals
    this hand; losing: at least one is higher. Counted exactly by ``_disjoint_ordered_pairs``
    on the sets "below" and "not above"; about 10 ms per hand, cached per hand (4,960 at most).
    """
    return _odds_two(_canonical(cards))


@lru_cache(maxsize=TOTAL_HANDS)
def _odds_one(hand: tuple[Card, ...]) -> Odds:
    # One source for the exact odds against one hand: the engine's, which the computer plays by.
    exact = exact_odds(hand)
    return Odds(win=exact.win, tie=exact.tie, lose=exact.lose)


@lru_cache(maxsize=TOTAL_HANDS)
def _odds_two(hand: tuple[Card, ...]) -> Odds:
    mine = score_cards(hand)
    scored = _unseen_scores(hand)
    everything = _disjoint_ordered_pairs([h for h, _ in scored])
    both_below = _disjoint_ordered_pairs([h for h, s in scored if s < mine])
    none_above = _disjoint_ordered_pairs([h for h, s in scored if s <= mine])
    # Each unordered deal {A, B} was counted twice, as (A, B) and (B, A): A and B are disjoint,
    # so never equal.
    return Odds(
        win=both_below // 2,
        tie=(none_above - both_below) // 2,
        lose=(everything - none_above) // 2,
    )


# ---------------------------------------------------------------- the betting examples


@dataclass(frozen=True)
class BettingExample:
    """The numbers of the rules page's betting walk-through (RULES.md §4), for one stake."""

    stake: int
    dark_bets: tuple[int, ...]  # the doubling chain: S, 2S, 4S, ...
    target: int  # the stake to match after it: twice the last dark bet
    min_raise: int  # T + S
    pot: int  # a pot at a tie, for the join fee
    join_fee: int  # half the pot, rounded up


def join_fee(*, pot: int, rules: Rules = RULES_V1) -> int:
    """Half the pot, rounded up (RULES.md §4 step 6): the rules' own, as the hand computes it."""
    return rules.join_fee(pot=pot)


def betting_example(*, stake: int, dark_count: int, pot: int, rules: Rules = RULES_V1) -> BettingExample:
    """The walk-through's numbers, from the same Rules value the hands are played by."""
    dark = rules.dark_chain(stake=stake, links=dark_count)
    target = rules.target_after_dark * dark[-1] if dark else 0
    return BettingExample(
        stake=stake,
        dark_bets=dark,
        target=target,
        min_raise=target + rules.raise_step * stake,
        pot=pot,
        join_fee=join_fee(pot=pot, rules=rules),
    )


# ---------------------------------------------------------------- the fair-deck page


@dataclass(frozen=True)
class DeckComparison:
    """One deal of a stored hand: the dealt cards beside the recomputed deck."""

    deal: int
    stored: list[CardFace]
    computed: list[CardFace]
    first_difference: int | None  # 1-based position, None when the stored cards are a prefix

    @property
    def matches(self) -> bool:
        return self.first_difference is None and len(self.stored) <= len(self.computed)


def compare_decks(*, stored: list[Card], computed: list[Card], deal: int) -> DeckComparison:
    difference = next((i + 1 for i, (a, b) in enumerate(zip(stored, computed)) if a != b), None)
    return DeckComparison(
        deal=deal,
        stored=faces(stored),
        computed=faces(computed[: max(len(stored), 1)]),
        first_difference=difference,
    )


_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def is_hex64(text: str) -> bool:
    return bool(_HEX64.fullmatch(text))


def client_seed_lines(text: str) -> list[str]:
    """One client seed per line, exactly as typed: a seed is its bytes (docs/fairness.md), so
    nothing is trimmed; only the line endings (\\r\\n from browsers) and one final newline go.

    Lines end only at a newline (``str.splitlines`` would also cut a seed at U+2028 or U+0085), and
    a final newline ends the last seed rather than starting one: "\\n\\n" is two empty seeds,
    as ``client_seed_text`` writes them.
    """
    text = text.replace("\r\n", "\n")
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def client_seed_text(seeds: list[str]) -> str:
    """The text ``client_seed_lines`` reads back as ``seeds``: each seed and its newline."""
    return "".join(f"{seed}\n" for seed in seeds)
