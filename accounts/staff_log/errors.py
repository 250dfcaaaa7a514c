"""The staff log's refusals: not the ledger's (a refused staff action moves no chip), their own type.

A page or command that calls a staff service catches ``StaffRefusal`` beside the service's own
errors (a ``LedgerError`` from a wallet adjustment, say) and shows its message; nothing was done.
"""

from __future__ import annotations


class StaffRefusal(ValueError):
    """A staff action refused before it acted: the right, the reason or the form."""


class NotPermitted(StaffRefusal):
    """The staff member lacks the permission for this action."""


class AlreadyDone(StaffRefusal):
    """The form naming this token was already acted on."""


class BadStaffForm(StaffRefusal):
    """The form is damaged or incomplete (no reason given, a token missing or too long)."""
