"""What a screen reader is told after each frame: a few short lines for the table's one live region
(``#table-announce`` on the page, never replaced; the frame fills it by an innerHTML swap).

A live region is read when its content changes, and only if it existed before the change: the
regions themselves are replaced whole on every frame, so none of them can be one. Each socket
keeps the view it last sent and this compares it with the new one: the log lines added since
(shortened: no seed hashes), a notice that is new, and "Your turn" with what it costs when the
turn comes. Worded in the active language, chip counts as the regions write them.
"""

from __future__ import annotations

from typing import Any, Final

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.live.entries import entry_msg, word_entry
from games.tables.ui.jinja2 import chips
from games.tables.ui.log import render_entry

# A change adds a few lines to the log; a frame that missed more than this (a reconnect, a sync
# after a gap) says only what is true now (whose turn), not a backlog.
NEW_LINES_SAID: Final = 6

# Log lines said shorter: what the seed hash or the revealed seed add is for reading, not hearing.
SHORT_LINES: Final = {
    "Hand %(number)s begins; %(dealer)s deals. Seed hash %(hash)s…": gettext_noop(
        "Hand %(number)s begins; %(dealer)s deals"
    ),
    "%(name)s wins %(pot)s.": gettext_noop("%(name)s won %(pot)s"),
    "%(name)s wins %(pot)s. Seed revealed: %(seed)s…": gettext_noop(
        "%(name)s won %(pot)s"
    ),  # documents before
    "Svara! %(names)s tie on %(points)s; the pot of %(pot)s is replayed": gettext_noop(
        "Svara! %(names)s tie on %(points)s"
    ),
    "Svara! %(names)s tie on %(points)s; the pot of %(pot)s is replayed (join for %(fee)s)": gettext_noop(
        "Svara! %(names)s tie on %(points)s"
    ),
}


def new_entries(before: list[Any], after: list[Any]) -> list[Any]:
    """The entries ``after`` adds to ``before``: its tail past the longest overlap of ``before``'s
    end with ``after``'s start (the log keeps its last lines only, so its start moves on too).
    Nothing when more than ``NEW_LINES_SAID`` came, or the two do not overlap."""
    if before is after:
        return []
    for added in range(min(NEW_LINES_SAID, len(after)) + 1):
        kept = len(after) - added
        if kept > len(before):
            continue
        if after[:kept] == before[len(before) - kept :]:
            if kept == 0 and before:
                return []  # nothing in common: another log, not a few new lines
            return after[kept:]
    return []


def said_line(item: Any) -> str:
    """One log entry as it is said: shortened where ``SHORT_LINES`` has it, else as the log words it."""
    msg = entry_msg(item) if isinstance(item, dict) else None
    if msg in SHORT_LINES:
        short = {key: value for key, value in item.items() if key != "e"}
        return word_entry({**short, "msg": SHORT_LINES[msg]}, gettext=_, number=chips)
    return render_entry(item)


def turn_line(actions: dict[str, Any]) -> str:
    """The turn as it is said: "Your turn, 20 to call"."""
    phase = actions.get("phase")
    if phase == "dark":
        return _("Your turn: bet %(amount)s dark, or not") % {"amount": chips(actions["dark_amount"])}
    if phase == "join":
        return _("Your turn: join the svara for %(fee)s, or skip") % {"fee": chips(actions["join_fee"])}
    if actions.get("to_call"):
        return _("Your turn, %(amount)s to call") % {"amount": chips(actions["to_call"])}
    return _("Your turn, nothing to call")


def announcement(
    *, before: dict[str, Any] | None, after: dict[str, Any], error: str | None = None
) -> list[str]:
    """The lines to say for a frame showing ``after`` to a viewer who was last shown ``before``
    (None: the socket's first frame). A refused command's frame says only why."""
    if error is not None:
        return [error]
    lines: list[str] = []
    added = new_entries(before["log"], after["log"]) if before is not None else []
    lines.extend(said_line(item) for item in added)
    notice = after.get("notice")
    if notice is not None and (before is None or before.get("notice") != notice):
        lines.append(render_entry(notice))
    actions = after.get("actions")
    # The turn is said when it comes, and again when the hand moved on meanwhile (more than the
    # lines said: a reconnect).
    if actions and (before is None or not before.get("actions") or before["log"] != after["log"]):
        lines.append(turn_line(actions))
    return lines
