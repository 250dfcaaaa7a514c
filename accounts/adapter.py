"""allauth adapter: refuses reserved and look-alike usernames, counts failed log-ins per account,
tells a banned user why they cannot log in, and never sends an https page on to plain http."""

from __future__ import annotations

from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.internal.stagekit import clear_login
from allauth.core import context
from django import forms
from django.shortcuts import render

from accounts.services.bans import active_ban
from accounts.services.login_limits import login_limit_key
from accounts.usernames import username_refusal


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username: str, shallow: bool = False) -> str:
        # Before allauth's own checks: "computer-hard" is reserved, not merely taken.
        reason = username_refusal(username)
        if reason is not None:
            raise forms.ValidationError(reason, code="username_reserved")
        return super().clean_username(username, shallow=shallow)

    def is_safe_url(self, url: str) -> bool:
        # allauth takes the room's own host over any scheme: ``next=http://...`` from an https
        # page took the player down to plain http (issue 37), as Django's own views do not.
        request = context.request
        if request is not None and request.is_secure() and urlsplit(url or "").scheme.lower() == "http":
            return False
        return super().is_safe_url(url)

    def _get_login_attempts_cache_key(self, request, **credentials) -> str:
        # allauth's one place for the login_failed key: both its count (pre_authenticate) and its
        # reset (after a password reset) ask it, so the account's key serves both.
        return login_limit_key(username=credentials.get("username"), email=credentials.get("email"))

    def pre_login(self, request, user, **kwargs):
        # Reached only after the password was checked, so the reason is shown to the account's owner.
        ban = active_ban(user=user)
        if ban is not None:
            clear_login(request)
            return render(request, "account/account_banned.html", {"ban": ban}, status=403)
        return super().pre_login(request, user, **kwargs)
