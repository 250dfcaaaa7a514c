"""The games app's kinds of staff action (accounts.staff_log.kinds): its tables', chat's and
reports', with the games app's permissions; registered when the app loads (games.apps)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from accounts.staff_log.kinds import StaffKind, register

TABLE_CLOSE = StaffKind(
    "table_close",
    _("table closed"),
    "games.close_table",
    gettext_noop("You do not have the right to close tables; nothing was changed."),
)
SEAT_REMOVE = StaffKind(
    "seat_remove",
    _("player removed"),
    "games.remove_player",
    gettext_noop("You do not have the right to remove players from their seats; nothing was changed."),
)
TABLE_EDIT = StaffKind(
    "table_edit",
    _("table settings changed"),
    "games.change_table",
    gettext_noop("You do not have the right to change tables; nothing was changed."),
)
CHAT_DELETE = StaffKind(
    "chat_delete",
    _("chat message deleted"),
    "games.delete_chatmessage",
    gettext_noop("You do not have the right to delete chat messages; nothing was changed."),
)
CHAT_MUTE = StaffKind(
    "chat_mute",
    _("muted in chat"),
    "games.add_chatmute",
    gettext_noop("You do not have the right to mute players in chat; nothing was changed."),
)
REPORT_CLOSE = StaffKind(
    "report_close",
    _("report dealt with"),
    "games.change_report",
    gettext_noop("You do not have the right to close reports; nothing was changed."),
)

TOURNAMENT_CANCEL = StaffKind(
    "sng_cancel",
    _("tournament cancelled"),
    "games.cancel_tournament",
    gettext_noop("You do not have the right to cancel tournaments; nothing was changed."),
)

register(TABLE_CLOSE, SEAT_REMOVE, TABLE_EDIT, CHAT_DELETE, CHAT_MUTE, REPORT_CLOSE, TOURNAMENT_CANCEL)
