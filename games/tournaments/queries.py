"""What the tournament pages show: the open sit-and-gos with their seats, the running ones, the
finished ones and one tournament whole. Read-only, a handful of queries per page whatever the
number of tournaments stored (the lists are bounded and indexed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from games.engine.tournament import STARTING_CHIPS, SitAndGo, prize_amounts
from games.models import Entry, Tournament
from games.tournaments.service import open_tournaments

RECENT = 20


@dataclass(frozen=True)
class Row:
    """One sit-and-go in a list."""

    tournament: Tournament
    sit_and_go: SitAndGo
    registered: int
    mine: bool  # the viewer is registered
    prizes: tuple[int, ...]  # of a full pool, first place first

    @property
    def pool(self) -> int:
        return self.registered * self.tournament.buy_in

    @property
    def seats_left(self) -> int:
        return self.tournament.seats - self.registered


def _counted(tournaments: list[Tournament], *, user: Any) -> list[Row]:
    ids = [t.pk for t in tournaments]
    active = Entry.objects.filter(tournament_id__in=ids, unregistered_at__isnull=True)
    counts = dict(active.values("tournament_id").annotate(n=Count("pk")).values_list("tournament_id", "n"))
    mine = (
        set(active.filter(user_id=user.pk).values_list("tournament_id", flat=True))
        if getattr(user, "is_authenticated", False)
        else set()
    )
    rows = []
    for t in tournaments:
        sng = SitAndGo.from_key(t.format_key)
        rows.append(
            Row(
                tournament=t,
                sit_and_go=sng,
                registered=counts.get(t.pk, 0),
                mine=t.pk in mine,
                prizes=prize_amounts(pool=sng.seats * sng.buy_in, seats=sng.seats),
            )
        )
    return rows


def open_rows(*, user: Any) -> list[Row]:
    """Every format's open sit-and-go, in the lobby's order."""
    return _counted(open_tournaments(), user=user)


def running_rows(*, user: Any) -> list[Row]:
    running = list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING).order_by("-started_at")[:RECENT]
    )
    return _counted(running, user=user)


def finished_tournaments() -> list[Tournament]:
    return list(
        Tournament.objects.filter(status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
        .order_by("-ended_at", "-pk")
        .select_related(None)[:RECENT]
    )


@dataclass(frozen=True)
class Detail:
    tournament: Tournament
    sit_and_go: SitAndGo
    entries: list[Entry]  # registered (and, once it ends, in place order)
    prizes: tuple[int, ...]
    starting_chips: int
    mine: bool


def tournament_detail(*, tournament_id: int, user: Any) -> Detail | None:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    entries = list(
        tournament.entries.filter(unregistered_at__isnull=True)
        .select_related("user")
        .order_by("place", "seat", "registered_at")
    )
    sng = SitAndGo.from_key(tournament.format_key)
    authenticated = getattr(user, "is_authenticated", False)
    return Detail(
        tournament=tournament,
        sit_and_go=sng,
        entries=entries,
        prizes=prize_amounts(pool=sng.seats * sng.buy_in, seats=sng.seats),
        starting_chips=STARTING_CHIPS,
        mine=authenticated and any(e.user_id == user.pk for e in entries),
    )


def results_of(*, user: Any) -> list[Entry]:
    """A player's finished tournaments, newest first (their page links each)."""
    return list(
        Entry.objects.filter(user=user, unregistered_at__isnull=True, place__isnull=False)
        .select_related("tournament")
        .order_by("-tournament__ended_at")[:RECENT]
    )


__all__ = [
    "Detail",
    "Row",
    "finished_tournaments",
    "open_rows",
    "results_of",
    "running_rows",
    "tournament_detail",
]
