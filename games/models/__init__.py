"""Tables, seats and stored hands.

Chips on a seat live in the ledger (the seat's account, accounts.services); a Seat row says only
who sits where and how. A table in play lives in the state store (games.live); these rows are what
it is rebuilt from when the store loses it.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Case, F, Q, Value, When
from django.utils.translation import gettext_lazy as _

from games import kinds
from games.engine import table_rules

# The social models live in their own module; importing it here registers them with the games app.
from games.models.social import ChatMessage as ChatMessage
from games.models.social import ChatMode
from games.models.social import ChatMute as ChatMute
from games.models.social import ChatWord as ChatWord
from games.models.social import Friendship as Friendship
from games.models.social import Ignore as Ignore
from games.models.social import Report as Report
from games.models.social import TableInvitation as TableInvitation
from games.models.tournaments import Entry as Entry
from games.models.tournaments import Tournament as Tournament

# The table's rules live with the engine's; the models and their constraints take them from there.
STAKES, MIN_SEATS, MAX_SEATS = table_rules.STAKES, table_rules.MIN_SEATS, table_rules.MAX_SEATS


# The tables the lobby lists: open, public, of a kind the lobby lists (the condition of the lobby's
# indexes: a kind's answer changing changes them, and makemigrations says so).
LOBBY_TABLES = Q(status="open", private=False, kind__in=kinds.names_where(in_lobby=True))
# Table.wait_rank, the lobby's order: someone waits at a free seat (a hand starts when one more sits
# down), then empty tables, then full ones.
RANK_WAITING, RANK_EMPTY, RANK_FULL = 0, 1, 2


def new_invite_code() -> str:
    return secrets.token_urlsafe(16)


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "open"
        CLOSED = "closed", "closed"

    name = models.CharField(max_length=60)
    stake = models.PositiveIntegerField(choices=[(s, f"{s}") for s in STAKES])
    seat_count = models.PositiveSmallIntegerField(
        default=MIN_SEATS, validators=[MinValueValidator(MIN_SEATS), MaxValueValidator(MAX_SEATS)]
    )
    dark_play = models.BooleanField(default=True)
    turn_seconds = models.PositiveSmallIntegerField(
        default=30, validators=[MinValueValidator(5), MaxValueValidator(120)]
    )
    private = models.BooleanField(default=False)
    invite_code = models.CharField(max_length=40, unique=True, default=new_invite_code, editable=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    # Chosen once, when the table is made: every answer that differs between kinds is its policy's.
    kind = models.CharField(max_length=12, choices=kinds.KIND_CHOICES, default=kinds.CASH.name)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    hands_started = models.PositiveIntegerField(default=0)
    # A database default too: the benchmarks' bulk fills (COPY) name only the columns they know.
    chat = models.CharField(
        max_length=8,
        choices=ChatMode.choices,
        default=ChatMode.EVERYONE,
        db_default=ChatMode.EVERYONE,
        verbose_name=_("chat"),
    )
    # The Seat rows of this table, counted as they are written (games.live.records, the only
    # place a Seat row is made or removed, moves it in the same transaction): the lobby sorts ten
    # thousand open tables by it and would otherwise count every table's seats on each page.
    # A database default too: the benchmarks' bulk fills (COPY) name only the columns they know.
    seats_taken = models.PositiveSmallIntegerField(default=0, db_default=0, editable=False)
    # Where the lobby lists the table (RANK_WAITING...): computed by the database from the two counts,
    # so it can never disagree with them, and indexed with the stake for the lobby's order.
    wait_rank = models.GeneratedField(
        expression=Case(
            When(seats_taken=0, then=Value(RANK_EMPTY)),
            When(seats_taken__gte=F("seat_count"), then=Value(RANK_FULL)),
            default=Value(RANK_WAITING),
        ),
        output_field=models.PositiveSmallIntegerField(),
        db_persist=True,
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(stake__in=STAKES), name="table_stake_allowed"),
            models.CheckConstraint(
                condition=Q(seat_count__gte=MIN_SEATS) & Q(seat_count__lte=MAX_SEATS),
                name="table_seat_count_2_6",
            ),
        ]
        permissions = [("close_table", "Can close a table in play")]
        # The lobby's tables: ten thousand open ones among every table ever opened. Each index
        # serves one ORDER BY from its first row, so a page reads its 30 rows and stops.
        indexes = [
            # The lobby: someone waiting, then empty, then full; the lowest stake first in each.
            models.Index(
                fields=["wait_rank", "stake", "id"], condition=LOBBY_TABLES, name="table_lobby_ranked"
            ),
            # The lobby filtered to one stake, in the same order.
            models.Index(
                fields=["stake", "wait_rank", "id"], condition=LOBBY_TABLES, name="table_lobby_stake"
            ),
            # "Play now": a free seat where the most players wait first, then empty tables.
            models.Index(
                fields=["wait_rank", "-seats_taken", "stake", "id"],
                condition=LOBBY_TABLES,
                name="table_play_now",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk}, stake {self.stake})"

    @property
    def policy(self) -> kinds.TableKind:
        """The answers of the table's kind (games.kinds)."""
        return kinds.kind_named(self.kind)

    @property
    def min_buy_in(self) -> int:
        return table_rules.buy_in_range(self.stake).low

    @property
    def max_buy_in(self) -> int:
        return table_rules.buy_in_range(self.stake).high

    @property
    def default_buy_in(self) -> int:
        return table_rules.buy_in_range(self.stake).default


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seat_rows")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(validators=[MaxValueValidator(MAX_SEATS - 1)])
    sitting_out = models.BooleanField(default=False)
    client_seed = models.CharField(max_length=64, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    # The table's own chips at a kind whose chips are not the wallet's (practice chips; kinds.Chips):
    # kept here, not in the ledger, so a table the store lost is rebuilt with the chips of its last
    # settled hand.
    table_chips = models.PositiveIntegerField(null=True, blank=True)
    bot_level = models.CharField(max_length=10, blank=True, help_text="set when the computer plays this seat")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="one_seat_per_player_per_table"),
            models.UniqueConstraint(fields=["table", "position"], name="one_player_per_seat"),
        ]
        ordering = ["table", "position"]
        permissions = [("remove_player", "Can remove a player from their seat")]

    def __str__(self) -> str:
        return f"{self.user} at {self.table_id}:{self.position}"


