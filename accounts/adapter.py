"""allauth adapter: tells a banned user why they cannot log in."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.internal.stagekit import clear_login
from django.shortcuts import render

from accounts.services.bans import active_ban


class AccountAdapter(DefaultAccountAdapter):
    def pre_login(self, request, user, **kwargs):
        # Reached only after the password was checked, so the reason is shown to the account's owner.
        ban = active_ban(user=user)
        if ban is not None:
            clear_login(request)
            return render(request, "account/account_banned.html", {"ban": ban}, status=403)
        return super().pre_login(request, user, **kwargs)
