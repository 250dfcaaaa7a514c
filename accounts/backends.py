"""Authentication backends that refuse banned users.

``user_can_authenticate`` is asked both at login and, through ``get_user``, on every request with a
session: a ban therefore also ends the sessions a user already has. allauth's backend stashes a
user whose password was right but who may not authenticate; ``accounts.adapter`` uses that to show
the ban's reason instead of "wrong password".
"""

from __future__ import annotations

from allauth.account.auth_backends import AuthenticationBackend
from django.contrib.auth.backends import ModelBackend

from accounts.services.bans import is_banned


class NotBannedModelBackend(ModelBackend):
    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and not is_banned(user=user)


class NotBannedAuthenticationBackend(AuthenticationBackend):
    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and not is_banned(user=user)
