"""The standings computed afresh from the stored hands (``manage.py rebuild_standings``).

What the settlement counts, counted again: every finished hand at a table of a kind the standings
count (games.kinds: not practice), each player's chips won from their row of the hand (chips after
less before, the amounts the ledger's settlement moved in the same transaction), the stake from the
stored hand file (a table's stake may have changed since), the day from the hand's end. For a
summary that went wrong, or a database filled before the summary existed.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db import connection, transaction
from django.db.models import Count, DateField, F, IntegerField, Max, Q, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, TruncDate, TruncMonth, TruncWeek

from games import kinds
from games.models import HandPlayer, PlayedHand, Standing
from games.standings.periods import ALL_TIME, Period

_BATCH = 5000

_FIGURES = {
    "hands": Count("pk"),
    # Won: the pot paid the player (all of it, or a share of a svara called off: pot_won).
    "won_hands": Count("pk", filter=Q(pot_won__gt=0)),
    "net_chips": Sum(F("chips_after") - F("chips_before")),
    "pot": Max("pot_won"),
}
# As the migration that brought the standings in counted them, before hand rows kept pot_won
# (games 0016): the winner's whole pot.
_FIGURES_BEFORE_POT_WON = {
    **_FIGURES,
    "won_hands": Count("pk", filter=Q(won=True)),
    "pot": Max("hand__pot", filter=Q(won=True)),
}


def _figures(hand_player: type[HandPlayer]) -> dict:
    names = {field.name for field in hand_player._meta.get_fields()}
    return _FIGURES if "pot_won" in names else _FIGURES_BEFORE_POT_WON


_TRUNCATE = {Period.DAY: TruncDate, Period.WEEK: TruncWeek, Period.MONTH: TruncMonth}


def counted_tables() -> Q:
    """The hands' tables the standings count: of a kind they count (games.kinds)."""
    return Q(hand__table__kind__in=kinds.names_where(counted=True))


def _rows(hand_player: type[HandPlayer], tables: Q | None = None) -> Iterator[dict]:
    figures = _figures(hand_player)
    tables = counted_tables() if tables is None else tables
    counted = hand_player.objects.filter(tables, hand__status=PlayedHand.Status.FINISHED)
    for period, trunc in _TRUNCATE.items():
        grouped = (
            counted.annotate(first_day=trunc("hand__ended_at", output_field=DateField()))
            .values("user_id", "first_day")
            .annotate(**figures)
            .order_by()
        )
        for row in grouped.iterator():
            yield _standing(row, period=period, starts=row["first_day"], stake=0)
    for row in counted.values("user_id").annotate(**figures).order_by().iterator():
        yield _standing(row, period=Period.ALL, starts=ALL_TIME, stake=0)
    by_stake = (
        counted.annotate(hand_stake=Cast(KeyTextTransform("stake", "hand__record"), IntegerField()))
        .values("user_id", "hand_stake")
        .annotate(**figures)
        .order_by()
    )
    for row in by_stake.iterator():
        yield _standing(row, period=Period.ALL, starts=ALL_TIME, stake=row["hand_stake"])


def _standing(row: dict, *, period: str, starts: object, stake: int) -> dict:
    return dict(
        user_id=row["user_id"],
        period=period,
        starts=starts,
        stake=stake,
        hands=row["hands"],
        won=row["won_hands"],
        net=row["net_chips"] or 0,
        biggest_pot=row["pot"] or 0,
    )


def rebuild_standings(
    *,
    hand_player: type[HandPlayer] = HandPlayer,
    standing: type[Standing] = Standing,
    tables: Q | None = None,
) -> int:
    """Replace every standing with one counted from the stored hands; the number of rows written.
    ``tables``: which hands' tables count (``counted_tables()``; a migration's models say it their way).

    On PostgreSQL the summary is locked first: a settlement that has already counted its hand is
    waited for (then its hand is read here), one that has not waits and counts after (its hand is
    not yet visible here), so no hand is counted twice or lost."""
    written = 0
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    f"LOCK TABLE {connection.ops.quote_name(standing._meta.db_table)} IN EXCLUSIVE MODE"
                )
        standing.objects.all().delete()
        batch = []
        for fields in _rows(hand_player, tables):
            batch.append(standing(**fields))
            if len(batch) >= _BATCH:
                standing.objects.bulk_create(batch)
                written += len(batch)
                batch = []
        standing.objects.bulk_create(batch)
        written += len(batch)
    return written


_KEY = ("user_id", "period", "starts", "stake")
_VALUES = ("hands", "won", "net", "biggest_pot")


def standings_differences(*, limit: int = 20) -> tuple[int, list[str]]:
    """How many rows of the summary differ from a fresh count (missing, extra or other figures),
    and the first ``limit`` of them in words; nothing is written."""
    fresh = {tuple(row[k] for k in _KEY): tuple(row[v] for v in _VALUES) for row in _rows(HandPlayer)}
    kept = {
        tuple(row[:4]): tuple(row[4:]) for row in Standing.objects.values_list(*_KEY, *_VALUES).iterator()
    }
    differing = sorted(
        (key for key in fresh.keys() | kept.keys() if fresh.get(key) != kept.get(key)),
        key=lambda key: (key[0], key[1], str(key[2]), key[3]),
    )
    words = [
        f"player {key[0]}, {key[1]} from {key[2]}, stake {key[3] or 'any'}: "
        f"kept {kept.get(key)}, counted {fresh.get(key)} (hands, won, net, biggest pot)"
        for key in differing[:limit]
    ]
    return len(differing), words
