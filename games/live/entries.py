"""The table's log and notice, as entries: everyone at a table shares one document but not one
language, so a line is stored as a message marked with ``gettext_noop`` and its parameters, and
worded in each viewer's language when their view is shown (games/tables/ui/). ``log_text`` and
``notice_text`` give the English as written. A plain string in their place is shown as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.live.document import Doc, Entry

LOG_KEPT = 40
# The computer's seat names, by level: stored in English (as msgids) in the seat, the log and the
# hand file, and shown in the viewer's language. No username can equal one (usernames hold no
# spaces or brackets), so a name is translated exactly when it is one of these.
COMPUTER_NAMES = {
    "easy": gettext_noop("Computer (easy)"),
    "normal": gettext_noop("Computer (normal)"),
    "hard": gettext_noop("Computer (hard)"),
}
_COMPUTER_NAME_SET = frozenset(COMPUTER_NAMES.values())


# The table log's line for each move (verbs are checked against VERBS first).
MOVE_LINES = {
    "raise": gettext_noop("%(name)s raises to %(amount)s"),
    "dark": gettext_noop("%(name)s bets dark"),
    "decline": gettext_noop("%(name)s does not bet dark"),
    "fold": gettext_noop("%(name)s folds"),
    "pass": gettext_noop("%(name)s passes"),
    "call": gettext_noop("%(name)s calls"),
    "join": gettext_noop("%(name)s joins the svara"),
    "skip": gettext_noop("%(name)s does not join"),
}


def entry(msg: str, **args: Any) -> Entry:
    """A line to word in each viewer's language: ``msg`` is marked with ``gettext_noop`` and has
    %(name)s placeholders; an argument may itself be an entry, or a list of names.

    The arguments sit beside ``msg`` in one flat dict: a dict of strings and numbers only is one the
    garbage collector never tracks, and a log line is one. The log is 40 of a document's 75 tracked
    objects when each line holds an ``args`` dict (as documents written before did; still read), and
    every collection walks the current document of every table.
    """
    if "args" in args:
        raise ValueError("an entry's argument may not be called 'args'")
    return {"msg": msg, **args}


def entry_args(item: Entry) -> dict[str, Any]:
    """An entry's arguments, flat or (in a document written before) under ``args``."""
    nested = item.get("args")
    if isinstance(nested, dict):
        return nested
    return {key: value for key, value in item.items() if key != "msg"}


def _same(value: Any) -> Any:
    return value


def word_entry(
    item: Any, *, gettext: Callable[[str], str] = str, number: Callable[[int], Any] = _same
) -> str:
    """An entry worded with ``gettext`` (English as written by default), each whole number of it
    written by ``number`` (as it is by default). A plain string (a line of an older document, a
    staff member's reason) is shown as it is."""
    if not isinstance(item, dict):
        return str(item)
    args = {}
    for key, value in entry_args(item).items():
        if type(value) is int:
            value = number(value)
        elif isinstance(value, dict):
            value = word_entry(value, gettext=gettext, number=number)
        elif isinstance(value, list):
            value = join_names([shown_name(str(v), gettext=gettext) for v in value], gettext=gettext)
        elif isinstance(value, str):
            value = shown_name(value, gettext=gettext)
        args[key] = value
    return gettext(item["msg"]) % args if args else gettext(item["msg"])


def shown_name(name: str, *, gettext: Callable[[str], str] = _) -> str:
    """A seat's name as a viewer sees it: the computer's in their language, a player's as it is."""
    return gettext(name) if name in _COMPUTER_NAME_SET else name


def join_names(names: list[str], *, gettext: Callable[[str], str]) -> str:
    """Names as a list in words: "ann and bob", "ann and bob and cem"."""
    joined = names[0] if names else ""
    for name in names[1:]:
        joined = gettext(gettext_noop("%(first)s and %(second)s")) % {"first": joined, "second": name}
    return joined


def add_line(doc: Doc, msg: str, **args: Any) -> None:
    doc["log"] = [*doc["log"], entry(msg, **args)][-LOG_KEPT:]


def set_notice(doc: Doc, notice: Entry | str | None) -> None:
    """The one-off message for everyone: an ``entry`` (or a plain string, shown as it is)."""
    doc["notice"] = notice


def log_text(doc: Doc) -> list[str]:
    """The log as written, in English (for logs and tests; viewers get their own language)."""
    return [word_entry(line) for line in doc["log"]]


def notice_text(doc: Doc) -> str | None:
    return None if doc.get("notice") is None else word_entry(doc["notice"])
