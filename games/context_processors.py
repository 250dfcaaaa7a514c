"""Template context for every page: the player's wallet balance, the warning before their daily
play-time limit (responsible play), whether the room may invite them to play, and whether
tournaments are open."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest

from accounts.services import wallet_balance
from accounts.services.responsible import may_be_notified, play_time_warning, play_time_warning_text
from games.live.records import play_time_left


def site(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    balance: Callable[[], int] | None = None
    if user is not None and user.is_authenticated:
        # A callable: the template calls it only where the balance is shown (one query per page).
        def balance() -> int:
            return wallet_balance(user=user)

    return {
        "wallet_balance": balance,
        "tournaments_open": settings.TOURNAMENTS_OPEN,
        **_responsible_play(user),
    }


def _responsible_play(user: object) -> dict[str, object]:
    """The play-time warning (5 minutes and 1 minute before the daily limit), and whether to show
    the room's invitations to play (a self-excluded player sees none; a callable, so asked only on
    the pages that show them). One query a page that shows the warning, two more for a player with a
    play-time limit."""
    if user is None or not getattr(user, "is_authenticated", False):
        return {"may_be_notified": True}
    context: dict[str, object] = {"may_be_notified": lambda: may_be_notified(user=user)}

    # Asked only by the pages that show it (the site's pages, not the staff's: one query each),
    # once a page however often the template reads it.
    @functools.cache
    def warning() -> str | None:
        left = play_time_left(user_id=user.pk)  # type: ignore[attr-defined]
        level = play_time_warning(left=left.left) if left is not None else None
        return play_time_warning_text(minutes=level) if level is not None else None

    context["play_time_warning"] = warning
    return context
