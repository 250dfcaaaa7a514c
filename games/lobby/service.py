"""The lobby: which tables a player can see and join, opening tables, "Play now".

Small typed functions with keyword arguments; the views (games/views.py) and the lobby consumer
only call these and render. Seats themselves are taken through the live table service
(games.live.service.table_sit), which buys in through the ledger: nothing here moves chips.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, Q, QuerySet, Subquery
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import wallet_balance
from games import kinds
from games.engine.table_rules import buy_in_range
from games.live import service
from games.models import LOBBY_TABLES, RANK_EMPTY, RANK_FULL, STAKES, ChatMode, Seat, Table

# The kinds of table the lobby lists, finds by invite and sends "play now" back to.
LOBBY_KINDS = kinds.names_where(in_lobby=True)

log = logging.getLogger(__name__)

# A table opened by "Play now": the classic settings of RULES.md §3 and room for more players,
# so the next player who presses "Play now" lands at the same table.
PLAY_NOW_SEATS = 6
PLAY_NOW_TURN_SECONDS = 30
# A seat can be taken by someone else between choosing it and sitting; try a few others.
PLAY_NOW_ATTEMPTS = 5


class LobbyError(ValueError):
    """Something the lobby cannot do for this player; the message is for them."""


@dataclass(frozen=True)
class Sitter:
    """A player at a table as the lobby shows them: the name and the face (accounts/faces.py)."""

    name: str
    face: str


@dataclass(frozen=True)
class LobbyRow:
    """One table as the lobby lists it."""

    table: Table
    players: list[Sitter]

    @property
    def taken(self) -> int:
        return len(self.players)

    @property
    def free(self) -> int:
        return self.table.seat_count - self.taken

    @property
    def full(self) -> bool:
        return self.free <= 0


# A stake is written in ASCII digits: "²" and "٣" are digits to str.isdigit but not to int(), and a
# number of thousands of digits is more than int() reads.
_STAKE_TEXT = re.compile(r"[0-9]{1,12}")


class BadStake(ValueError):
    """A ?stake= that is not a number at all."""


def parse_stake(value: object) -> int | None:
    """A stake filter from a query string: one of STAKES, or None for "any" (bad input included)."""
    if isinstance(value, str) and _STAKE_TEXT.fullmatch(value.strip()) and int(value) in STAKES:
        return int(value)
    return None


def stake_filter(*, raw: str | None) -> int | None:
    """The lobby pages' ?stake=: a stake, or None for every table (absent, empty, or a number that
    is no stake, such as 7); BadStake for text that is not a number, which the page refuses."""
    if raw is None or not raw.strip():
        return None
    if not _STAKE_TEXT.fullmatch(raw.strip()):
        raise BadStake(raw)
    return parse_stake(raw)


def _public_tables() -> QuerySet[Table]:
    seats = Seat.objects.select_related("user").order_by("position")
    return Table.objects.filter(LOBBY_TABLES).prefetch_related(Prefetch("seat_rows", queryset=seats))


def _row(table: Table) -> LobbyRow:
    return LobbyRow(
        table=table,
        players=[
            Sitter(name=seat.user.get_username(), face=seat.user.face) for seat in table.seat_rows.all()
        ],
    )


# A page of the lobby: enough to choose from, small enough to render at once whatever the room holds.
LOBBY_PAGE_SIZE = 30


def _ranked(tables: QuerySet[Table]) -> QuerySet[Table]:
    """The order a player wants across all stakes: where someone waits, then empty tables, then full
    ones (Table.wait_rank); lowest stake first within each. Stored columns, so the lobby's indexes
    (table_lobby_ranked, table_lobby_stake) give a page without counting any table's seats."""
    return tables.order_by("wait_rank", "stake", "pk")


