"""Sign-up grants the welcome chips (allauth's user_signed_up, so only real sign-ups get them;
users made in the admin or by createsuperuser start at 0 and can claim a refill)."""

from __future__ import annotations

from allauth.account.signals import user_signed_up
from django.dispatch import receiver

from accounts.services.grants import grant_signup_bonus


@receiver(user_signed_up, dispatch_uid="accounts.grant_signup_bonus")
def grant_chips_on_signup(sender, request, user, **kwargs) -> None:
    grant_signup_bonus(user=user)
