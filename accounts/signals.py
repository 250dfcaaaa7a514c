"""Sign-up grants the welcome chips (allauth's user_signed_up, so only real sign-ups get them;
users made in the admin or by createsuperuser start at 0 and can claim a refill). Every login
records the address it came from (accounts.services.sign_ins). A password reset unlocks the
account's log-in (allauth clears only the keys of its e-mail addresses)."""

from __future__ import annotations

from allauth.account.signals import password_reset, user_signed_up
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import timezone

from accounts.services.grants import grant_signup_bonus
from accounts.services.login_limits import clear_login_limit
from accounts.services.responsible import SESSION_CHECKED, SESSION_START
from accounts.services.sign_ins import client_address, record_sign_in


@receiver(user_signed_up, dispatch_uid="accounts.grant_signup_bonus")
def grant_chips_on_signup(sender, request, user, **kwargs) -> None:
    grant_signup_bonus(user=user)


@receiver(user_logged_in, dispatch_uid="accounts.record_sign_in")
def record_address_on_login(sender, request, user, **kwargs) -> None:
    record_sign_in(user=user, address=client_address(getattr(request, "META", {})))
    session = getattr(request, "session", None)
    if session is not None:
        # The reality check counts this session's time and chips from here (responsible play).
        session[SESSION_START] = session[SESSION_CHECKED] = timezone.now().isoformat()


@receiver(password_reset, dispatch_uid="accounts.clear_login_limit")
def unlock_after_password_reset(sender, request, user, **kwargs) -> None:
    clear_login_limit(request=request, user=user)
