"""The table's rules (RULES.md §3), beside the hand's: the stakes and seats a table may have, what
a seat needs to be dealt in, and how much it may bring. (The moves a player may send are the
hand's: ``hand.PLAYER_VERBS``.)

One home for each: the database's constraints, the forms, the table service, the views and the
lobby all ask here. Pure Python, like the rest of the engine.
"""

from __future__ import annotations

from typing import NamedTuple

from games.engine.rules import RULES_V1

# The site's tables play the current rules (games.engine.rules): these are its numbers.
STAKES = RULES_V1.stakes
MIN_SEATS, MAX_SEATS = RULES_V1.min_seats, RULES_V1.max_seats


def chips_to_be_dealt_in(stake: int) -> int:
    """A seat with fewer than two stakes sits out until it adds chips (RULES.md §3)."""
    return RULES_V1.deal_in_stakes * stake


def can_be_dealt_in(*, chips: int, stake: int) -> bool:
    return chips >= chips_to_be_dealt_in(stake)


class BuyIn(NamedTuple):
    """What a seat may bring: 20 to 100 stakes, 50 by default (RULES.md §3)."""

    low: int
    high: int
    default: int


def buy_in_range(stake: int) -> BuyIn:
    return BuyIn(low=20 * stake, high=100 * stake, default=50 * stake)


class TopUp(NamedTuple):
    """What a seat short of a hand is offered: ``need`` (two stakes), the least to add that deals it
    in (``least``), and the add that takes it back to the usual buy-in (``again``)."""

    need: int
    least: int
    again: int


def top_up(*, chips: int, stake: int) -> TopUp | None:
    """The adds that deal a seat of ``chips`` in again; None when it is dealt in as it is."""
    need = chips_to_be_dealt_in(stake)
    if chips >= need:
        return None
    buy_in = buy_in_range(stake)
    least = need - chips
    again = min(max(buy_in.default - chips, least), buy_in.high - chips)
    return TopUp(need=need, least=least, again=again)
