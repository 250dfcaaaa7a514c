"""Template context for every page: the player's wallet balance, and whether tournaments are open."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest

from accounts.services import wallet_balance


def site(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    balance: Callable[[], int] | None = None
    if user is not None and user.is_authenticated:
        # A callable: the template calls it only where the balance is shown (one query per page).
        def balance() -> int:
            return wallet_balance(user=user)

    return {"wallet_balance": balance, "tournaments_open": settings.TOURNAMENTS_OPEN}
