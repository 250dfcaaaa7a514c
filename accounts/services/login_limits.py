"""Failed log-ins are counted per account, whichever name the guesser types.

allauth counts ``login_failed`` per key (ACCOUNT_RATE_LIMITS, "5/5m/key"), its key being the typed
username or e-mail: an account reachable by both took twice the guesses, and a password reset,
which clears the e-mail's key only, left the username's locked. ``login_limit_key`` names the
account instead (when the typed text reaches exactly one), and a reset clears that key. The site's
domain (the Host header) is left out of it: each name the room answers to would be another count.
"""

from __future__ import annotations

from allauth.account.utils import filter_users_by_email, filter_users_by_username
from allauth.core import ratelimit
from django.http import HttpRequest

from accounts.models import User


def account_limit_key(*, user_id: int) -> str:
    return f"account:{user_id}"


def login_limit_key(*, username: str | None = None, email: str | None = None) -> str:
    """The rate-limit key for a log-in with these credentials: the account's, if they reach one."""
    ids: set[int] = set()
    if email:
        ids.update(user.pk for user in filter_users_by_email(email, prefer_verified=True))
    if username:
        ids.update(filter_users_by_username(username).values_list("pk", flat=True))
    if len(ids) == 1:
        return account_limit_key(user_id=ids.pop())
    # Nobody (or, oddly, several): count the text typed, as allauth does.
    return f"typed:{(email or username or '').lower()}"


def clear_login_limit(*, request: HttpRequest, user: User) -> None:
    """Forget an account's failed log-ins (after its owner proved who they are)."""
    ratelimit.clear(request, action="login_failed", key=account_limit_key(user_id=user.pk))
