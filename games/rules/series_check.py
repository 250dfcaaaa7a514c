"""Checking a table's seed series on the fair page, and the series file it offers for download.

A series is checked only once revealed: its hash against its seed, every settled hand's decks
against the seeds and its replay against the stored result (games.engine.verify), and the hash
chain from the hand before the series to its last hand. A sealed series shows its hash and when
it becomes checkable, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from games.engine.chain import GENESIS, check_chain
from games.engine.verify import SERIES_FORMAT, check_hand, check_series
from games.history.service import sees_every_hand
from games.live import series as seed_series
from games.models import PlayedHand, SeedSeries, Table


def may_check_table(*, table: Table, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Anyone, for a public table; a private table's series (or those of a kind whose records are
    not public, practice: games.kinds) are for those who played at it and staff with view rights
    on hands (as its hands are: games.history.service.may_check_hand)."""
    if table.policy.records_public and not table.private:
        return True
    if not user.is_authenticated:
        return False
    return sees_every_hand(user) or PlayedHand.objects.filter(table=table, players__user_id=user.pk).exists()


def find_series(*, table_id: int, number: int) -> SeedSeries | None:
    return SeedSeries.objects.select_related("table").filter(table_id=table_id, number=number).first()


def table_series(*, table: Table) -> list[SeedSeries]:
    """The table's series, newest first (each sealed one past its day is revealed on the way)."""
    found = list(SeedSeries.objects.filter(table=table).order_by("-number"))
    for each in found:
        if not each.revealed:
            seed_series.reveal_if_expired(each)
    return found


def _settled(series: SeedSeries) -> list[PlayedHand]:
    return list(series.hands.filter(status=PlayedHand.Status.FINISHED).order_by("number"))


def _first_prev(series: SeedSeries, first: PlayedHand | None) -> str | None:
    # What the series' first hand must link to: the table's previous hand on the chain.
    if first is None:
        return None
    before = (
        PlayedHand.objects.filter(
            table_id=series.table_id, status=PlayedHand.Status.FINISHED, number__lt=first.number
        )
        .exclude(chain_hash="")
        .order_by("-number")
        .values_list("chain_hash", flat=True)
        .first()
    )
    return before or GENESIS


@dataclass
class ChainPlace:
    """Where a settled hand sits in its table's chain: the hand before it (None: the first of the
    chain) and the hash it links to, its own link hash, and the problems found ([]: it holds)."""

    before: int | None
    prev_hash: str
    chain_hash: str
    problems: list[str]


def chain_place(hand: PlayedHand) -> ChainPlace:
    """The hand's place in its table's chain, checked: its record links to the hand before it (or
    to the start of the chain), and hashes to the link hash the hand after it links to."""
    before = (
        PlayedHand.objects.filter(
            table_id=hand.table_id, status=PlayedHand.Status.FINISHED, number__lt=hand.number
        )
        .exclude(chain_hash="")
        .order_by("-number")
        .values_list("number", "chain_hash")
        .first()
    )
    record = hand.record if isinstance(hand.record, dict) else {}
    prev = record.get("prev_hash")
    return ChainPlace(
        before=before[0] if before else None,
        prev_hash=prev if isinstance(prev, str) else "",
        chain_hash=hand.chain_hash,
        problems=check_chain([record], first_prev=before[1] if before else GENESIS, head=hand.chain_hash),
    )


def series_file(series: SeedSeries) -> dict[str, Any]:
    """The revealed series as one file (``svara-series/1``, docs/fairness.md): its seed and hash, and
    every settled hand's stored record in order, with the chain hashes before and after them."""
    assert series.revealed, "a sealed series' file would give away its seed"
    hands = _settled(series)
    return {
        "format": SERIES_FORMAT,
        "table": series.table_id,
        "series": series.number,
        "server_seed_hash": series.server_seed_hash,
        "server_seed": series.server_seed,
        "started_at": series.started_at.isoformat(),
        "revealed_at": series.revealed_at.isoformat() if series.revealed_at else None,
        "end_reason": series.end_reason,
        "cancelled": list(
            series.hands.filter(status=PlayedHand.Status.CANCELLED)
            .order_by("number")
            .values_list("number", flat=True)
        ),
        "first_prev": _first_prev(series, hands[0] if hands else None),
        "last_hash": hands[-1].chain_hash if hands else None,
        "hands": [hand.record for hand in hands],
    }


@dataclass
class HandLine:
    hand: PlayedHand
    problems: list[str]


@dataclass
class SeriesCheck:
    series: SeedSeries
    state: str  # "sealed" or "checked"
    checkable_by: datetime
    problems: list[str] = field(default_factory=list)
    hands: list[HandLine] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)


def check_table_series(series: SeedSeries) -> SeriesCheck:
    if not series.revealed:
        seed_series.reveal_if_expired(series)
    if not series.revealed:
        return SeriesCheck(series=series, state="sealed", checkable_by=seed_series.checkable_by(series))
    data = series_file(series)
    hands = _settled(series)
    lines = [
        HandLine(
            hand=hand,
            problems=check_hand(
                hand.record, server_seed=series.server_seed, server_seed_hash=series.server_seed_hash
            ),
        )
        for hand in hands
    ]
    return SeriesCheck(
        series=series,
        state="checked",
        checkable_by=seed_series.checkable_by(series),
        problems=check_series(data),
        hands=lines,
        cancelled=data["cancelled"],
    )
