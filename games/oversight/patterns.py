"""Patterns in the stored hands worth a staff member's look: collusion and chip dumping.

Three lists, computed from the finished hands of a time window (and the ledger's grants), for a
person to review; nothing here bans or flags anyone by itself.

- **Sat together**: two accounts dealt into the same hands far more often than chance. Chance is
  each account's share of the hands at each stake in each hour: had A (a of the N hands at a stake
  in an hour) and B (b of them) sat down at random, B would be in about a * b / N of A's hands. A
  pair is listed when it shared at least ``min_together`` hands, at ``min_sittings`` tables-and-
  hours or more (one long evening at one table is how honest players meet), ``min_ratio`` times
  the expected number, and Poisson's chance of that many is below ``max_chance``.
- **Steady losses**: chips going one way between two accounts, hand after hand. A hand has one
  winner, who takes what the others put in, so what a loser lost went to the winner. Listed when
  the net is at least ``min_net_stakes`` table stakes and, of the hands one lost to the other, the
  loser lost at least ``min_loss_share`` (and at least ``min_lost_hands`` of them).
- **Sign-ups passing chips on**: an account made in the window whose losses went almost all to
  one other account: at least ``min_pass_share`` of what it lost, and of the chips it was granted.

Practice tables (practice chips, the computer) and the computer's accounts are left out. The cost
is bounded whatever the room's history: only the window's hands are read (at most ``MAX_DAYS``),
each list is one grouped query plus a fixed few, and at most ``CANDIDATES`` rows are weighed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Abs, Cast, Concat, Greatest, Least, TruncHour
from django.utils import timezone

from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction, User
from games import kinds
from games.models import HandPlayer, PlayedHand

DAYS = (1, 7, 30)
DEFAULT_DAYS = 7
MAX_DAYS = max(DAYS)
CANDIDATES = 2000  # rows of a grouped query weighed in Python, at most
ROWS = 50  # rows shown per list
# Chips the house gives a player (as opposed to chips won at a table).
GRANTS = (
    LedgerTransaction.Kind.SIGNUP_BONUS,
    LedgerTransaction.Kind.DAILY_BONUS,
    LedgerTransaction.Kind.REFILL,
    LedgerTransaction.Kind.ADJUST,
)


@dataclass(frozen=True)
class Thresholds:
    min_together: int = 20
    min_sittings: int = 3
    min_ratio: float = 3.0
    max_chance: float = 1e-6
    min_lost_hands: int = 10
    min_loss_share: float = 0.75
    min_net_stakes: float = 50.0
    min_pass_share: float = 0.8


@dataclass(frozen=True)
class Player:
    id: int
    name: str


@dataclass(frozen=True)
class SatTogether:
    a: Player
    b: Player
    together: int  # hands both were dealt into
    sittings: int  # at how many tables and hours (a table in a given hour)
    expected: float  # had they sat at random at the stakes they played

    @property
    def ratio(self) -> float:
        return self.together / self.expected if self.expected else math.inf

    @property
    def chance(self) -> float:
        return chance_of_at_least(self.together, self.expected)


@dataclass(frozen=True)
class SteadyLoss:
    loser: Player
    winner: Player
    chips: int  # net chips from the loser to the winner
    stakes: float  # the same in table stakes (hands at different stakes weigh alike)
    lost: int  # hands the loser lost to the winner
    won: int  # hands the winner lost to the loser


@dataclass(frozen=True)
class PassedOn:
    player: Player
    joined: datetime
    granted: int  # chips the house gave the account (sign-up, daily, refills, staff)
    lost: int  # chips it lost in hands
    to: Player
    passed: int  # of them, to ``to``
    hands: int  # hands it lost to ``to``


@dataclass(frozen=True)
class Patterns:
    days: int
    since: datetime
    sat_together: list[SatTogether] = field(default_factory=list)
    steady_losses: list[SteadyLoss] = field(default_factory=list)
    passed_on: list[PassedOn] = field(default_factory=list)


def window_days(value: object) -> int:
    """The window a page asked for (1, 7 or 30 days); anything else is the default."""
    try:
        days = int(str(value))
    except ValueError:
        return DEFAULT_DAYS
    return days if days in DAYS else DEFAULT_DAYS


def chance_of_at_least(observed: int, expected: float) -> float:
    """P(X >= observed) for X Poisson with mean ``expected``: how surprising a count is."""
    if observed <= 0:
        return 1.0
    if expected <= 0:
        return 0.0
    log_pmf = lambda k: k * math.log(expected) - expected - math.lgamma(k + 1)  # noqa: E731
    if observed <= expected:
        return max(0.0, 1.0 - sum(math.exp(log_pmf(k)) for k in range(observed)))
    # The terms fall from ``observed`` on (observed > expected): sum until they stop counting.
    total, k, term = 0.0, observed, math.exp(log_pmf(observed))
    while term > 0 and term >= total * 1e-15:
        total += term
        k += 1
        term *= expected / k
    return min(1.0, total)


def _finished_hands(since: datetime) -> QuerySet[HandPlayer]:
    """Rows of people (not the computer) in the window's finished hands at money tables."""
    return HandPlayer.objects.filter(
        hand__status=PlayedHand.Status.FINISHED,
        hand__started_at__gte=since,
        hand__table__kind__in=kinds.names_where(watched=True),
        user__computer_level="",
    )


