"""The database side of tables in play (synchronous; the service calls it through
``database_sync_to_async``). Chips move only through the ledger services of accounts.

Every function here is safe to run twice (but ``begin_hand_record``, which numbers a new hand
each time): settlement and cash-outs carry idempotency keys, and records are written as upserts,
because the store and the database are two systems and a process may die between them. The
caller repeats the step and gets the same outcome.

A hand costs about 20 statements (7 to start it, 9 for the first hand of a seed series; 14 to
settle it, whatever the number of players): they run on the server's one database thread, so the
players' rows are written in bulk and nothing just written is read back.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import (
    LedgerError,
    ensure_may_play,
    ensure_not_banned,
    hand_settle,
    seat_balance,
    seat_buy_in,
    seat_cash_out,
)
from accounts.services.responsible import play_time_limits, play_time_refusal
from games import kinds
from games.engine.chain import GENESIS, record_with_link
from games.engine.hand import Hand
from games.engine.handfile import hand_file_of, hand_result, pots_won
from games.engine.table_rules import can_be_dealt_in
from games.live import events, metrics, series, settled
from games.live.document import Refused, seat_entry
from games.live.seat_rows import add_seat_row, remove_seat_rows
from games.live.transitions import ready_positions
from games.models import HandPlayer, PlayedHand, Seat, SeedSeries, Table, TableEvent
from games.standings.counting import count_hand


def table_settings(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "stake": table.stake,
        "seat_count": table.seat_count,
        "dark_play": table.dark_play,
        "turn_seconds": table.turn_seconds,
        "status": table.status,
        "private": table.private,
        "kind": table.kind,
        # The room's time bank, where the kind has one (a practice table's player picks the turn).
        "time_bank": settings.LIVE_TIME_BANK_SECONDS if table.policy.time_bank else 0,
    }


def load_table(table_id: int) -> Table:
    try:
        return Table.objects.get(pk=table_id)
    except Table.DoesNotExist:
        raise Refused(_("there is no such table")) from None


def seats_from_db(table: Table) -> list[dict[str, Any] | None]:
    """The seat list of a table as the database has it, chips from the ledger (or the seat rows,
    at a kind whose chips are the table's own)."""
    seats: list[dict[str, Any] | None] = [None] * table.seat_count
    money = table.policy.money
    for seat in Seat.objects.filter(table=table).select_related("user"):
        chips = seat_balance(user=seat.user, table_id=table.pk) if money else seat.table_chips or 0
        seats[seat.position] = seat_entry(
            user_id=seat.user_id,
            # The computer's seat shows "Computer (hard)"; usernames cannot hold spaces or brackets.
            name=(seat.bot_level and seat.user.first_name) or seat.user.get_username(),
            chips=chips,
            client_seed=seat.client_seed,
            sitting_out=seat.sitting_out or not can_be_dealt_in(chips=chips, stake=table.stake),
            bot=seat.bot_level,
            face=seat.user.face,
        )
    return seats


# ---------------------------------------------------------------- seats


def sit_down(*, user: User, table_id: int, position: int, buy_in: int) -> dict[str, Any]:
    """Take a free seat and buy in from the wallet (RULES.md §3: 20 S to 100 S).

    The table's row is locked while its settings are checked and the seat is bought: staff
    changing the stake takes the same lock, so a buy-in never goes by settings just replaced."""
    try:
        ensure_not_banned(user=user)
        ensure_may_play(user=user)  # a time-out or self-exclusion (responsible play)
    except LedgerError as exc:
        raise Refused(str(exc)) from None
    out_of_time = out_of_play_time(user_ids=[user.pk]).get(user.pk)
    if out_of_time is not None:
        raise Refused(out_of_time)
    try:
        with transaction.atomic():
            table = Table.objects.select_for_update().filter(pk=table_id).first()
            if table is None:
                raise Refused(_("there is no such table"))
            _check_sitting(table=table, position=position, buy_in=buy_in)
            if Seat.objects.filter(table=table, user=user).exists():
                raise Refused(_("you already have a seat at this table"))
            add_seat_row(table=table, user=user, position=position)
            already = seat_balance(user=user, table_id=table.pk)
            if already + buy_in > table.max_buy_in:
                raise Refused(
                    _("at most %(most)s chips on a seat; you have %(have)s there")
                    % {"most": table.max_buy_in, "have": already}
                )
            seat_buy_in(user=user, table_id=table.pk, amount=buy_in, idempotency_key=f"sit:{uuid.uuid4()}")
            events.record_sat(table_id=table.pk, user_id=user.pk, position=position, buy_in=buy_in)
    except IntegrityError:
        raise Refused(_("that seat was just taken"), code="seat_taken") from None
    except LedgerError as exc:
        raise Refused(str(exc)) from None
    chips = seat_balance(user=user, table_id=table.pk)
    return seat_entry(user_id=user.pk, name=user.get_username(), chips=chips, face=user.face)


def _check_sitting(*, table: Table, position: int, buy_in: int) -> None:
    if table.status != Table.Status.OPEN:
        raise Refused(_("this table is closed"))
    if (refusal := table.policy.sit_refusal) is not None:
        raise Refused(str(refusal))
    if not isinstance(position, int) or not 0 <= position < table.seat_count:
        raise Refused(_("there is no such seat"))
    if not isinstance(buy_in, int) or not table.min_buy_in <= buy_in <= table.max_buy_in:
        raise Refused(
            _("the buy-in is between %(low)s and %(high)s chips")
            % {"low": table.min_buy_in, "high": table.max_buy_in}
        )


def add_chips(*, user: User, table_id: int, amount: int) -> int:
    """Buy more chips onto the player's seat, up to the table's most (RULES.md §3: 100 S).

    The seat's row is locked while its balance is read, checked against the limit and moved, so
    concurrent adds cannot each see room that only one of them has (SQLite: the IMMEDIATE
    transaction takes the write lock at its start, which serialises them the same way)."""
    table = load_table(table_id)
    if (refusal := table.policy.add_refusal) is not None:
        raise Refused(str(refusal))
    if not isinstance(amount, int) or amount <= 0:
        raise Refused(_("add a positive whole number of chips"))
    try:
        ensure_may_play(user=user)
        with transaction.atomic():
            if not Seat.objects.select_for_update().filter(table=table, user=user).exists():
                raise Refused(_("you are not seated at this table"))
            have = seat_balance(user=user, table_id=table.pk)
            if have + amount > table.max_buy_in:
                raise Refused(
                    _("at most %(most)s chips on a seat; you have %(have)s")
                    % {"most": table.max_buy_in, "have": have}
                )
            seat_buy_in(user=user, table_id=table.pk, amount=amount, idempotency_key=f"add:{uuid.uuid4()}")
            events.record_chips_added(table_id=table.pk, user_id=user.pk, amount=amount)
            return seat_balance(user=user, table_id=table.pk)
    except LedgerError as exc:
        raise Refused(str(exc)) from None


def leave_seat(*, user_id: int, table_id: int, key: str) -> None:
    """Cash the seat's chips out to the wallet and free the seat (idempotent by ``key``)."""
    user = User.objects.get(pk=user_id)
    with transaction.atomic():
        # The seat first: it locks the table's row before the ledger's, in sit_down's order.
        deleted = remove_seat_rows(table_id=table_id, user_id=user.pk)
        balance = seat_balance(user=user, table_id=table_id)
        if balance > 0:
            seat_cash_out(user=user, table_id=table_id, idempotency_key=key)
        if deleted:  # a repeat (the same key) frees nothing and records nothing
            events.record_left(table_id=table_id, user_id=user_id, cashed_out=balance)
            if not Seat.objects.filter(table_id=table_id).exists():
                # The last player left: the seed series ends and its seed is revealed (RULES.md §6).
                series.end_series(table_id=table_id, reason=SeedSeries.EndReason.LEFT)


def _played_today(*, user_ids: Sequence[int], now: datetime) -> dict[int, timedelta]:
    """How long each of these players has played today: the length of the hands they were dealt in
    since midnight (a hand in play counts up to now)."""
    midnight = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    played: dict[int, timedelta] = defaultdict(timedelta)
    rows = HandPlayer.objects.filter(user_id__in=list(user_ids), started_at__gte=midnight).exclude(
        hand_status=PlayedHand.Status.CANCELLED
    )
    for user_id, started, ended in rows.values_list("user_id", "started_at", "hand__ended_at"):
        played[user_id] += (ended or now) - started
    return played


def out_of_play_time(*, user_ids: Sequence[int]) -> dict[int, str]:
    """The players among these whose play today has reached their daily play-time limit, each with
    the message saying so (responsible play). One query when none has a limit: the service asks it
    before every hand."""
    limits = play_time_limits(user_ids=list(user_ids))
    if not limits:
        return {}
    now = timezone.now()
    played = _played_today(user_ids=list(limits), now=now)
    refusals = {
        user_id: play_time_refusal(played=played[user_id], limit_minutes=minutes, now=now)
        for user_id, minutes in limits.items()
    }
    return {user_id: message for user_id, message in refusals.items() if message is not None}


@dataclass(frozen=True)
class PlayTimeLeft:
    """A player's play time left today under their daily limit, and whether a hand of theirs is
    in play (only then does it run down)."""

    left: timedelta
    running: bool


def play_time_left(*, user_id: int, now: datetime | None = None) -> PlayTimeLeft | None:
    """The player's play time left today (at most zero once reached); None without a limit. The
    table socket asks it as the player's hands start and end, and pages as they load, for the
    warnings before the limit (responsible play)."""
    limit = play_time_limits(user_ids=[user_id], now=now).get(user_id)
    if limit is None:
        return None
    now = now or timezone.now()
    played = _played_today(user_ids=[user_id], now=now)[user_id]
    running = HandPlayer.objects.filter(
        user_id=user_id, hand__ended_at__isnull=True, hand_status=PlayedHand.Status.IN_PLAY
    ).exists()
    return PlayTimeLeft(left=timedelta(minutes=limit) - played, running=running)


def seated_table_ids(*, user_id: int) -> list[int]:
    return sorted(Seat.objects.filter(user_id=user_id).values_list("table_id", flat=True))


def save_seat_flags(*, user_id: int, table_id: int, **fields: Any) -> None:
    Seat.objects.filter(table_id=table_id, user_id=user_id).update(**fields)


# ---------------------------------------------------------------- hands


@dataclass(frozen=True)
class Lineup:
    """Who a hand deals in, as the start record needs it: user ids, seat positions, starting
    chips and client seeds, in the hand's seat order."""

    players: tuple[int, ...]
    positions: tuple[int, ...]
    chips: tuple[int, ...]
    client_seeds: tuple[str, ...]

    @classmethod
    def of_doc(cls, doc: dict[str, Any]) -> Lineup:
        """Who ``table.start_hand`` will deal in if the table stays as it is in ``doc``."""
        positions = ready_positions(doc)
        seats = [doc["seats"][p] for p in positions]
        return cls(
            players=tuple(seat["user_id"] for seat in seats),
            positions=tuple(positions),
            chips=tuple(seat["chips"] for seat in seats),
            client_seeds=tuple(seat["client_seed"] for seat in seats),
        )

    @classmethod
    def of_hand(cls, hand: dict[str, Any]) -> Lineup:
        """Who the hand in the store deals in (the document's ``hand``)."""
        return cls(
            players=tuple(hand["players"]),
            positions=tuple(hand["positions"]),
            chips=tuple(Hand.from_json(hand["state"]).starting_chips),
            client_seeds=tuple(hand["client_seeds"]),
        )


def _next_hand_number(table_id: int) -> int:
    # One statement where the ORM needs two (an F() update, then a read back): UPDATE ... RETURNING
    # (PostgreSQL; SQLite since 3.35). The row stays locked until the caller's block ends, so two
    # processes numbering the same table's hand get different numbers.
    quote = connection.ops.quote_name
    table, counter = quote(Table._meta.db_table), quote("hands_started")
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {counter} = {counter} + 1 WHERE {quote('id')} = %s RETURNING {counter}",
            [table_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"no table {table_id}")
    return int(row[0])


def _player_rows(*, record: PlayedHand, lineup: Lineup) -> list[HandPlayer]:
    return [
        HandPlayer(
            hand=record,
            user_id=uid,
            position=pos,
            chips_before=chips,
            chips_after=chips,
            started_at=record.started_at,
            hand_status=record.status,
        )
        for uid, pos, chips in zip(lineup.players, lineup.positions, lineup.chips, strict=True)
    ]


class OutOfPlayTime(Exception):
    """Players of the lineup have reached their daily play-time limit: no hand was numbered; the
    service sits them out and starts the hand again without them."""

    def __init__(self, user_ids: list[int]) -> None:
        super().__init__(f"out of play time: {user_ids}")
        self.user_ids = user_ids


def begin_hand_record(*, table_id: int, lineup: Lineup | None = None) -> tuple[int, datetime, str]:
    """Number the next hand (the fair-deck nonce), record that it is in play, and return its
    number, start and server seed: the seed of the table's seed series (series.py), opened here
    for the first hand of a series.

    With ``lineup`` (who the service expects to deal in) the record is complete in this one
    transaction: client seeds and a row per player, so a hand that is later cancelled still shows
    in each player's history. If the store then deals someone else in (the table changed in
    between), the service calls ``record_hand_start`` to put it right; if the store write loses,
    ``abandon_hand_record``. Each call numbers a new hand; a number nobody deals stays cancelled.
    (Should the process die before that correction, ``settle_hand`` still rewrites the rows of
    those who played; a row for someone who was not dealt in would stay, showing a hand at
    break-even: accepted, as the window is a few milliseconds after a table change.)
    """
    if lineup is not None:
        # In this same trip to the database: one statement when nobody dealt in has a limit.
        out_of_time = out_of_play_time(user_ids=lineup.players)
        if out_of_time:
            raise OutOfPlayTime(sorted(out_of_time))
    with transaction.atomic():
        number = _next_hand_number(table_id)
        started = timezone.now()
        dealing = series.series_for_next_hand(table_id=table_id, now=started)
        record = PlayedHand.objects.create(
            table_id=table_id,
            number=number,
            status=PlayedHand.Status.IN_PLAY,
            started_at=started,
            series=dealing,
            server_seed=dealing.server_seed,
            server_seed_hash=dealing.server_seed_hash,
            client_seeds=list(lineup.client_seeds) if lineup else [],
        )
        if lineup is not None:
            HandPlayer.objects.bulk_create(_player_rows(record=record, lineup=lineup))
    return number, started, dealing.server_seed


def record_hand_start(*, table_id: int, hand: dict[str, Any]) -> None:
    """The hand reached the store: make its record say who really plays it and their seeds.

    Safe to repeat, and it corrects a record made with another lineup: rows of players not in
    the hand go, the others are written over (the hand has not been settled; ``settle_hand``
    writes them again anyway).
    """
    lineup = Lineup.of_hand(hand)
    with transaction.atomic():
        record = PlayedHand.objects.select_for_update().get(table_id=table_id, number=hand["number"])
        if record.status != PlayedHand.Status.IN_PLAY:
            return  # settled or cancelled meanwhile: that record is final
        record.client_seeds = list(lineup.client_seeds)
        record.save(update_fields=["client_seeds"])
        HandPlayer.objects.filter(hand=record).exclude(user_id__in=lineup.players).delete()
        HandPlayer.objects.bulk_create(
            _player_rows(record=record, lineup=lineup),
            update_conflicts=True,
            unique_fields=["hand", "user"],
            update_fields=["position", "chips_before", "chips_after"],
        )


def abandon_hand_record(*, table_id: int, number: int) -> None:
    """A numbered hand that never reached the store (the write lost a race): cancelled, and
    nobody played it, so it leaves no row in anyone's history."""
    with transaction.atomic():
        HandPlayer.objects.filter(
            hand__table_id=table_id, hand__number=number, hand__status=PlayedHand.Status.IN_PLAY
        ).delete()
        PlayedHand.objects.filter(table_id=table_id, number=number, status=PlayedHand.Status.IN_PLAY).update(
            status=PlayedHand.Status.CANCELLED, ended_at=timezone.now()
        )


def stored_hand(*, table_id: int, ended: dict[str, Any], series_number: int | None = None) -> dict[str, Any]:
    """The hand file of HAND_FORMAT.md with the site's extra keys (the chain link is added when
    it is settled: ``settle_hand``)."""
    hand = Hand.from_json(ended["state"])
    return {
        **hand_file_of(hand),
        "hand_id": f"{table_id}-{ended['number']}",
        "table": table_id,
        "started_at": ended["started_at"],
        "server_seed_hash": ended["seed_hash"],
        "server_seed": ended["server_seed"],
        "client_seeds": ended["client_seeds"],
        "nonce": ended["number"],
        "series": series_number,
        "result": hand_result(hand, refused=[]),
    }


def settle_hand(*, table_id: int, ended: dict[str, Any]) -> None:
    """One transaction: the hand settled, published to its subscribers (games/live/settled.py:
    the chips, the stored hand with each player's row, the standings).

    About a dozen statements whatever the number of players (bulk writes; the record is locked
    and the table's kind read in one query): settlement runs on the server's one
    database thread. Safe to repeat: a finished record means it was settled, and the ledger's
    idempotency key would refuse to move the chips twice anyway.
    """
    hand = Hand.from_json(ended["state"])
    number = ended["number"]
    players: list[int] = ended["players"]
    with transaction.atomic():
        # The record's row lock makes a concurrent settle of the same hand wait, then see it finished.
        found = (
            PlayedHand.objects.select_for_update(of=("self",))
            .filter(table_id=table_id, number=number)
            .values_list("pk", "status", "table__kind", "series_id", "series__number", "started_at")
            .first()
        )
        if found is not None and found[1] == PlayedHand.Status.FINISHED:
            return  # settled already (a retry after a crash)
        # Without its start record (it was lost), the table's kind read on its own.
        stored_kind = (
            found[2] if found else Table.objects.filter(pk=table_id).values_list("kind", flat=True).first()
        )
        kind = kinds.kind_named(stored_kind or kinds.CASH.name)
        series_id, series_number = (found[3], found[4]) if found else _series_of(table_id, ended)
        settled.publish(
            settled.HandSettled(
                table_id=table_id,
                number=number,
                ended=ended,
                hand=hand,
                players=players,
                deltas={uid: hand.chips[i] - hand.starting_chips[i] for i, uid in enumerate(players)},
                pots_won={players[seat]: chips for seat, chips in pots_won(hand).items()},
                kind=kind,
                series_id=series_id,
                series_number=series_number,
                record_id=found[0] if found else None,
                started_at=found[5] if found else None,
                ended_at=timezone.now(),
            )
        )


# The parts that keep something of a settled hand, in the order they are told: the chips first
# (the ledger refuses a hand settled twice), then the stored hand and its players' rows, the
# room's counts, then the standings (a part below games.live, subscribed here where games.live
# uses them).


@settled.subscribe("chips")
def _move_chips(event: settled.HandSettled) -> None:
    """The result's chips: through the ledger, or on the seat rows where the kind's chips are the
    table's own."""
    hand, table_id = event.hand, event.table_id
    if not event.kind.money:
        # The table's own chips are not money: they live on the seat rows, never in the ledger.
        for i, uid in enumerate(event.players):
            Seat.objects.filter(table_id=table_id, user_id=uid).update(table_chips=hand.chips[i])
    elif any(event.deltas.values()):
        hand_settle(
            table_id=table_id,
            deltas=event.deltas,
            idempotency_key=f"hand:{table_id}:{event.number}",
            memo=f"hand {event.number} at table {table_id}",
        )


@settled.subscribe("stored hand")
def _store_hand(event: settled.HandSettled) -> None:
    """The hand file on the table's hash chain, and each player's row of the hand."""
    hand, table_id, ended, players = event.hand, event.table_id, event.ended, event.players
    prev_hash = chain_head(table_id) or GENESIS
    stored, chain_hash = record_with_link(
        stored_hand(table_id=table_id, ended=ended, series_number=event.series_number), prev_hash=prev_hash
    )
    fields = {
        "status": PlayedHand.Status.FINISHED,
        "ended_at": event.ended_at,
        "pot": hand.pot,
        "winner_id": players[hand.winner] if hand.winner is not None else None,  # None: called off
        "record": stored,
        "client_seeds": ended["client_seeds"],
        "server_seed": ended["server_seed"],
        "server_seed_hash": ended["seed_hash"],
        "series_id": event.series_id,
        "prev_hash": prev_hash,
        "chain_hash": chain_hash,
    }
    if event.record_id is None or event.started_at is None:
        started = timezone.now()
        record = PlayedHand.objects.create(
            table_id=table_id, number=event.number, started_at=started, **fields
        )
    else:
        record, started = PlayedHand(pk=event.record_id), event.started_at
        PlayedHand.objects.filter(pk=record.pk).update(**fields)
    HandPlayer.objects.bulk_create(
        [
            HandPlayer(
                hand=record,
                user_id=uid,
                position=ended["positions"][i],
                chips_before=hand.starting_chips[i],
                chips_after=hand.chips[i],
                won=i == hand.winner,
                pot_won=event.pots_won.get(uid, 0),
                started_at=started,
                hand_status=PlayedHand.Status.FINISHED,
            )
            for i, uid in enumerate(players)
        ],
        # One statement for every player: the rows written at the start are brought up to date.
        update_conflicts=True,
        unique_fields=["hand", "user"],
        update_fields=["position", "chips_before", "chips_after", "won", "pot_won", "hand_status"],
    )


@settled.subscribe("counts")
def _count_settled(event: settled.HandSettled) -> None:
    """The room's count of hands settled (``/metrics``): once the settlement is committed, so a
    settlement rolled back (and retried) is counted once."""
    kind = event.kind.name
    transaction.on_commit(lambda: metrics.HANDS_SETTLED.labels(kind=kind).inc())


@settled.subscribe("standings")
def _count_in_standings(event: settled.HandSettled) -> None:
    """The leaderboards' and player pages' summary (only the kinds whose hands count)."""
    if not event.kind.counted:
        return
    hand = event.hand
    count_hand(
        at=event.ended_at,
        stake=hand.stake,
        pot=hand.pot,
        winner_id=event.players[hand.winner] if hand.winner is not None else None,
        nets=event.deltas,
        pots_won=event.pots_won,
    )


def chain_head(table_id: int) -> str:
    """The link hash of the table's last settled hand on the chain ("" before the first)."""
    head = (
        PlayedHand.objects.filter(table_id=table_id, status=PlayedHand.Status.FINISHED)
        .exclude(chain_hash="")
        .order_by("-number")
        .values_list("chain_hash", flat=True)
        .first()
    )
    return head or ""


def _series_of(table_id: int, ended: dict[str, Any]) -> tuple[int | None, int | None]:
    # A hand settled without its start record (it was lost): its series by the hash it showed.
    found = SeedSeries.objects.filter(table_id=table_id, server_seed_hash=ended["seed_hash"]).first()
    return (found.pk, found.number) if found else (None, None)


def close_own_table(*, table_id: int) -> None:
    """A table that was its player's alone closed (kinds.Leaving.CLOSES_TABLE): its seats go (its
    chips are not money, nothing is cashed out) and its seed series ends."""
    with transaction.atomic():
        closes = kinds.names_where(leaving=kinds.Leaving.CLOSES_TABLE)
        Table.objects.filter(pk=table_id, kind__in=closes).update(status=Table.Status.CLOSED)
        remove_seat_rows(table_id=table_id)
        # A hand left in play is cancelled first: a series is never revealed under a hand in play.
        cancel_open_hands(table_id=table_id, reason="the practice table was closed")
        series.end_series(table_id=table_id, reason=SeedSeries.EndReason.CLOSED)


def tables_in_play() -> list[int]:
    """Open tables the store should hold: a hand in play, or at least two seats not sitting out
    (their next hand is due). Two indexed queries, whatever the number of tables."""
    with_hands = PlayedHand.objects.filter(status=PlayedHand.Status.IN_PLAY).values("table_id")
    ready = (
        Seat.objects.filter(sitting_out=False, table__status=Table.Status.OPEN)
        .values("table_id")
        .annotate(ready=Count("pk"))
        .filter(ready__gte=2)
        .values("table_id")
    )
    ids = Table.objects.filter(status=Table.Status.OPEN).filter(Q(pk__in=with_hands) | Q(pk__in=ready))
    return sorted(ids.values_list("pk", flat=True))


def open_hand_numbers(*, table_id: int, numbered_up_to: int | None = None) -> list[int]:
    """The table's hands in play in the database (up to a number, when given)."""
    hands = PlayedHand.objects.filter(table_id=table_id, status=PlayedHand.Status.IN_PLAY)
    if numbered_up_to is not None:
        hands = hands.filter(number__lte=numbered_up_to)
    return list(hands.order_by("number").values_list("number", flat=True))


def cancel_open_hands(
    *, table_id: int, reason: str, staff_user: User | None = None, numbered_up_to: int | None = None
) -> list[int]:
    """Hands in play that the store no longer has: cancelled; the ledger never moved for them.

    ``numbered_up_to``: only hands numbered up to then (a rebuilt table may deal newer ones)."""
    with transaction.atomic():
        numbers = open_hand_numbers(table_id=table_id, numbered_up_to=numbered_up_to)
        if numbers:
            PlayedHand.objects.filter(table_id=table_id, number__in=numbers).update(
                status=PlayedHand.Status.CANCELLED, ended_at=timezone.now()
            )
            HandPlayer.objects.filter(hand__table_id=table_id, hand__number__in=numbers).update(
                hand_status=PlayedHand.Status.CANCELLED
            )
            TableEvent.objects.create(
                table_id=table_id,
                kind=TableEvent.Kind.HAND_CANCELLED,
                staff_user=staff_user,
                reason=f"hand {', '.join(map(str, numbers))}: {reason}",
            )
    return numbers
