"""One card as every page draws it: its face (``CardFace``, in the viewer's language) and its one
template (templates/jinja2/cards/_card.html), for the table's regions, the hand history and the
rules pages alike. Django's pages draw it with ``{% load cards %}{% card face %}`` (card_tags.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import translation
from django.utils.translation import gettext, pgettext
from markupsafe import Markup

from games.engine.cards import RANKS, SUIT_SYMBOLS, SUITS, WILD, Card, card_text, rank_of, suit_of
from games.tables.ui.jinja2 import current_words, fixed_template

CARD_TEMPLATE = "cards/_card.html"
_RED_SUITS = frozenset({"D", "H"})


def rank_name(rank: int) -> str:
    # Bulgarian players name cards by rank then suit: "седмица спатия", "поп купа".
    names = (
        pgettext("card rank", "seven"),
        pgettext("card rank", "eight"),
        pgettext("card rank", "nine"),
        pgettext("card rank", "ten"),
        pgettext("card rank", "jack"),
        pgettext("card rank", "queen"),
        pgettext("card rank", "king"),
        pgettext("card rank", "ace"),
    )
    return names[rank]


def suit_name(suit: int) -> str:
    names = (
        pgettext("card suit", "clubs"),
        pgettext("card suit", "diamonds"),
        pgettext("card suit", "hearts"),
        pgettext("card suit", "spades"),
    )
    return names[suit]


def card_name(card: Card) -> str:
    """What a screen reader says for a card: "seven of clubs", "седмица спатия"."""
    return gettext("%(rank)s of %(suit)s") % {
        "rank": rank_name(rank_of(card)),
        "suit": suit_name(suit_of(card)),
    }


@dataclass(frozen=True, slots=True)
class CardFace:
    """A card ready for the card template, in one language."""

    card: Card
    code: str  # "7C", the text notation a player can type
    rank: str  # "7", "10", "Q"
    symbol: str  # "♣"
    red: bool
    wild: bool
    name: str  # translated, for screen readers


# (language, card) -> its face: a card's words never change, and naming one asks the catalogue a
# dozen times. Faces are frozen, so sharing them is safe.
_FACES: dict[tuple[str, Card], CardFace] = {}


def card_face(card: Card, *, language: str | None = None) -> CardFace:
    """The card's face in ``language`` (default the active one)."""
    key = (language or translation.get_language() or "", card)
    face = _FACES.get(key)
    if face is None:
        suit = SUITS[suit_of(card)]
        face = _FACES[key] = CardFace(
            card=card,
            code=card_text(card),
            rank=RANKS[rank_of(card)],
            symbol=SUIT_SYMBOLS[suit],
            red=suit in _RED_SUITS,
            wild=card == WILD,
            name=card_name(card),
        )
    return face


def faces(cards: tuple[Card, ...] | list[Card]) -> list[CardFace]:
    return [card_face(card) for card in cards]


def card_html(card: Card | None) -> Markup:
    """The card drawn face up, or its back for None: rendered once per language and card, then
    remembered (a card depends on nothing else; six of them in every frame of the table)."""
    words = current_words()
    key = (CARD_TEMPLATE, card)
    html = words.fragments.get(key)
    if html is None:
        face = None if card is None else card_face(card)
        html = words.fragments[key] = Markup(fixed_template(CARD_TEMPLATE).render({"c": face}))
    return html
