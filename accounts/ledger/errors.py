"""The one exception family the accounts services raise.

Every refusal is a ``LedgerError`` (a ``ValueError``) whose message a person can read, and a
refused call has changed nothing.
"""

from __future__ import annotations


class LedgerError(ValueError):
    """A chip movement or account action was refused; nothing changed."""


class InvalidRequest(LedgerError):
    """An argument is malformed: not an int, not positive, too large, an empty key..."""


class UnknownAccount(LedgerError):
    """The account or user the call names does not exist."""


class InsufficientFunds(LedgerError):
    """The paying account does not hold enough chips."""


class IdempotencyConflict(LedgerError):
    """The idempotency key was already used for a different request."""


class GrantNotAvailable(LedgerError):
    """A bonus or refill is not due yet (or was just claimed by another request)."""


class UserBanned(LedgerError):
    """The user is banned by staff."""