class SeedSeries(models.Model):
    """One secret server seed a table deals a run of hands from (RULES.md §6, seed series).

    The hash is shown from the series' first hand on; the seed stays secret (on this row only)
    until the series ends: the last player left, staff closed the table, or a day passed since
    its first hand. Then ``revealed_at`` is set and every hand of the series can be checked.
    """

    class EndReason(models.TextChoices):
        LEFT = "left", "the last player left"
        CLOSED = "closed", "the table was closed"
        EXPIRED = "expired", "24 hours passed"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seed_series")
    number = models.PositiveIntegerField()
    server_seed_hash = models.CharField(max_length=64)
    server_seed = models.CharField(max_length=64)
    started_at = models.DateTimeField()
    revealed_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=10, choices=EndReason.choices, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="one_series_number_per_table"),
            models.UniqueConstraint(
                fields=["table"], condition=Q(revealed_at__isnull=True), name="one_open_series_per_table"
            ),
        ]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"seed series {self.number} at table {self.table_id}"

    @property
    def revealed(self) -> bool:
        return self.revealed_at is not None


class PlayedHand(models.Model):
    """A hand, stored as the hand file of HAND_FORMAT.md with its seeds and result.

    The row is made when the hand starts (status in play, holding the secret seed so a hand
    cancelled by a lost store can still be checked) and completed when it is settled. The seed,
    the decks and the file are shown only once the hand's seed series is revealed; a hand stored
    before series existed has none and was revealed when it ended.

    ``prev_hash`` and ``chain_hash`` link the table's settled hands (games.engine.chain): the
    record holds the previous link's hash, and ``chain_hash`` is the SHA-256 of the record.
    Hands stored before the chain have both empty.
    """

    class Status(models.TextChoices):
        IN_PLAY = "in_play", "in play"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    server_seed_hash = models.CharField(max_length=64)
    server_seed = models.CharField(max_length=64)
    pot = models.PositiveIntegerField(default=0)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    client_seeds = models.JSONField(default=list)
    record = models.JSONField(
        default=dict, blank=True, help_text="the stored hand file, with seeds and result"
    )
    series = models.ForeignKey(
        SeedSeries, null=True, blank=True, on_delete=models.RESTRICT, related_name="hands"
    )
    prev_hash = models.CharField(max_length=64, blank=True)
    chain_hash = models.CharField(max_length=64, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="one_record_per_hand")]
        ordering = ["-started_at"]
        # The staff's list of hands, newest first (the list adds the pk to break ties).
        indexes = [models.Index(fields=["-started_at", "-id"], name="playedhand_recent")]

    def __str__(self) -> str:
        return f"hand {self.number} at table {self.table_id} ({self.status})"

    @property
    def revealed(self) -> bool:
        """Whether its seed, decks and file may be shown: ended, and its series (if any) revealed."""
        if self.status == self.Status.IN_PLAY:
            return False
        return self.series_id is None or self.series.revealed  # type: ignore[union-attr]


