"""The accounts app's services: the only code that changes balances or bans.

Import from here (``from accounts.services import seat_buy_in``); the modules are: ledger.py (the
ledger's transfers with what may move chips checked first), grants.py (free chips), bans.py,
profile.py (read-only queries), responsible.py (time-outs, self-exclusions and limits). The ledger
itself (posting, transfers, the audit, its errors) and the staff log (rights and the log of staff
actions) are their own packages below these: accounts.ledger and accounts.staff_log.
"""

from accounts.ledger.audit import AuditReport, audit_ledger
from accounts.ledger.errors import (
    GrantNotAvailable,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidRequest,
    LedgerError,
    UnknownAccount,
    UserBanned,
)
from accounts.services.bans import active_ban, ban_user, ensure_not_banned, is_banned, lift_ban, user_can_sit
from accounts.services.grants import (
    grant_signup_bonus,
    grant_status,
    wallet_claim_daily_bonus,
    wallet_claim_refill,
)
from accounts.services.ledger import (
    hand_settle,
    seat_balance,
    seat_buy_in,
    seat_cash_out,
    wallet_adjust,
    wallet_balance,
)
from accounts.services.responsible import (
    PlayPaused,
    active_break,
    ensure_may_play,
    lift_break,
    take_break,
)
from accounts.staff_log.errors import AlreadyDone, NotPermitted, StaffRefusal
from accounts.staff_log.log import may, record_staff_action

__all__ = [
    "AlreadyDone",
    "AuditReport",
    "GrantNotAvailable",
    "IdempotencyConflict",
    "InsufficientFunds",
    "InvalidRequest",
    "LedgerError",
    "NotPermitted",
    "PlayPaused",
    "StaffRefusal",
    "UnknownAccount",
    "UserBanned",
    "active_ban",
    "active_break",
    "audit_ledger",
    "ban_user",
    "ensure_may_play",
    "ensure_not_banned",
    "grant_signup_bonus",
    "grant_status",
    "hand_settle",
    "is_banned",
    "lift_ban",
    "lift_break",
    "may",
    "record_staff_action",
    "seat_balance",
    "seat_buy_in",
    "seat_cash_out",
    "take_break",
    "user_can_sit",
    "wallet_adjust",
    "wallet_balance",
    "wallet_claim_daily_bonus",
    "wallet_claim_refill",
]
