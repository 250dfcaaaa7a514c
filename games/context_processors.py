"""Template context for every page: the player's wallet balance and which navigation links exist."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.urls import Resolver404, resolve

from accounts.services import wallet_balance


def _exists(path: str) -> bool:
    """Whether a page is served at ``path``: practice and rules pages come from other parts of the
    site, and the navigation links them only once they are there."""
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def site(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    balance: Callable[[], int] | None = None
    if user is not None and user.is_authenticated:
        # A callable: the template calls it only where the balance is shown (one query per page).
        def balance() -> int:
            return wallet_balance(user=user)

    return {
        "wallet_balance": balance,
        "nav_practice": _exists("/practice/"),
        "nav_rules": _exists("/rules/"),
    }
