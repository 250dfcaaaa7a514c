"""What changes a sit-and-go: registering, unregistering, the start and the end.

Each function runs in one transaction that first locks the tournament's row, so two players for
the last seat, a double click and an unregistration racing the start queue behind each other and
get one clear answer each; a refusal raises ``TournamentRefused`` (or the ledger's error) and
changes nothing. Ledger keys name the entry, so a retried posting is a replay, never a second one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services.prize_pools import tournament_buy_in, tournament_pay_out, tournament_refund
from games.engine.tournament import FORMATS, Out, SitAndGo, places, prizes_by_place
from games.models import Entry, Tournament


class TournamentRefused(ValueError):
    """A registration, unregistration or result the tournament's state does not allow; one line
    for a person, and nothing changed."""


def open_tournament(*, sit_and_go: SitAndGo) -> Tournament:
    """The open sit-and-go of this format, made if there is none (the lobby always offers one)."""
    found = Tournament.objects.filter(format_key=sit_and_go.key, status=Tournament.Status.OPEN).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return Tournament.objects.create(
                format_key=sit_and_go.key,
                seats=sit_and_go.seats,
                speed=sit_and_go.speed,
                buy_in=sit_and_go.buy_in,
            )
    except IntegrityError:  # another request opened it first: the unique condition on "open"
        return Tournament.objects.get(format_key=sit_and_go.key, status=Tournament.Status.OPEN)


def open_tournaments() -> list[Tournament]:
    """One open sit-and-go of every format, in the lobby's order."""
    return [open_tournament(sit_and_go=f) for f in FORMATS]


def _locked(tournament_id: object) -> Tournament:
    if isinstance(tournament_id, bool) or not isinstance(tournament_id, int) or tournament_id < 1:
        raise TournamentRefused(_("There is no such tournament."))
    found = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if found is None:
        raise TournamentRefused(_("There is no such tournament."))
    return found


def _active_entries(tournament: Tournament) -> list[Entry]:
    return list(tournament.entries.filter(unregistered_at__isnull=True).order_by("pk"))


@dataclass(frozen=True)
class Registered:
    entry: Entry
    started: bool  # this registration took the last seat and started the tournament


def register(*, user: User, tournament_id: int) -> Registered:
    """Pay the buy-in into the pool and take a seat in the sit-and-go; the last seat starts it."""
    if not isinstance(user, User) or user.pk is None:
        raise TournamentRefused(_("Sign in to register for a tournament."))
    if user.computer_level:
        raise TournamentRefused(_("The computer plays practice tables only."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.OPEN:
            raise TournamentRefused(_("This tournament has already started; register for the next one."))
        entries = _active_entries(tournament)
        if any(entry.user_id == user.pk for entry in entries):
            raise TournamentRefused(_("You are already registered for this tournament."))
        if len(entries) >= tournament.seats:  # cannot happen under the lock; kept as the last word
            raise TournamentRefused(_("This tournament is full; register for the next one."))
        entry = Entry.objects.create(tournament=tournament, user=user)
        # The ledger's refusals (too few chips, a break, a loss limit, a ban) roll the entry back.
        tournament_buy_in(
            user=user,
            tournament_id=tournament.pk,
            amount=tournament.buy_in,
            idempotency_key=f"sng:{tournament.pk}:entry:{entry.pk}:buy-in",
        )
        started = len(entries) + 1 == tournament.seats
        if started:
            _start(tournament=tournament, entries=[*entries, entry])
    return Registered(entry=entry, started=started)


def unregister(*, user: User, tournament_id: int) -> Entry:
    """Take the buy-in back before the start."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entry = next((e for e in _active_entries(tournament) if e.user_id == user.pk), None)
        if entry is None:
            raise TournamentRefused(_("You are not registered for this tournament."))
        if tournament.status != Tournament.Status.OPEN:
            raise TournamentRefused(
                _("This tournament has started: a buy-in comes back only before the start.")
            )
        entry.unregistered_at = timezone.now()
        entry.save(update_fields=["unregistered_at"])
        tournament_refund(
            user=user,
            tournament_id=tournament.pk,
            amount=tournament.buy_in,
            idempotency_key=f"sng:{tournament.pk}:entry:{entry.pk}:refund",
            memo=f"unregistered from tournament {tournament.pk}",
        )
    return entry


def _start(*, tournament: Tournament, entries: Sequence[Entry]) -> None:
    """Seat the players at random, mark the tournament running and open the next one of its format."""
    seats = list(range(len(entries)))
    secrets.SystemRandom().shuffle(seats)
    for entry, seat in zip(entries, seats):
        entry.seat = seat
    Entry.objects.bulk_update(entries, ["seat"])
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["status", "started_at"])
    open_tournament(sit_and_go=SitAndGo.from_key(tournament.format_key))


def finish(*, tournament_id: int, outs: Sequence[Out], winner: str) -> list[Entry]:
    """End a running sit-and-go: places by §8 and the prizes paid from the pool in one transaction.
    Players are named by their user id as text (``Out.player``, ``winner``), in seat order."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            raise TournamentRefused(_("Only a running tournament can end."))
        entries = sorted(_active_entries(tournament), key=lambda e: e.seat if e.seat is not None else 0)
        by_player = {str(entry.user_id): entry for entry in entries}
        named = [winner, *(out.player for out in outs)]
        if sorted(named) != sorted(by_player):
            raise TournamentRefused("a tournament's result names each of its players once")
        seat_order = {player: index for index, player in enumerate(by_player)}
        groups = [sorted(group, key=seat_order.__getitem__) for group in places(outs=outs, winner=winner)]
        pool = tournament.seats * tournament.buy_in
        prizes = prizes_by_place(groups=groups, pool=pool, seats=tournament.seats)
        out_hand = {out.player: out.hand for out in outs}
        place = 1
        for group in groups:
            for player in group:
                entry = by_player[player]
                entry.place, entry.prize, entry.out_in_hand = place, prizes[player], out_hand.get(player)
            place += len(group)
        Entry.objects.bulk_update(entries, ["place", "prize", "out_in_hand"])
        tournament_pay_out(
            tournament_id=tournament.pk,
            amounts={entry.user_id: prizes[str(entry.user_id)] for entry in entries},
            idempotency_key=f"sng:{tournament.pk}:prizes",
            memo=f"prizes of tournament {tournament.pk}",
        )
        tournament.status = Tournament.Status.FINISHED
        tournament.ended_at = timezone.now()
        tournament.save(update_fields=["status", "ended_at"])
    return entries
