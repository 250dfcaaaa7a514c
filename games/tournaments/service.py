"""What changes a sit-and-go: registering, unregistering, the start and the end.

Each function runs in one transaction that first locks the tournament's row, so two players for
the last seat, a double click and an unregistration racing the start queue behind each other and
get one clear answer each; a refusal raises ``TournamentRefused`` (or the ledger's error) and
changes nothing. Ledger keys name the entry, so a retried posting is a replay, never a second one.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import LedgerTransaction, User
from accounts.services.prize_pools import tournament_buy_in, tournament_pay_out, tournament_refund
from accounts.staff_log.log import check_reason, check_right, check_token, record_staff_action
from games import staff_kinds
from games.engine.tournament import (
    FORMATS,
    STARTING_CHIPS,
    Out,
    SitAndGo,
    cancellation_shares,
    places,
    prizes_by_place,
)
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


def cancel(
    *,
    tournament_id: int,
    staff_user: User,
    reason: str,
    chips: Mapping[int, int] | None = None,
    token: str | None = None,
) -> dict[int, int]:
    """Staff cancel a sit-and-go (RULES.md §8): before the start every buy-in goes back; after it
    the pool is shared in proportion to the chips each player holds (``chips``: user id -> chips,
    from its table; without one, nobody has played and everyone holds the starting chips). One
    ledger transaction and one line of the staff log, in one database transaction. Returns what
    each player got."""
    staff_user = check_right(staff_user=staff_user, kind=staff_kinds.TOURNAMENT_CANCEL)
    reason = check_reason(reason, message=_("A reason is required to cancel a tournament."))
    token = check_token(token)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
            raise TournamentRefused(_("This tournament has ended already; nothing was changed."))
        entries = sorted(_active_entries(tournament), key=lambda e: (e.seat is None, e.seat or 0, e.pk))
        if tournament.status == Tournament.Status.OPEN:
            shares = {entry.user_id: tournament.buy_in for entry in entries}
        else:
            held = {e.user_id: STARTING_CHIPS for e in entries} if chips is None else dict(chips)
            split = cancellation_shares(
                pool=len(entries) * tournament.buy_in,
                chips={str(e.user_id): held.get(e.user_id, 0) for e in entries},
            )
            shares = {int(player): amount for player, amount in split.items()}
        txn: LedgerTransaction | None = None
        if shares:
            txn = tournament_pay_out(
                tournament_id=tournament.pk,
                amounts=shares,
                idempotency_key=f"sng:{tournament.pk}:cancel",
                memo=f"tournament {tournament.pk} cancelled by staff: {reason}",
                kind=LedgerTransaction.Kind.TOURNAMENT_REFUND,
            )
        for entry in entries:
            entry.prize = shares.get(entry.user_id, 0)
        Entry.objects.bulk_update(entries, ["prize"])
        was_open = tournament.status == Tournament.Status.OPEN
        tournament.status = Tournament.Status.CANCELLED
        tournament.ended_at = timezone.now()
        tournament.cancel_reason = reason
        tournament.save(update_fields=["status", "ended_at", "cancel_reason"])
        record_staff_action(
            staff_user=staff_user,
            kind=staff_kinds.TOURNAMENT_CANCEL,
            reason=reason,
            detail={"tournament": tournament.pk, "before_start": was_open, "shares": sorted(shares.items())},
            token=token,
            ledger_transaction=txn,
        )
        if was_open:  # the lobby always offers one of each format
            open_tournament(sit_and_go=SitAndGo.from_key(tournament.format_key))
    return shares
