"""Which periods a moment falls in: its day, its week (from Monday), its month, all time.

Days are the site's (``TIME_ZONE``), so a hand settled at 23:59 counts for that day everywhere.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django.utils import timezone

from games.models import Standing

ALL_TIME = date(2000, 1, 1)
Period = Standing.Period


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def month_start(day: date) -> date:
    return day.replace(day=1)


def period_start(*, period: str, day: date) -> date:
    """The first day of ``period`` around ``day``."""
    if period == Period.DAY:
        return day
    if period == Period.WEEK:
        return week_start(day)
    if period == Period.MONTH:
        return month_start(day)
    return ALL_TIME


def starts_of(at: datetime) -> dict[str, date]:
    """Each period's first day for a hand settled at ``at``."""
    day = timezone.localdate(at)
    return {period: period_start(period=period, day=day) for period in Period.values}
