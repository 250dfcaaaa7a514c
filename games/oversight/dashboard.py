"""The room now, for the staff's dashboard: tables in play, who is online and seated, hands per
minute, the chips in play against the ledger's own audit, and how many players' reports wait for
the staff.

Cached so that a busy room with several staff watching is not asked again on every poll: the
room's figures for ``ROOM_SECONDS`` (a handful of grouped queries), the ledger's audit (which reads
every entry) for ``AUDIT_SECONDS``. The cache is the room's (Redis when configured), shared by
every process. A fixed number of queries whatever the number of tables, players or hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db.models import Count, Q, Sum
from django.utils import timezone

from accounts.models import LedgerAccount
from accounts.services import audit_ledger
from games.live import presence, records
from games.models import PlayedHand, Seat, Table
from games.social.reports import reports_waiting

ROOM_SECONDS = 5
AUDIT_SECONDS = 60
ROOM_KEY = "oversight:room"
AUDIT_KEY = "oversight:audit"
PROBLEMS_SHOWN = 5


@dataclass(frozen=True)
class ChipAudit:
    """``audit_ledger``'s answer, as of ``at``."""

    at: datetime
    circulating: int  # chips in wallets and seats
    house_balance: int  # minus every chip the house ever paid out, plus what it took back
    problems: int
    first_problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class RoomNow:
    at: datetime
    tables_in_play: int  # a hand in play, or two seats ready for the next
    tables_with_players: int
    players_seated: int  # people (not the computer) at open tables
    sitting_out: int
    online: presence.Online | None  # table sockets open; None when the count could not be read
    hands_last_5: int  # hands ended in the last 5 minutes
    hands_last_60: int
    chips_on_seats: int  # the ledger's chips at tables now
    chips_in_wallets: int
    reports_waiting: int  # players' reports no staff member has dealt with yet

    @property
    def per_minute_5(self) -> float:
        return self.hands_last_5 / 5

    @property
    def per_minute_60(self) -> float:
        return self.hands_last_60 / 60


def room_figures(*, now: datetime | None = None) -> RoomNow:
    """The room's figures, computed now (uncached): five queries."""
    now = now or timezone.now()
    seats = Seat.objects.filter(table__status=Table.Status.OPEN, user__computer_level="").aggregate(
        players=Count("user", distinct=True),
        tables=Count("table", distinct=True),
        sitting_out=Count("pk", filter=Q(sitting_out=True)),
    )
    hands = PlayedHand.objects.filter(
        status=PlayedHand.Status.FINISHED, ended_at__gte=now - timedelta(minutes=60)
    ).aggregate(
        hour=Count("pk"),
        five=Count("pk", filter=Q(ended_at__gte=now - timedelta(minutes=5))),
    )
    chips = LedgerAccount.objects.aggregate(
        seats=Sum("balance", filter=Q(kind=LedgerAccount.Kind.SEAT)),
        wallets=Sum("balance", filter=Q(kind=LedgerAccount.Kind.WALLET)),
    )
    return RoomNow(
        at=now,
        tables_in_play=len(records.tables_in_play()),
        tables_with_players=seats["tables"],
        players_seated=seats["players"],
        sitting_out=seats["sitting_out"],
        online=presence.online(),
        hands_last_5=hands["five"],
        hands_last_60=hands["hour"],
        chips_on_seats=chips["seats"] or 0,
        chips_in_wallets=chips["wallets"] or 0,
        reports_waiting=reports_waiting(),
    )


def chip_audit_now() -> ChipAudit:
    report = audit_ledger()
    return ChipAudit(
        at=timezone.now(),
        circulating=report.circulating,
        house_balance=report.house_balance,
        problems=len(report.problems),
        first_problems=tuple(report.problems[:PROBLEMS_SHOWN]),
    )


def room_now() -> RoomNow:
    """The room's figures, at most ``ROOM_SECONDS`` old."""
    return cache.get_or_set(ROOM_KEY, room_figures, ROOM_SECONDS)


def chip_audit() -> ChipAudit:
    """The ledger's audit, at most ``AUDIT_SECONDS`` old."""
    return cache.get_or_set(AUDIT_KEY, chip_audit_now, AUDIT_SECONDS)