def _lost() -> F:
    return F("chips_before") - F("chips_after")


def _lost_to_winner(since: datetime) -> QuerySet[HandPlayer]:
    """Rows of players who lost chips in a hand someone else (not the computer) won."""
    return _finished_hands(since).filter(
        won=False, chips_after__lt=F("chips_before"), hand__winner__computer_level=""
    )


def patterns_worth_a_look(
    *, days: int = DEFAULT_DAYS, now: datetime | None = None, thresholds: Thresholds | None = None
) -> Patterns:
    """The three lists for the last ``days`` days, the most telling rows first. Seven queries."""
    days = window_days(days)
    limits = thresholds or Thresholds()
    since = (now or timezone.now()) - timedelta(days=days)
    sat = _sat_together(since=since, limits=limits)
    steady = _steady_losses(since=since, limits=limits)
    passed = _passed_on(since=since, limits=limits)
    ids = {i for row in sat for i in row[:2]} | {i for row in steady for i in row[:2]}
    ids |= {i for row in passed for i in (row[0], row[3])}
    people = {
        pk: (name, joined)
        for pk, name, joined in User.objects.filter(pk__in=ids).values_list("pk", "username", "date_joined")
    }

    def who(pk: int) -> Player:
        return Player(id=pk, name=people[pk][0])

    return Patterns(
        days=days,
        since=since,
        sat_together=[
            SatTogether(a=who(a), b=who(b), together=n, sittings=t, expected=e) for a, b, n, t, e in sat
        ],
        steady_losses=[
            SteadyLoss(loser=who(lo), winner=who(w), chips=c, stakes=s, lost=nl, won=nw)
            for lo, w, c, s, nl, nw in steady
        ],
        passed_on=[
            PassedOn(player=who(p), joined=people[p][1], granted=g, lost=lost, to=who(to), passed=c, hands=n)
            for p, g, lost, to, c, n in passed
        ],
    )


def _sat_together(*, since: datetime, limits: Thresholds) -> list[tuple[int, int, int, int, float]]:
    # One filter() call: the other player's row is one join, reused by values_list() below.
    sittings = Concat(
        Cast("hand__table_id", CharField()), Value(" "), Cast(TruncHour("hand__started_at"), CharField())
    )
    pairs = list(
        _finished_hands(since)
        .filter(hand__players__user_id__gt=F("user_id"), hand__players__user__computer_level="")
        .values_list("user_id", "hand__players__user_id")
        .annotate(together=Count("pk"), sittings=Count(sittings, distinct=True))
        .filter(together__gte=limits.min_together, sittings__gte=limits.min_sittings)
        .order_by("-together")[:CANDIDATES]
    )
    if not pairs:
        return []
    # Chance, per stake and per hour: two players who only play late at night meet more often
    # than the day's figures say, and that is no sign of anything.
    ids = {pk for a, b, *_ in pairs for pk in (a, b)}
    hour = TruncHour("hand__started_at")
    shares: dict[int, dict[tuple[int, datetime], int]] = {}
    for user_id, stake, at, count in (
        _finished_hands(since)
        .filter(user_id__in=ids)
        .values_list("user_id", "hand__table__stake", hour)
        .annotate(hands=Count("pk"))
        .order_by()
    ):
        shares.setdefault(user_id, {})[(stake, at)] = count
    totals = {
        (stake, at): count
        for stake, at, count in PlayedHand.objects.filter(
            status=PlayedHand.Status.FINISHED,
            started_at__gte=since,
            table__kind__in=kinds.names_where(watched=True),
        )
        .values_list("table__stake", TruncHour("started_at"))
        .annotate(hands=Count("pk"))
        .order_by()
    }
    found = []
    for a, b, together, sat in pairs:
        a_share, b_share = shares.get(a, {}), shares.get(b, {})
        expected = sum(a_share[k] * b_share[k] / totals[k] for k in a_share.keys() & b_share.keys())
        row = SatTogether(
            a=Player(a, ""), b=Player(b, ""), together=together, sittings=sat, expected=expected
        )
        if row.ratio >= limits.min_ratio and row.chance <= limits.max_chance:
            found.append((row.chance, -row.ratio, (a, b, together, sat, expected)))
    found.sort()
    return [row for *_, row in found[:ROWS]]


