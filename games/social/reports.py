"""Players' reports about another player or one of their chat messages, for the staff's queue.

Every refusal is a ``Refused`` with a message for the reporter, and nothing is stored. A reporter
makes at most ``REPORTS_PER_HOUR`` reports an hour (the staff's queue is not a place to flood), and
at most one waiting report on a given message.
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import ChatMessage, Report, Table
from games.models.social import REPORT_TEXT_MAX_LENGTH
from games.social.refusals import Refused

REPORTS_PER_HOUR = 10
# Newlines and tabs are how people write a paragraph; any other control character is not text.
_ALLOWED_CONTROLS = {"\n", "\r", "\t"}


def _reporter(reporter: Any) -> User:
    if not isinstance(reporter, User) or reporter.pk is None:
        raise Refused(_("Log in to report a player."))
    return reporter


def _reported(reported: Any, *, reporter: User) -> User:
    user = User.objects.filter(pk=reported.pk).first() if isinstance(reported, User) else None
    if user is None:
        raise Refused(_("There is no such player; nothing was reported."))
    if user.pk == reporter.pk:
        raise Refused(_("You cannot report yourself."))
    if user.computer_level:
        # The computer's seats play by a fixed program and never chat: there is no one to warn.
        raise Refused(_("The computer's players cannot be reported."))
    return user


def _reason(reason: Any) -> str:
    if not isinstance(reason, str) or reason not in Report.Reason.values:
        raise Refused(_("Choose a reason for the report."))
    return reason


def _text(text: Any) -> str:
    if text is None:
        return ""
    if not isinstance(text, str):
        raise Refused(_("The details must be text."))
    text = text.strip()
    if len(text) > REPORT_TEXT_MAX_LENGTH:
        raise Refused(
            _("The details may be at most %(limit)s characters; yours are %(length)s.")
            % {"limit": REPORT_TEXT_MAX_LENGTH, "length": len(text)}
        )
    if any(unicodedata.category(c) == "Cc" and c not in _ALLOWED_CONTROLS for c in text):
        raise Refused(_("The details contain control characters; write them as plain text."))
    return text


def _check_rate(reporter: User, *, message: ChatMessage | None) -> None:
    """Inside the transaction, the reporter's row locked: two reports sent at once count as two."""
    User.objects.select_for_update().filter(pk=reporter.pk).first()
    since = timezone.now() - timedelta(hours=1)
    if Report.objects.filter(reporter=reporter, created_at__gte=since).count() >= REPORTS_PER_HOUR:
        raise Refused(
            _("You have sent %(limit)s reports in the last hour; please wait before sending more.")
            % {"limit": REPORTS_PER_HOUR}
        )
    if (
        message is not None
        and Report.objects.filter(reporter=reporter, message=message, status=Report.Status.OPEN).exists()
    ):
        raise Refused(_("You have reported this message already; the staff will look at it."))


def report_player(*, reporter: Any, reported: Any, reason: Any, text: Any = "", table: Any = None) -> Report:
    """Report a player (from their page, or from a table: ``table`` then says where)."""
    reporter = _reporter(reporter)
    reported = _reported(reported, reporter=reporter)
    reason = _reason(reason)
    text = _text(text)
    if table is not None and not (isinstance(table, Table) and Table.objects.filter(pk=table.pk).exists()):
        raise Refused(_("There is no such table; nothing was reported."))
    with transaction.atomic():
        _check_rate(reporter, message=None)
        return Report.objects.create(
            reporter=reporter, reported=reported, reason=reason, text=text, table=table
        )


def message_to_report(*, message_id: Any) -> ChatMessage | None:
    """The message a report may name: one that exists, was not deleted and has an author."""
    if not isinstance(message_id, int) or isinstance(message_id, bool):
        return None
    return (
        ChatMessage.objects.select_related("user", "table")
        .filter(pk=message_id, deleted_at__isnull=True, user__isnull=False)
        .first()
    )


def report_message(*, reporter: Any, message: Any, reason: Any, text: Any = "") -> Report:
    """Report one chat message (``message``: the message or its id); its author is the one reported."""
    reporter = _reporter(reporter)
    message_id = message.pk if isinstance(message, ChatMessage) else message
    found = message_to_report(message_id=message_id)
    if found is None:
        raise Refused(_("There is no such message (or it was deleted); nothing was reported."))
    reported = _reported(found.user, reporter=reporter)
    reason = _reason(reason)
    text = _text(text)
    with transaction.atomic():
        _check_rate(reporter, message=found)
        return Report.objects.create(
            reporter=reporter,
            reported=reported,
            message=found,
            table_id=found.table_id,
            reason=reason,
            text=text,
        )


def reports_waiting() -> int:
    """How many reports wait for the staff (the dashboard's figure)."""
    return Report.objects.filter(status=Report.Status.OPEN).count()
