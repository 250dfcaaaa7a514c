"""Small helpers to set up hands in tests: names, chips and decks written as text."""

from __future__ import annotations

from games.engine.cards import parse_cards
from games.engine.hand import Hand


def deal_deck(*hands: str, rest: str = "") -> list[int]:
    """A deck that deals the given three-card hands, in dealing order (left of the dealer first)."""
    cards = [c.split() for c in hands]
    order = [cards[p][k] for k in range(3) for p in range(len(cards))]
    return parse_cards(order + rest.split())


def new_hand(
    chips: dict[str, int], *, dealer: str, decks: list[list[int]], stake: int = 10, dark_play: bool = True
) -> Hand:
    names = list(chips)
    return Hand.start(
        stake=stake,
        names=names,
        chips=list(chips.values()),
        dealer=names.index(dealer),
        dark_play=dark_play,
        decks=decks,
    )


def play(hand: Hand, *moves: str) -> Hand:
    """Apply moves written as 'ann raise 40', 'bob call', ..."""
    for move in moves:
        name, verb, *amount = move.split()
        hand.act(hand.names.index(name), verb, int(amount[0]) if amount else None)
    return hand


def chips(hand: Hand) -> dict[str, int]:
    return dict(zip(hand.names, hand.chips, strict=True))
