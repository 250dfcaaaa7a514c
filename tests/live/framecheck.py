"""Reading table frames as a viewer would: which cards each seat shows."""

from __future__ import annotations

import re

from games.engine.cards import parse_card
from games.tables.ui.cards import card_face

SEAT_RE = re.compile(
    r'<div class="seat[^"]*" data-position="(\d+)"[^>]*>(.*?)</div>\s*(?=<div class="seat|</section>)', re.S
)
LABEL_RE = re.compile(r'aria-label="([^"]+ of (?:clubs|diamonds|hearts|spades))"')


def label(text: str) -> str:
    return card_face(parse_card(text)).name


def labels_in(frame: str) -> set[str]:
    return set(LABEL_RE.findall(frame))


def assert_hidden(frame: str, *, hidden: dict[str, list[str]], viewer: str) -> None:
    """No card of another player appears anywhere in the frame (text or attribute)."""
    shown = labels_in(frame)
    for name, cards in hidden.items():
        if name == viewer:
            continue
        leaked = shown & {label(c) for c in cards}
        assert not leaked, f"{viewer} saw {name}'s cards {leaked}"
