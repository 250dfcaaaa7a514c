"""Template context for every page: the reality check, when its interval has passed (responsible
play). Costs nothing for a player with it off; one ledger query on the page that shows it."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest
from django.utils import timezone

from accounts.services.responsible import SESSION_CHECKED, SESSION_START, reality_check_due


def _moment(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def reality_check(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not getattr(user, "reality_check_minutes", 0):
        return {}
    session = request.session
    now = timezone.now()
    start, checked = _moment(session.get(SESSION_START)), _moment(session.get(SESSION_CHECKED))
    if start is None or checked is None:
        # A session from before the setting (or the signal): the count starts now.
        session[SESSION_START] = session[SESSION_CHECKED] = now.isoformat()
        return {}
    return {"reality_check": reality_check_due(user=user, start=start, checked=checked, now=now)}