class HandPlayer(models.Model):
    """One player's part in a stored hand: for "my hands" and the profile's figures."""

    hand = models.ForeignKey(PlayedHand, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hand_rows")
    position = models.PositiveSmallIntegerField()
    chips_before = models.PositiveIntegerField()
    chips_after = models.PositiveIntegerField()
    won = models.BooleanField(default=False)
    # What the pot paid this player (games.engine.handfile.pots_won): the whole pot to the winner,
    # a share to each tied player of a svara called off; the standings' "biggest pot won".
    pot_won = models.PositiveIntegerField(
        default=0, db_default=0
    )  # a database default: the benchmarks COPY rows naming only the columns they know
    # The hand's start and status, copied here (games.live.records keeps them in step) so that a
    # player's list is read from one index in its order, not sorted through a join of every hand.
    started_at = models.DateTimeField()
    hand_status = models.CharField(max_length=10, choices=PlayedHand.Status.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["hand", "user"], name="one_row_per_player_per_hand")]
        indexes = [
            # A player's page lists their last hands: newest first by hand, from this player's rows
            # only, however long ago they last played.
            models.Index(fields=["user", "-hand"], name="handplayer_user_recent"),
            # "My hands": the player's rows in the list's order (start, then hand).
            models.Index(fields=["user", "-started_at", "-hand"], name="handplayer_user_started"),
        ]

    def save(self, *args, **kwargs) -> None:
        # A row made one at a time (staff tools, tests) takes the copies from its hand.
        if self.started_at is None or not self.hand_status:
            self.started_at, self.hand_status = self.hand.started_at, self.hand.status
        super().save(*args, **kwargs)


class TableEvent(models.Model):
    """What happened at a table, for staff following a dispute: players sitting down, buying in,
    timing out, leaving; staff closing it, removing a player, renaming it; hands cancelled."""

    class Kind(models.TextChoices):
        CLOSED = "closed", _("table closed")
        REMOVED = "removed", _("player removed")
        HAND_CANCELLED = "hand_cancelled", _("hand cancelled")
        RENAMED = "renamed", _("table renamed")
        SETTINGS = "settings", _("settings changed")
        SAT = "sat", _("sat down, bought in")
        BUY_IN = "buy_in", _("added chips")
        LEFT = "left", _("left, cashed out")
        TIMEOUT = "timeout", _("ran out of time")
        TIME_BANK = "time_bank", _("used the time bank")
        SAT_OUT = "sat_out", _("sat out")
        BACK = "back", _("came back")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    staff_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField(blank=True)
    # Chips bought in or cashed out (the seconds, for a time bank drawn); the hand a timeout
    # happened in; a renaming's old and new name.
    # ``reason`` is staff's words (a removal, a closing), empty for what players do.
    amount = models.BigIntegerField(null=True, blank=True)
    hand_number = models.PositiveIntegerField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["table", "-created_at"], name="tableevent_table_recent"),
            models.Index(fields=["user", "-created_at"], name="tableevent_user_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} at table {self.table_id}"


class Standing(models.Model):
    """A player's figures at real tables over one period, for the leaderboards and player pages.

    A summary of the settled hands, kept by ``games.standings`` in each settlement's transaction
    and rebuilt from the stored hands by ``manage.py rebuild_standings``: practice hands are not
    counted. One row per player, period and first day of the period; ``stake`` 0 is every stake,
    and the all-time period also has a row per stake (the player page's favourite stakes).
    """

    class Period(models.TextChoices):
        DAY = "day", "day"
        WEEK = "week", "week"
        MONTH = "month", "month"
        ALL = "all", "all time"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    period = models.CharField(max_length=5, choices=Period.choices)
    starts = models.DateField(help_text="the period's first day (a Monday, the 1st); all time: 2000-01-01")
    stake = models.PositiveIntegerField(default=0, help_text="0: every stake")
    hands = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    net = models.BigIntegerField(default=0, help_text="chips won less chips lost")
    biggest_pot = models.PositiveIntegerField(default=0, help_text="the biggest pot won")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "period", "starts", "stake"], name="standing_one_row"),
        ]
        indexes = [
            # The leaderboards read a period's rows best first, on each of the three boards.
            models.Index(fields=["period", "starts", "stake", "-net"], name="standing_by_net"),
            models.Index(fields=["period", "starts", "stake", "-biggest_pot"], name="standing_by_pot"),
            models.Index(fields=["period", "starts", "stake", "-hands"], name="standing_by_hands"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.period} from {self.starts} at stake {self.stake or 'any'}"
