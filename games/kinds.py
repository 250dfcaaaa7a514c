"""A table's kind, as a policy: one object per kind answers every question that differs between them.

A table is chosen a kind once, when it is made (``Table.kind``; the table's document carries its name
as ``table.kind``), and the code asks the kind rather than branching on it: where the chips come
from, how a hand settles, who may sit, add chips or cash out, whether the lobby lists the table,
whether its hands count in the standings, whether players have a time bank, what becomes of a seat
without the chips for another hand. A new kind is one more object here, not an ``if`` beside each
question (``tests/test_kinds.py`` holds that the code outside this module names no kind).

- ``cash``: chips bought from the wallet onto the seat's ledger account, anyone sits, adds chips
  and cashes out; the lobby lists the public ones; counted in the standings.
- ``practice``: one player against the computer with practice chips kept on the seat rows, never
  the wallet's; the table is the player's alone and ends when they leave or leave it idle.
- ``tournament`` (RULES.md §8; not offered yet, so no table can be made of it): tournament chips
  kept on the seat rows, no adding or cashing out, absent players dealt in and folded, and a player
  out of chips is out of the tournament. Its answers are here so the questions fit it.

Only names and answers: no database, no I/O (the models, the live layer and the pages read it).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


class Chips(enum.Enum):
    """Where a seat's chips live."""

    WALLET = "wallet"  # bought from the wallet onto the seat's ledger account; settled by the ledger
    TABLE = "table"  # the table's own chips, kept on the seat row (``Seat.table_chips``), never money


class Leaving(enum.Enum):
    """What leaving the table does."""

    CASH_OUT = "cash_out"  # the seat's chips go back to the wallet (mid-hand: once it is settled)
    CLOSES_TABLE = "closes_table"  # the table is the player's alone: it ends (nothing to cash out)
    STAYS = "stays"  # the seat stays and is played as absent until its chips are gone


class Broke(enum.Enum):
    """What becomes of a seat without the chips for another hand."""

    SITS_OUT = "sits_out"  # it sits out until chips are added (the table offers the add)
    NEW_GAME = "new_game"  # the table offers a new game, every side back to its starting chips
    OUT = "out"  # the player is out (of the tournament)


@dataclass(frozen=True, slots=True)
class TableKind:
    """The answers of one kind of table."""

    name: str  # stored on the table row and in its document
    label: Promise  # what the hand history calls its chips ("real", "practice")
    chips_tag: Promise | None  # the table page's tag for its chips (None: the buy-in range instead)
    player_links: bool  # the players' names link to their pages (else the names alone: the computer)
    chips: Chips
    leaving: Leaving
    broke: Broke
    # Why a player may not take a free seat themselves (None: they may; else the seats are given
    # when the table opens), and why chips may not be added to a seat (None: they may).
    sit_refusal: Promise | None
    add_refusal: Promise | None
    creator_only: bool  # the table is its creator's alone: nobody else sees it or is invited
    in_lobby: bool  # the lobby lists its public tables (and play now, invites, "my tables" find them)
    counted: bool  # its hands count in the standings (leaderboards, player pages)
    watched: bool  # the staff's patterns look at its hands (chips that are worth something)
    records_public: bool  # anyone may check its hands and seed series (at a public table)
    time_bank: bool  # players have the room's time bank (else the table's turn time is all)
    closes_when_idle: bool  # nobody touched it for a while: it is closed
    absent_dealt_in: bool  # a player sitting out is dealt in and folded at once (else skipped)

    @property
    def open_seats(self) -> bool:
        return self.sit_refusal is None

    @property
    def may_add_chips(self) -> bool:
        return self.add_refusal is None

    @property
    def money(self) -> bool:
        """Whether the seats' chips are the wallet's (the ledger settles each hand)."""
        return self.chips is Chips.WALLET


CASH = TableKind(
    name="cash",
    label=_("real"),
    chips_tag=None,
    player_links=True,
    chips=Chips.WALLET,
    leaving=Leaving.CASH_OUT,
    broke=Broke.SITS_OUT,
    sit_refusal=None,
    add_refusal=None,
    creator_only=False,
    in_lobby=True,
    counted=True,
    watched=True,
    records_public=True,
    time_bank=True,
    closes_when_idle=False,
    absent_dealt_in=False,
)

PRACTICE = TableKind(
    name="practice",
    label=_("practice"),
    chips_tag=_("practice chips"),
    player_links=False,
    chips=Chips.TABLE,
    leaving=Leaving.CLOSES_TABLE,
    broke=Broke.NEW_GAME,
    sit_refusal=_("practice tables are one player against the computer"),
    add_refusal=_("practice chips cannot be added: start a new game when one side is out of chips"),
    creator_only=True,
    in_lobby=False,
    counted=False,
    watched=False,
    records_public=False,
    # Its player picks the turn's length (or none) instead.
    time_bank=False,
    closes_when_idle=True,
    absent_dealt_in=False,
)

# RULES.md §8, for the tournaments to come: no table is made of this kind yet (``OFFERED``).
TOURNAMENT = TableKind(
    name="tournament",
    label=_("tournament"),
    chips_tag=_("tournament chips"),
    player_links=True,
    chips=Chips.TABLE,
    leaving=Leaving.STAYS,
    broke=Broke.OUT,
    sit_refusal=_("tournament seats are taken by registering for the tournament"),
    add_refusal=_("tournament chips cannot be added to or taken out"),
    creator_only=False,
    in_lobby=False,
    counted=False,
    watched=True,
    records_public=True,
    time_bank=True,
    closes_when_idle=False,
    absent_dealt_in=True,
)

KINDS: dict[str, TableKind] = {kind.name: kind for kind in (CASH, PRACTICE, TOURNAMENT)}
# The kinds a table can be made of today (the model's choices).
OFFERED: tuple[TableKind, ...] = (CASH, PRACTICE)


def kind_named(name: str) -> TableKind:
    """The kind of this name (a table row's or document's ``kind``); KeyError for none."""
    return KINDS[name]


def kind_of_settings(settings: Mapping[str, object]) -> TableKind:
    """The kind of a table's document settings. A document written before kinds had a boolean
    instead (``practice``); one still in the store when this was deployed is read as it meant."""
    name = settings.get("kind")
    if isinstance(name, str):
        return KINDS[name]
    return PRACTICE if settings.get("practice") else CASH


def names_where(**answers: object) -> list[str]:
    """The names of the offered kinds whose answers are these, for a database filter
    (``names_where(in_lobby=True)`` -> ``["cash"]``)."""
    return [k.name for k in OFFERED if all(getattr(k, q) == a for q, a in answers.items())]


KIND_CHOICES = [(k.name, k.name) for k in OFFERED]
