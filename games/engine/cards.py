"""Cards of the 32-card Svara deck (RULES.md §1).

A card is a small int ``0..31``: ``suit * 8 + rank``, ranks 7 8 9 10 J Q K A, suits in the
order C D H S. Ints keep the scoring table and the shuffle fast; text is for people and files.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS: tuple[str, ...] = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
SUIT_SYMBOLS: dict[str, str] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAMES: dict[str, str] = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_SYMBOL_TO_LETTER = {symbol: letter for letter, symbol in SUIT_SYMBOLS.items()}
# Face values: 7, 8, 9 count their face; 10 J Q K are 10; A is 11.
RANK_VALUES: tuple[int, ...] = (7, 8, 9, 10, 10, 10, 10, 11)

Card = int
DECK: tuple[Card, ...] = tuple(range(32))
SEVEN, ACE = 0, 7
WILD: Card = 0  # 7 of clubs: suit C (0), rank 7 (0)


class CardError(ValueError):
    """Text that is not a card."""


def rank_of(card: Card) -> int:
    return card % 8


def suit_of(card: Card) -> int:
    return card // 8


def value_of(card: Card) -> int:
    return RANK_VALUES[card % 8]


def card_text(card: Card) -> str:
    """``10H``, ``7C``: rank then suit letter (the output form of RULES.md §1)."""
    return RANKS[card % 8] + SUITS[card // 8]


def card_symbol_text(card: Card) -> str:
    return RANKS[card % 8] + SUIT_SYMBOLS[SUITS[card // 8]]


def parse_card(text: object) -> Card:
    """Read ``10H``, ``TH``, ``10♥`` or ``7♣``; raise CardError otherwise.

    Capitals only, as RULES.md §1 writes them (``7c`` is refused); a page where people type
    cards may upper-case their text first.
    """
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} (cards are text such as 10H or 7C)")
    raw = text.strip()
    if len(raw) < 2:
        raise CardError(f"not a card: {text!r} (cards are a rank 7-10 J Q K A and a suit C D H S)")
    rank_part, suit_part = raw[:-1], raw[-1]
    suit_letter = _SYMBOL_TO_LETTER.get(suit_part, suit_part)
    if rank_part == "T":
        rank_part = "10"
    if rank_part not in RANKS or suit_letter not in SUITS:
        raise CardError(f"not a card: {text!r} (cards are a rank 7-10 J Q K A and a suit C D H S)")
    return SUITS.index(suit_letter) * 8 + RANKS.index(rank_part)


def parse_cards(texts: Iterable[object], *, distinct: bool = True) -> list[Card]:
    cards = [parse_card(t) for t in texts]
    if distinct and len(set(cards)) != len(cards):
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                raise CardError(f"duplicate card: {card_text(card)}")
            seen.add(card)
    return cards
