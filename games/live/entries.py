"""The table's log and notice, as entries: everyone at a table shares one document but not one
language, so a line is stored as what happened, not as words, and worded in each viewer's language
when their view is shown (games/tables/ui/). ``log_text`` and ``notice_text`` give the English.

A log line is an event: ``{"e": kind, **its arguments}`` (``add_line``), the kind one of ``LINES``,
whose message, marked with ``gettext_noop``, words it; the engine's events (games.engine.events)
are logged by their own kinds. Documents written before kept the message itself,
``{"msg": message, **arguments}`` (two thirds of a document's bytes were the log's sentences):
still read, and entries of that form are still what a notice or a staff member's line may be. A
plain string in their place is shown as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

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


# The table log's words for each kind of line: the one place a line's kind becomes words. The
# engine's events (games.engine.events) first, by their own kinds: a move (``amount`` is what it
# put in, or the bet raised to) and what it led to.
LINES: Final = {
    "raise": gettext_noop("%(name)s raises to %(amount)s"),
    "dark": gettext_noop("%(name)s bets %(amount)s dark"),
    "decline": gettext_noop("%(name)s does not bet dark"),
    "fold": gettext_noop("%(name)s folds"),
    "pass": gettext_noop("%(name)s passes"),
    "call": gettext_noop("%(name)s calls %(amount)s"),
    "join": gettext_noop("%(name)s joins the svara for %(amount)s"),
    "skip": gettext_noop("%(name)s does not join"),
    "leave": gettext_noop("%(name)s folds"),  # leaving folds the hand (RULES.md §5)
    "svara": gettext_noop(
        "Svara! %(names)s tie on %(points)s; the pot of %(pot)s is replayed (join for %(fee)s)"
    ),
    # Nobody could join: the replay is dealt at once.
    "svara_at_once": gettext_noop("Svara! %(names)s tie on %(points)s; the pot of %(pot)s is replayed"),
    "replay": gettext_noop("Svara replay %(number)s is dealt; the pot is %(pot)s"),
    "won": gettext_noop("%(name)s wins %(pot)s."),
    "called_off": gettext_noop(
        "Every tied player has left: the svara is called off and the pot of %(pot)s is split"
    ),
    # The table's own: hands, the clock, seats.
    "begins": gettext_noop("Hand %(number)s begins; %(dealer)s deals"),
    "cancelled": gettext_noop("Hand %(number)s cancelled: %(notice)s"),
    "timeout": gettext_noop("%(name)s ran out of time"),
    "timed_out": gettext_noop("%(name)s sits out after %(count)s timeouts"),
    "time_bank": gettext_noop("%(name)s uses the time bank: %(seconds)s s more"),
    "broke": gettext_noop("%(name)s sits out until they add chips"),
    "sits_down": gettext_noop("%(name)s sits down with %(chips)s"),
    "leaves": gettext_noop("%(name)s leaves the table"),
    "leaving": gettext_noop("%(name)s is leaving"),
    "adds_later": gettext_noop("%(name)s adds %(chips)s after this hand"),
    "has": gettext_noop("%(name)s now has %(chips)s"),
    "sits_out": gettext_noop("%(name)s sits out"),
    "back": gettext_noop("%(name)s is back"),
    "play_time_limit": gettext_noop("%(name)s has reached their play-time limit for today"),
    "removed": gettext_noop("%(name)s was removed from the table by staff: %(reason)s"),
}
# Lines of documents written before the amounts were logged: still worded where they are read.
FORMER_MOVE_LINES = (
    gettext_noop("%(name)s bets dark"),
    gettext_noop("%(name)s calls"),
    gettext_noop("%(name)s joins the svara"),
)


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


def event_entry(kind: str, **args: Any) -> Entry:
    """A line that says what happened: ``kind`` one of ``LINES``, the arguments its words take.
    Flat, as ``entry``'s: a dict of strings and numbers the garbage collector never tracks."""
    if kind not in LINES:
        raise ValueError(f"no words for a line of kind {kind!r}")
    if "msg" in args or "e" in args or "args" in args:
        raise ValueError("an entry's argument may not be called 'msg', 'e' or 'args'")
    return {"e": kind, **args}


def entry_msg(item: Entry) -> str | None:
    """The message that words an entry: its kind's (``LINES``), or the one an entry of a document
    written before holds itself; None for a kind this code has no words for."""
    msg = item.get("msg")
    if msg is None:
        return LINES.get(item.get("e"))  # type: ignore[arg-type]
    return str(msg)


def entry_args(item: Entry) -> dict[str, Any]:
    """An entry's arguments, flat or (in a document written before) under ``args``."""
    nested = item.get("args")
    if isinstance(nested, dict):
        return nested
    return {key: value for key, value in item.items() if key != "msg" and key != "e"}


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
    msg = entry_msg(item)
    if msg is None:  # a kind of a newer build (a rolling restart): its arguments as they are
        return " ".join(str(value) for value in item.values())
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
    return gettext(msg) % args if args else gettext(msg)


def shown_name(name: str, *, gettext: Callable[[str], str] = _) -> str:
    """A seat's name as a viewer sees it: the computer's in their language, a player's as it is."""
    return gettext(name) if name in _COMPUTER_NAME_SET else name


def join_names(names: list[str], *, gettext: Callable[[str], str]) -> str:
    """Names as a list in words: "ann and bob", "ann and bob and cem"."""
    joined = names[0] if names else ""
    for name in names[1:]:
        joined = gettext(gettext_noop("%(first)s and %(second)s")) % {"first": joined, "second": name}
    return joined


def add_line(doc: Doc, kind: str, **args: Any) -> None:
    """Log what happened: an event of ``kind`` (``LINES``) with its arguments."""
    doc["log"] = [*doc["log"], event_entry(kind, **args)][-LOG_KEPT:]


def set_notice(doc: Doc, notice: Entry | str | None) -> None:
    """The one-off message for everyone: an ``entry`` (or a plain string, shown as it is)."""
    doc["notice"] = notice


def log_text(doc: Doc) -> list[str]:
    """The log as written, in English (for logs and tests; viewers get their own language)."""
    return [word_entry(line) for line in doc["log"]]


def notice_text(doc: Doc) -> str | None:
    return None if doc.get("notice") is None else word_entry(doc["notice"])
