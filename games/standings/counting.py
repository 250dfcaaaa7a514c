"""Counting one settled hand into the standings, inside the settlement's transaction.

One statement whatever the number of players: an upsert of five rows a player (day, week, month,
all time, all time at this stake) that adds to the counts in place, so two settlements at once
never lose each other's hand. The rows go in a fixed order, so two settlements sharing a player
take their row locks in the same order and cannot deadlock each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from django.db import connection

from games.models import Standing
from games.standings.periods import Period, starts_of

_COLUMNS = ("user_id", "period", "starts", "stake", "hands", "won", "net", "biggest_pot")


def count_hand(
    *,
    at: datetime,
    stake: int,
    pot: int,
    winner_id: int | None,
    nets: Mapping[int, int],
    pots_won: Mapping[int, int] | None = None,
) -> None:
    """Add a hand settled at ``at`` to each of its players' rows.

    ``nets``: user id to chips won (negative: lost) in the hand. ``pots_won``: user id to what the
    pot paid them (games.engine.handfile.pots_won: the whole pot to the winner, a share to each
    tied player of a svara called off); without it, ``pot`` to ``winner_id``. A hand counts as won
    by whoever the pot paid, and the biggest pot won is the most one hand's pot paid the player.
    The settlement calls this for the kinds of table the standings count (games.kinds: not practice).
    """
    if not nets:
        return
    paid = pots_won if pots_won is not None else ({winner_id: pot} if winner_id is not None else {})
    starts = starts_of(at)
    rows = []
    for user_id, net in nets.items():
        took = paid.get(user_id, 0)
        figures = (1, int(took > 0), int(net), took)
        for period, first_day in starts.items():
            rows.append((user_id, period, first_day, 0, *figures))
        rows.append((user_id, Period.ALL, starts[Period.ALL], stake, *figures))
    rows.sort(key=lambda row: row[:4])
    _upsert(rows)


def _upsert(rows: list[tuple]) -> None:
    quote = connection.ops.quote_name
    table = quote(Standing._meta.db_table)
    columns = ", ".join(quote(c) for c in _COLUMNS)
    values = ", ".join(["(" + ", ".join(["%s"] * len(_COLUMNS)) + ")"] * len(rows))
    greatest = "GREATEST" if connection.vendor == "postgresql" else "MAX"
    hands, won, net, pot = (quote(c) for c in _COLUMNS[4:])
    sql = (
        f"INSERT INTO {table} ({columns}) VALUES {values} "
        f"ON CONFLICT ({', '.join(quote(c) for c in _COLUMNS[:4])}) DO UPDATE SET "
        f"{hands} = {table}.{hands} + EXCLUDED.{hands}, "
        f"{won} = {table}.{won} + EXCLUDED.{won}, "
        f"{net} = {table}.{net} + EXCLUDED.{net}, "
        f"{pot} = {greatest}({table}.{pot}, EXCLUDED.{pot})"
    )
    params = [value for row in rows for value in row]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
