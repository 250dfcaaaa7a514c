"""The accounts app's kinds of staff action (accounts.staff_log.kinds), registered when it loads."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from accounts.staff_log.kinds import StaffKind, register

BAN = StaffKind(
    "ban",
    _("ban"),
    "accounts.add_ban",
    gettext_noop("You do not have the right to ban players; nothing was changed."),
)
LIFT_BAN = StaffKind(
    "lift_ban",
    _("ban lifted"),
    "accounts.lift_ban",
    gettext_noop("You do not have the right to lift bans; nothing was changed."),
)
WALLET_ADJUST = StaffKind(
    "wallet_adjust",
    _("wallet adjustment"),
    "accounts.adjust_wallet",
    gettext_noop("You do not have the right to adjust wallets; nothing was changed."),
)
RIGHTS = StaffKind(
    "rights",
    _("staff rights changed"),
    None,  # superusers only
    gettext_noop("Only superusers may change staff rights; nothing was changed."),
)
ACCOUNT = StaffKind(
    "account",
    _("account changed"),
    "accounts.change_user",
    gettext_noop("You do not have the right to change accounts; nothing was changed."),
)
# A player's own break protects them from themselves: only the highest right lifts one.
LIFT_BREAK = StaffKind(
    "lift_break",
    _("break from play lifted"),
    None,  # superusers only
    gettext_noop("Only superusers may end a player's time-out or self-exclusion early; nothing was changed."),
)

register(BAN, LIFT_BAN, WALLET_ADJUST, RIGHTS, ACCOUNT, LIFT_BREAK)
