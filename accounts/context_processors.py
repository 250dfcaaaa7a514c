"""Template context for every page: the reality check, when its interval has passed (responsible
play). Costs nothing for a player with it off; one ledger query on the page that shows it."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils import timezone

from accounts.services.responsible import (
    PERIOD_LABELS,
    SESSION_CHECKED,
    SESSION_START,
    TIME_OUT_PERIODS,
    reality_check_due,
    session_moment,
)


def reality_check(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not getattr(user, "reality_check_minutes", 0):
        return {}
    session = request.session
    now = timezone.now()
    start, checked = session_moment(session.get(SESSION_START)), session_moment(session.get(SESSION_CHECKED))
    if start is None or checked is None:
        # A session from before the setting (or the signal): the count starts now.
        session[SESSION_START] = session[SESSION_CHECKED] = now.isoformat()
        return {}
    check = reality_check_due(user=user, start=start, checked=checked, now=now)
    if check is None:
        return {}
    # Its one-click break: a time-out of the length picked (a self-exclusion is for the profile).
    breaks = [(period, PERIOD_LABELS[period]) for period in TIME_OUT_PERIODS]
    return {"reality_check": check, "reality_check_breaks": breaks}
