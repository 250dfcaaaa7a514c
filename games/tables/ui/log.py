"""The table's log and notice worded for one viewer: each entry (games/live/entries.py) in the
viewer's language, chip counts grouped as the regions write them, the lines remembered.

Everyone at a table shares one document but not one language, so the document keeps entries and
each viewer's frame words them; the lines and the log's list items are remembered per language,
as wording them was a fifth of a frame.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson
from django.utils.translation import gettext as _
from markupsafe import Markup, escape

from games.live.entries import word_entry
from games.tables.ui.jinja2 import Words, active_words, chips


def render_entry(item: Any, *, gettext: Callable[[str], str] | None = None) -> str:
    """An entry in the active language, chip counts grouped as the regions write them (1,000; 1 000).

    ``gettext`` may be the active language's own (a catalogue's bound method), which a caller
    wording a whole log passes to skip Django's lookup of the active language for every line.
    A plain string (a line of an older document, a staff member's reason) is shown as it is."""
    return word_entry(item, gettext=gettext or _, number=chips)


def worded_notice(notice: Any) -> str | None:
    """The table's one-off message for everyone, in the active language (None: there is none)."""
    return None if notice is None else render_entry(notice)


# Words -> {entry as JSON: the line worded}. Each change adds a line to a log of up to 40 that
# every viewer words again: remembered, the log costs a fifth. Per catalogue, like Words' own.
_LINES: weakref.WeakKeyDictionary[Words, dict[bytes, str]] = weakref.WeakKeyDictionary()
LINES_KEPT: Final = 20_000  # per language; all forgotten at once when full (lines are cheap to redo)


@dataclass(frozen=True, slots=True)
class WordedLog:
    """A document's log worded in one language: its lines, and the lines as the region's list items."""

    entries: list[Any]  # the document's log itself: the same list is worded the same
    lines: list[str]
    items: list[str]  # each line as an escaped <li>
    html: Markup  # the items joined: the region's list, one string to place

    @classmethod
    def of(cls, *, entries: list[Any], lines: list[str], items: list[str]) -> WordedLog:
        return cls(entries=entries, lines=lines, items=items, html=Markup("".join(items)))


# Words -> {table id: the log last worded for that table}. The sockets of a table in one process
# share one document (games/live/announced.py): every viewer after the first in a language takes
# the first one's words. And a change mostly adds a line or two to the last log and drops as many
# from its start: found by comparing the entries (a C-level comparison), only the new lines are
# worded and escaped. Anything else is worded again from the remembered lines (_word_lines).
_WORDED: weakref.WeakKeyDictionary[Words, dict[Any, WordedLog]] = weakref.WeakKeyDictionary()
WORDED_KEPT: Final = 1_000  # tables per language; all forgotten at once when full
NEW_LINES_FOLLOWED: Final = 4  # a change adds at most a few lines; more than that is worded anew


def worded_log(*, table_id: Any, entries: list[Any]) -> WordedLog:
    """A table's log (``entries``, the document's own list) in the active language. What it
    returns may be shared with other viewers of the same document: read-only."""
    words = active_words()
    by_table = _WORDED.get(words)
    if by_table is None or len(by_table) >= WORDED_KEPT:
        by_table = _WORDED[words] = {}
    last = by_table.get(table_id)
    if last is not None and last.entries is entries:
        return last
    worded = _follow(last, entries, words) if last is not None else None
    if worded is None:
        lines = _word_lines(entries, words)
        worded = WordedLog.of(entries=entries, lines=lines, items=[_item(line) for line in lines])
    by_table[table_id] = worded
    return worded


def _follow(last: WordedLog, log: list[Any], words: Words) -> WordedLog | None:
    """``log`` as ``last``'s tail plus a few new entries, worded from ``last``; None if it is not."""
    for new in range(min(NEW_LINES_FOLLOWED, len(log)) + 1):
        kept = len(log) - new
        if kept > len(last.entries):
            continue
        start = len(last.entries) - kept
        if log[:kept] == last.entries[start:]:
            added = _word_lines(log[kept:], words)
            return WordedLog.of(
                entries=log,
                lines=last.lines[start:] + added,
                items=last.items[start:] + [_item(line) for line in added],
            )
    return None


def _item(line: str) -> str:
    return f"<li>{escape(line)}</li>"


def _word_lines(log: list[Any], words: Words) -> list[str]:
    if not log:
        return []
    lines = _LINES.get(words)
    if lines is None or len(lines) >= LINES_KEPT:
        lines = _LINES[words] = {}
    out = []
    for item in log:
        if not isinstance(item, dict):
            out.append(str(item))
            continue
        key = orjson.dumps(item, option=orjson.OPT_NON_STR_KEYS)
        line = lines.get(key)
        if line is None:
            line = lines[key] = render_entry(item, gettext=words.gettext)
        out.append(line)
    return out
