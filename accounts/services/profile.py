"""Read-only queries for the profile page."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts.faces import is_face
from accounts.ledger.errors import InvalidRequest
from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction, User


@dataclass(frozen=True)
class HandStats:
    played: int
    won: int
    biggest_pot: int


@dataclass(frozen=True)
class ChipPage:
    """A page of the chip history, without a count of every entry (a player may have millions)."""

    entries: list[LedgerEntry]
    number: int
    has_next: bool

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_other_pages(self) -> bool:
        return self.has_previous or self.has_next

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1


# Deeper than this, the history is the staff's to read (the ledger's own list).
MAX_CHIP_PAGE = 5_000


def chip_page(*, user: User, raw_number: object, size: int) -> ChipPage:
    """A page of the user's chip history; a page number that is no number, or past the end, gives
    the first page."""
    number = int(raw_number) if isinstance(raw_number, str) and _PAGE.fullmatch(raw_number) else 1
    number = min(max(number, 1), MAX_CHIP_PAGE)
    start = (number - 1) * size
    found = list(ledger_rows(user=user)[start : start + size + 1])
    if not found and number > 1:
        return chip_page(user=user, raw_number="1", size=size)
    return ChipPage(entries=found[:size], number=number, has_next=len(found) > size)


_PAGE = re.compile(r"[0-9]{1,6}")


def ledger_rows(*, user: User) -> QuerySet[LedgerEntry]:
    """The user's entries (wallet and seats), newest first: one row for each thing that happened.
    A buy-in or a cash-out moves chips between the user's own wallet and seat; its wallet side is
    the row ("buy-in, -500"), the seat's mirror of it ("+500") said nothing new."""
    # The owner and time copied onto each entry: one index, read in its order.
    return (
        LedgerEntry.objects.filter(owner=user)
        .exclude(
            account__kind=LedgerAccount.Kind.SEAT,
            transaction__kind__in=[LedgerTransaction.Kind.BUY_IN, LedgerTransaction.Kind.CASH_OUT],
        )
        .select_related("transaction", "account")
        .order_by("-created_at", "-pk")
    )


# Where the figures come from. The room keeps one summary of each player's settled hands, the
# standings (games.standings: the player page and the leaderboards read it too), and ``accounts``
# may not import ``games`` (docs/architecture.md): the games app hands its reader in when it loads
# (games.apps), as it connects to the ban signal. Without it (accounts alone) there are no hands.
HandStatsSource = Callable[[User], HandStats]
_hand_stats_source: HandStatsSource | None = None


def provide_hand_stats(source: HandStatsSource | None) -> None:
    """Set what ``hand_stats`` reads: the player's hands played and won and the biggest pot won."""
    global _hand_stats_source
    _hand_stats_source = source


def hand_stats(*, user: User) -> HandStats:
    """Hands played and won at real tables, and the biggest pot won (the whole pot the player took,
    RULES.md §4), as the player page shows them: the one summary, read through its source."""
    if _hand_stats_source is None:
        return HandStats(played=0, won=0, biggest_pot=0)
    return _hand_stats_source(user)


def set_stats_hidden(*, user: User, hidden: bool) -> None:
    """Hide the player's figures from others (their page shows the name and the date of joining;
    the leaderboards leave them out), or show them again."""
    User.objects.filter(pk=user.pk).update(stats_hidden=hidden)
    user.stats_hidden = hidden


def set_face(*, user: User, face: object) -> None:
    """Choose the player's face from those the room ships ("" for none); anything else is refused
    and changes nothing. A seat already taken keeps the face it was taken with until the player
    sits down again (the table's document carries it, so a hand in play reads no database)."""
    if not is_face(face):
        raise InvalidRequest(_("Choose one of the faces shown."))
    assert isinstance(face, str)
    User.objects.filter(pk=user.pk).update(face=face)
    user.face = face


@dataclass(frozen=True)
class MonthLine:
    """One month of the profile's statement (responsible play): hands at real tables, time in
    them and the chips won less lost."""

    month: date
    hands: int
    minutes: int
    net: int

    @property
    def hours(self) -> int:
        return self.minutes // 60

    @property
    def minutes_past_hour(self) -> int:
        return self.minutes % 60


MonthlySource = Callable[[User], list[MonthLine]]
_monthly_source: MonthlySource | None = None


def provide_monthly_statement(source: MonthlySource | None) -> None:
    """Set what ``monthly_statement`` reads (the games app's hands; see ``provide_hand_stats``)."""
    global _monthly_source
    _monthly_source = source


def monthly_statement(*, user: User) -> list[MonthLine]:
    """The player's months with hands, newest first (the last twelve)."""
    return [] if _monthly_source is None else _monthly_source(user)