def _without_spare_empty_tables(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Tables where somebody sits, and at each stake the oldest table nobody sits at (issue 35: a
    list of empty tables is a list of nothing to play). "Empty" is no seat taken: a table whose
    players sit out still has them. The one kept per stake is that stake's table to sit down at;
    "Play now" still considers every table, and the hidden ones open by their address.

    One scalar subquery per stake (a handful), each the first row of the lobby's stake index
    (table_lobby_stake): no grouping and no sort, whatever the number of tables."""
    kept = Q(wait_rank__lt=RANK_EMPTY) | Q(wait_rank__gt=RANK_EMPTY)
    for stake in STAKES:
        oldest = Table.objects.filter(LOBBY_TABLES, stake=stake, wait_rank=RANK_EMPTY).order_by("pk")
        kept |= Q(pk=Subquery(oldest.values("pk")[:1]))
    return tables.filter(kept)


@dataclass(frozen=True)
class LobbyPage:
    """One page of the lobby's list, with what its pager needs."""

    rows: list[LobbyRow]
    page: Page


def lobby_page(*, stake: int | None = None, page: object = 1) -> LobbyPage:
    """Public open tables (of the kinds the lobby lists: games.kinds), a page at a time, best first.

    A page number that is not a number gives the first page, one past the end the last: the list
    moves while people browse it, so a link to page 9 may find only 8.
    """
    tables = _without_spare_empty_tables(_public_tables())
    if stake is not None:
        tables = tables.filter(stake=stake)
    found = Paginator(_ranked(tables), LOBBY_PAGE_SIZE).get_page(_page_number(page))
    return LobbyPage(rows=[_row(t) for t in found.object_list], page=found)


def _page_number(raw: object) -> int:
    # Paginator reads any int; a number of thousands of digits is more than int() should read.
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and _STAKE_TEXT.fullmatch(raw.strip()):
        return int(raw)
    return 1


def private_tables_of(*, user: User) -> list[Table]:
    """The open private tables this player opened: the lobby shows them with their invite links."""
    if not user.is_authenticated:
        return []
    return list(
        Table.objects.filter(
            created_by=user, private=True, status=Table.Status.OPEN, kind__in=LOBBY_KINDS
        ).order_by("-pk")
    )


def create_table(*, user: User, form_data: dict[str, Any]) -> Table:
    """Open a table with the settings of RULES.md §3 (already validated by TableForm)."""
    # A table's name is written once, in its creator's language.
    name = (form_data.get("name") or "").strip() or _("%(name)s's table") % {"name": user.get_username()}
    table = Table.objects.create(
        name=name[:60],
        stake=int(form_data["stake"]),
        seat_count=int(form_data["seat_count"]),
        dark_play=bool(form_data["dark_play"]),
        turn_seconds=int(form_data["turn_seconds"]),
        private=bool(form_data["private"]),
        # Chat for everyone unless the creator chose otherwise (Play now does not ask).
        chat=form_data.get("chat") or ChatMode.EVERYONE,
        created_by=user,
    )
    if not table.private:
        _tell_lobby(table.pk)
    return table


def _tell_lobby(table_id: int) -> None:
    # A hint only (the lobby re-reads the database): a channel layer hiccup must not undo the table.
    try:
        async_to_sync(service.notify_lobby)(table_id)
    except Exception:
        log.exception("could not tell the lobby about table %s", table_id)


# What new_invite_code makes (token_urlsafe): anything else, a NUL say, is no code, and is not
# sent to the database (PostgreSQL refuses a NUL in text).
_INVITE_CODE = re.compile(r"[A-Za-z0-9_-]{1,40}")


def table_by_invite(*, code: str) -> Table | None:
    if not _INVITE_CODE.fullmatch(code):
        return None
    return Table.objects.filter(invite_code=code, kind__in=LOBBY_KINDS).first()


# ---------------------------------------------------------------- play now


@dataclass(frozen=True)
class PlayNow:
    table: Table
    seated: bool  # False: the player was already sitting there


def affordable_stake(*, balance: int) -> int | None:
    """The stake for a new table: the highest whose default buy-in (50 S) the wallet covers, else
    the highest whose minimum (20 S) it covers, else None."""
    for need in (50, 20):
        fitting = [s for s in STAKES if need * s <= balance]
        if fitting:
            return max(fitting)
    return None


def buy_in_for(*, table: Table, balance: int) -> int:
    """The default buy-in, or what the wallet holds when that is less (never below the minimum)."""
    return max(table.min_buy_in, min(table.default_buy_in, balance, table.max_buy_in))


def _candidates(*, balance: int, limit: int) -> list[tuple[Table, list[int]]]:
    """Public open tables with a free seat the player can afford, best first: the default buy-in
    fits, then tables where someone waits (so a hand starts), the most players, the lowest stake.

    Every open table is considered, whatever the room holds: for each of the two groups (the
    default buy-in fits, or only the minimum) one query in the order of the table_play_now index,
    which the database reads from its start until ``limit`` tables of the group's stakes are found.
    """
    affordable = [s for s in STAKES if buy_in_range(s).low <= balance]
    default_fits = [s for s in affordable if buy_in_range(s).default <= balance]
    groups = [default_fits, [s for s in affordable if s not in default_fits]]
    found: list[tuple[Table, list[int]]] = []
    for stakes in groups:
        if not stakes or len(found) >= limit:
            continue
        tables = (
            _public_tables()
            .filter(stake__in=stakes, wait_rank__lt=RANK_FULL)  # a range: the index keeps its order
            .order_by("wait_rank", "-seats_taken", "stake", "pk")[: limit - len(found)]
        )
        for table in tables:
            taken = {seat.position for seat in table.seat_rows.all()}
            free = [p for p in range(table.seat_count) if p not in taken]
            if free:
                found.append((table, free))
    return found


def play_now(*, user: User) -> PlayNow:
    """Seat the player at a fitting table, or open one and seat them there.

    The player is seated straight away with the default buy-in (or their whole wallet when it
    holds less): "Play now" is one click to a hand, and choosing a seat in a second step would
    only give someone else the time to take it. A player already sitting at a public table is
    sent back there instead of taking a second seat.
    """
    current = (
        Seat.objects.filter(user=user, table__status=Table.Status.OPEN, table__kind__in=LOBBY_KINDS)
        .select_related("table")
        .order_by("-joined_at")
        .first()
    )
    if current is not None:
        return PlayNow(table=current.table, seated=False)
    balance = wallet_balance(user=user)
    if affordable_stake(balance=balance) is None:
        raise LobbyError(
            _(
                "You need at least %(need)s chips to sit down; your wallet holds %(balance)s. "
                "Your profile page has the daily bonus and the refill."
            )
            % {"need": buy_in_range(STAKES[0]).low, "balance": balance}
        )
    attempts = 0
    for table, free in _candidates(balance=balance, limit=PLAY_NOW_ATTEMPTS):
        for position in free:
            if attempts >= PLAY_NOW_ATTEMPTS:
                break
            attempts += 1
            if _sit(user=user, table=table, position=position, balance=balance):
                return PlayNow(table=table, seated=True)
    stake = affordable_stake(balance=balance)
    assert stake is not None
    table = create_table(
        user=user,
        form_data={
            "name": "",
            "stake": stake,
            "seat_count": PLAY_NOW_SEATS,
            "dark_play": True,
            "turn_seconds": PLAY_NOW_TURN_SECONDS,
            "private": False,
        },
    )
    if not _sit(user=user, table=table, position=0, balance=balance):
        raise LobbyError(_("Could not sit you down; please try again."))
    return PlayNow(table=table, seated=True)


def _sit(*, user: User, table: Table, position: int, balance: int) -> bool:
    """Take one seat; False when it was taken meanwhile. Other refusals are the player's to read."""
    try:
        async_to_sync(service.table_sit)(
            user=user, table_id=table.pk, position=position, buy_in=buy_in_for(table=table, balance=balance)
        )
    except service.Refused as exc:
        if exc.code == "seat_taken":
            return False
        raise LobbyError(str(exc)) from None
    return True
