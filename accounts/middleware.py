"""A session whose user was banned since: the first request after the ban ends it and says why.

The backends (accounts.backends) already refuse a banned user on every request, so the request
ran as a visitor's: the lobby and every public page rendered as if nothing had happened, and the
player learned of the ban only by trying to log in again (issue 37). This ends the session at
once and answers with the ban's page, as a log-in attempt does.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import SESSION_KEY, logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.models import Ban


class BannedSessionMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # One query only for a session that names a user the backends refused (rare): the user
        # was banned, deactivated or deleted since it began.
        user_id = request.session.get(SESSION_KEY)
        if user_id is not None and not request.user.is_authenticated:
            ban = (
                Ban.objects.filter(user_id=user_id, lifted_at__isnull=True).first()
                if str(user_id).isdigit()
                else None
            )
            logout(request)
            if ban is not None:
                return render(request, "account/account_banned.html", {"ban": ban}, status=403)
        return self.get_response(request)
