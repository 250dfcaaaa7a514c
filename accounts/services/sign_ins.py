"""Where players sign in from: one row per login, for staff looking at the accounts behind an address."""

from __future__ import annotations

import ipaddress
from typing import Any

from django.db.models import Count, Max

from accounts.models import SignIn, User


def client_address(meta: dict[str, Any]) -> str | None:
    """The request's client address as the server sees it (a proxy in front rewrites REMOTE_ADDR)."""
    value = meta.get("REMOTE_ADDR") or ""
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def record_sign_in(*, user: User, address: str | None) -> SignIn:
    return SignIn.objects.create(user=user, address=address)


def sign_in_addresses(*, user: User) -> list[dict[str, Any]]:
    """The user's addresses, most recent first, with how often and when last (one query)."""
    return list(
        SignIn.objects.filter(user=user, address__isnull=False)
        .values("address")
        .annotate(times=Count("pk"), last=Max("at"))
        .order_by("-last")
    )