def _steady_losses(*, since: datetime, limits: Thresholds) -> list[tuple[int, int, int, float, int, int]]:
    # Each pair once (low id, high id), the chips signed from low to high.
    low_lost = Q(user_id__lt=F("hand__winner_id"))
    signed = Case(When(low_lost, then=_lost()), default=-_lost(), output_field=IntegerField())
    in_stakes = Cast(signed, FloatField()) / Cast(F("hand__table__stake"), FloatField())
    rows = (
        _lost_to_winner(since)
        .values_list(Least("user_id", "hand__winner_id"), Greatest("user_id", "hand__winner_id"))
        .annotate(
            chips=Sum(signed),
            stakes=Sum(in_stakes),
            low_lost=Count("pk", filter=low_lost),
            high_lost=Count("pk", filter=~low_lost),
        )
        .annotate(size=Abs("stakes"))
        .filter(size__gte=limits.min_net_stakes)
        .order_by("-size")[:CANDIDATES]
    )
    found = []
    for low, high, chips, stakes, n_low, n_high in (row[:6] for row in rows):
        loser, winner, lost, won = (low, high, n_low, n_high) if chips > 0 else (high, low, n_high, n_low)
        if lost >= limits.min_lost_hands and lost >= limits.min_loss_share * (lost + won):
            found.append((loser, winner, abs(chips), abs(stakes), lost, won))
    return found[:ROWS]


def _passed_on(*, since: datetime, limits: Thresholds) -> list[tuple[int, int, int, int, int, int]]:
    newcomers = User.objects.filter(date_joined__gte=since, computer_level="").values("pk")
    flows = (
        _lost_to_winner(since)
        .filter(user_id__in=newcomers)
        .values_list("user_id", "hand__winner_id")
        .annotate(chips=Sum(_lost()), hands=Count("pk"))
        .order_by("-chips")[:CANDIDATES]
    )
    # Past CANDIDATES rows (a flood of sign-ups) the smallest flows are not read: a newcomer's
    # total loss then counts only its larger ones, which errs towards listing it.
    lost: dict[int, int] = {}
    top: dict[int, tuple[int, int, int]] = {}
    for user_id, to, chips, hands in flows:
        lost[user_id] = lost.get(user_id, 0) + chips
        if user_id not in top:  # the rows come largest first
            top[user_id] = (to, chips, hands)
    if not top:
        return []
    granted = dict(
        LedgerEntry.objects.filter(
            account__kind=LedgerAccount.Kind.WALLET,
            account__user_id__in=list(top),
            transaction__kind__in=GRANTS,
            amount__gt=0,
        )
        .values_list("account__user_id")
        .annotate(chips=Sum("amount"))
        .order_by()
    )
    found = []
    for user_id, (to, chips, hands) in top.items():
        given = granted.get(user_id, 0)
        share = limits.min_pass_share
        if given and chips >= share * given and chips >= share * lost[user_id]:
            found.append((user_id, given, lost[user_id], to, chips, hands))
    found.sort(key=lambda row: -row[4])
    return found[:ROWS]


@dataclass(frozen=True)
class HandTogether:
    hand: PlayedHand
    a_change: int  # chips the first player won (+) or lost (-) in it
    b_change: int


def hands_together(*, a_id: int, b_id: int, days: int = MAX_DAYS, limit: int = 100) -> list[HandTogether]:
    """The window's finished hands both players were dealt into, latest first. One query."""
    since = timezone.now() - timedelta(days=window_days(days))

    def change(user_id: int) -> Subquery:
        row = HandPlayer.objects.filter(hand=OuterRef("pk"), user_id=user_id)
        return Subquery(row.values(change=F("chips_after") - F("chips_before"))[:1])

    hands = (
        PlayedHand.objects.filter(status=PlayedHand.Status.FINISHED, started_at__gte=since)
        .filter(players__user_id=a_id)
        .filter(players__user_id=b_id)
        .select_related("table", "winner")
        .defer("record", "server_seed", "client_seeds")
        .annotate(a_change=change(a_id), b_change=change(b_id))
        .order_by("-started_at", "-pk")[:limit]
    )
    return [HandTogether(hand=h, a_change=h.a_change, b_change=h.b_change) for h in hands]
