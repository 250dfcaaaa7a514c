"""What a player's page and the leaderboards show, read from the standings (``games.standings``).

Each page costs a fixed number of queries whatever the history: the figures come from the summary
rows, the chart from the day rows and the wallet's grants, the recent hands from one query.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import DurationField, ExpressionWrapper, F, Sum
from django.db.models.functions import TruncDate, TruncMonth
from django.utils import timezone

from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction, User
from accounts.services.profile import HandStats, MonthLine
from games import kinds
from games.history.service import sees_every_hand
from games.models import HandPlayer, PlayedHand, Standing
from games.players.chart import Chart, chips_chart
from games.standings.periods import ALL_TIME, Period, period_start

RECENT_HANDS = 20
CHART_DAYS = 30
BOARD_SIZE = 20
# Fewer hands than this in the period and a player is not ranked by chips won: two lucky hands
# are not a record.
MIN_HANDS = 20
BOARD_PERIODS = (Period.WEEK, Period.MONTH, Period.ALL)
# Movements that change what a player holds in all (a buy-in or cash-out only moves chips between
# their own wallet and seat; a settled hand is in the day rows).
_GRANTS = (
    LedgerTransaction.Kind.SIGNUP_BONUS,
    LedgerTransaction.Kind.DAILY_BONUS,
    LedgerTransaction.Kind.REFILL,
    LedgerTransaction.Kind.ADJUST,
)


class BadPeriod(ValueError):
    """A leaderboard period the room does not keep."""


# ---------------------------------------------------------------- a player's page


@dataclass(frozen=True)
class Figures:
    hands: int
    won: int
    net: int
    biggest_pot: int
    stakes: list[tuple[int, int]]  # (stake, hands), most played first

    @property
    def favourite_stake(self) -> int | None:
        return self.stakes[0][0] if self.stakes else None


@dataclass(frozen=True)
class RecentHand:
    pk: int
    ended_at: datetime | None
    table_name: str
    number: int
    stake: int
    pot: int
    net: int
    won: bool
    may_replay: bool


@dataclass(frozen=True)
class PlayerPage:
    player: User
    own: bool
    shows_stats: bool
    figures: Figures | None
    chart: Chart | None
    recent: list[RecentHand]


def player_named(*, username: str) -> User | None:
    """The player with this name; the computer's accounts have no page."""
    return User.objects.filter(username=username, computer_level="").first()


def player_page(
    *, player: User, viewer: AbstractBaseUser | AnonymousUser, today: date | None = None
) -> PlayerPage:
    own = viewer.is_authenticated and viewer.pk == player.pk
    if player.stats_hidden and not own:
        return PlayerPage(player=player, own=own, shows_stats=False, figures=None, chart=None, recent=[])
    today = today or timezone.localdate()
    return PlayerPage(
        player=player,
        own=own,
        shows_stats=True,
        figures=figures_of(player=player),
        chart=chart_of(player=player, today=today),
        recent=recent_hands(player=player, viewer=viewer),
    )


def figures_of(*, player: User) -> Figures:
    """All-time figures at real tables and the stakes by hands played (one query)."""
    rows = list(
        Standing.objects.filter(user=player, period=Period.ALL, starts=ALL_TIME).values_list(
            "stake", "hands", "won", "net", "biggest_pot"
        )
    )
    total = next((r for r in rows if r[0] == 0), (0, 0, 0, 0, 0))
    stakes = sorted(((r[0], r[1]) for r in rows if r[0] and r[1]), key=lambda s: (-s[1], s[0]))
    return Figures(hands=total[1], won=total[2], net=total[3], biggest_pot=total[4], stakes=stakes)


def profile_stats(player: User) -> HandStats:
    """The profile's hand figures (accounts.services.profile.hand_stats): the same row as the
    player page's, so the two pages never disagree."""
    figures = figures_of(player=player)
    return HandStats(played=figures.hands, won=figures.won, biggest_pot=figures.biggest_pot)


STATEMENT_MONTHS = 12


def monthly_statement(player: User) -> list[MonthLine]:
    """The profile's monthly statement (accounts.services.profile.monthly_statement): hands and net
    chips from the month standings (every stake), time from the hand records (hands dealt in that
    month and finished; a cancelled hand is not play). Two queries."""
    first = (timezone.localdate().replace(day=1) - timedelta(days=31 * (STATEMENT_MONTHS - 1))).replace(day=1)
    months = {
        starts: [hands, net]
        for starts, hands, net in Standing.objects.filter(
            user=player, period=Period.MONTH, stake=0, starts__gte=first
        ).values_list("starts", "hands", "net")
    }
    played = (
        HandPlayer.objects.filter(user=player, started_at__gte=_start_of(first), hand__ended_at__isnull=False)
        .exclude(hand_status=PlayedHand.Status.CANCELLED)
        .annotate(month=TruncMonth("started_at"))
        .values("month")
        .annotate(
            time=Sum(ExpressionWrapper(F("hand__ended_at") - F("started_at"), output_field=DurationField()))
        )
    )
    minutes = {}
    for row in played:
        month = row["month"].date() if isinstance(row["month"], datetime) else row["month"]
        minutes[month] = int(row["time"].total_seconds() // 60) if row["time"] else 0
    return [
        MonthLine(
            month=month,
            hands=months.get(month, [0, 0])[0],
            minutes=minutes.get(month, 0),
            net=months.get(month, [0, 0])[1],
        )
        for month in sorted(set(months) | set(minutes), reverse=True)
    ]


def _start_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()))


def chart_of(*, player: User, today: date) -> Chart:
    """What the player held in all (wallet and seats) at the end of each of the last 30 days.

    Counted back from what they hold now: a day's change is its hands at real tables (the day
    rows) and the chips the room gave or staff moved (the wallet's grants). Three queries."""
    first = today - timedelta(days=CHART_DAYS - 1)
    held = LedgerAccount.objects.filter(user=player).aggregate(total=Sum("balance"))["total"] or 0
    change: dict[date, int] = {}
    for day, net in Standing.objects.filter(
        user=player, period=Period.DAY, stake=0, starts__gte=first, starts__lte=today
    ).values_list("starts", "net"):
        change[day] = change.get(day, 0) + net
    grants = (
        LedgerEntry.objects.filter(
            account__user=player,
            account__kind=LedgerAccount.Kind.WALLET,
            transaction__kind__in=_GRANTS,
            transaction__created_at__date__gte=first,
        )
        .annotate(day=TruncDate("transaction__created_at"))
        .values_list("day")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    for day, amount in grants:
        change[day] = change.get(day, 0) + amount
    days = [first + timedelta(days=i) for i in range(CHART_DAYS)]
    values = [0] * CHART_DAYS
    end = held
    for i in range(CHART_DAYS - 1, -1, -1):
        values[i] = end
        end -= change.get(days[i], 0)
    return chips_chart(days=days, chips=values)


def recent_hands(*, player: User, viewer: AbstractBaseUser | AnonymousUser) -> list[RecentHand]:
    """The player's last 20 finished hands at public tables (not private, of a kind whose records are public).

    A replay opens only to those who played the hand (and staff), as ``/hands/<id>/`` decides:
    the link is offered where it would open. Two queries (one when the viewer is the player)."""
    rows = list(
        HandPlayer.objects.filter(
            user=player,
            hand__status=PlayedHand.Status.FINISHED,
            hand__table__private=False,
            hand__table__kind__in=kinds.names_where(records_public=True),
        )
        .select_related("hand", "hand__table")
        .order_by("-hand_id")[:RECENT_HANDS]
    )
    ids = [row.hand_id for row in rows]
    if not viewer.is_authenticated:
        mine: set[int] = set()
    elif viewer.pk == player.pk or sees_every_hand(viewer):
        mine = set(ids)
    else:
        mine = set(
            HandPlayer.objects.filter(user_id=viewer.pk, hand_id__in=ids).values_list("hand_id", flat=True)
        )
    return [
        RecentHand(
            pk=row.hand_id,
            ended_at=row.hand.ended_at,
            table_name=row.hand.table.name,
            number=row.hand.number,
            stake=row.hand.table.stake,
            pot=row.hand.pot,
            net=row.chips_after - row.chips_before,
            won=row.won,
            may_replay=row.hand_id in mine,
        )
        for row in rows
    ]


# ---------------------------------------------------------------- the leaderboards


@dataclass(frozen=True)
class Ranked:
    rank: int
    username: str
    value: int
    hands: int


@dataclass(frozen=True)
class Leaderboard:
    period: str
    starts: date
    chips: list[Ranked]  # by chips won, among those with MIN_HANDS or more
    pots: list[Ranked]  # by the biggest pot won
    hands: list[Ranked]  # by hands played


def period_from(raw: str | None) -> str:
    """The period a ``?period=`` asks for: none is this week; anything not kept is refused."""
    if not raw:
        return Period.WEEK
    if raw not in BOARD_PERIODS:
        raise BadPeriod(raw)
    return raw


def leaderboard(*, period: str, today: date | None = None) -> Leaderboard:
    """The period's three boards, the top 20 of each: three queries whatever the room's size.

    The computer's accounts, and players who hide their figures, are left out."""
    if period not in BOARD_PERIODS:
        raise BadPeriod(period)
    starts = period_start(period=period, day=today or timezone.localdate())
    rows = Standing.objects.filter(
        period=period, starts=starts, stake=0, user__computer_level="", user__stats_hidden=False
    )

    def board(query, order: str, value: str) -> list[Ranked]:
        found = query.order_by(f"-{order}", "user__username").values_list("user__username", value, "hands")
        return [
            Ranked(rank=i, username=name, value=v, hands=h)
            for i, (name, v, h) in enumerate(found[:BOARD_SIZE], 1)
        ]

    return Leaderboard(
        period=period,
        starts=starts,
        chips=board(rows.filter(hands__gte=MIN_HANDS), "net", "net"),
        pots=board(rows.filter(biggest_pot__gt=0), "biggest_pot", "biggest_pot"),
        hands=board(rows, "hands", "hands"),
    )
