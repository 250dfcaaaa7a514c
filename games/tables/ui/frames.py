"""Frames within the socket's message limit: what the table's socket sends, split where it is too big.

Daphne's WebSocket library refuses to send a message over ``--websocket-max-message-size`` (it
closes the socket with 1011), the same limit that keeps what clients send small
(``socket_limits.SERVER_FRAME_BYTES``). Nearly every frame is far under it and goes out as it
is. One that is not (a table of six long names and a full log, fifty chat lines) is cut between
its regions, which are each an htmx out-of-band swap that stands alone; a region still too big is
cut between the children of its list (``SPLITTABLE``): its first part replaces the region as
before, and the rest is appended to the list by ``hx-swap-oob="beforeend"`` frames, in order, as
a chat line is. The table's version stamp (``#table-version``) rides in every frame, so the page's
check for an older frame (static/js/table.js) treats each part as the frame it came from.

The cutting reads the frame's own elements with the standard library's HTML parser: only for a
frame over the limit, a few per thousand at the largest tables.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from html.parser import HTMLParser

from games.tables.socket_limits import SERVER_FRAME_BYTES

logger = logging.getLogger(__name__)

# The lists a region may be cut in (their children are seats, log lines, chat lines, the lobby's rows).
SPLITTABLE = frozenset({"table-seats", "table-log-lines", "chat-lines", "lobby-rows"})
STAMP_ID = "table-version"
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


def within_limit(html: str, *, limit: int = SERVER_FRAME_BYTES) -> list[str]:
    """``html`` as frames of at most ``limit`` UTF-8 bytes each, which applied in order give the
    page what ``html`` would (the same frame, when it fits)."""
    if len(html) * 4 <= limit or len(html.encode("utf-8")) <= limit:
        return [html]
    return _split(html, limit)


@dataclass
class _Element:
    tag: str
    id: str
    start: int
    open_end: int
    close_start: int = -1
    end: int = -1
    children: list[_Element] = field(default_factory=list)


class _Reader(HTMLParser):
    """Every element's place in the text (start tag, end tag) and its children."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.text = text
        self.line_starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self.line_starts.append(index + 1)
        self.top: list[_Element] = []
        self.open: list[_Element] = []

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def _add(self, element: _Element) -> None:
        (self.open[-1].children if self.open else self.top).append(element)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        element = _Element(tag=tag, id=dict(attrs).get("id") or "", start=start, open_end=start + len(raw))
        self._add(element)
        if tag in _VOID:
            element.close_start = element.end = element.open_end
        else:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        end = start + len(self.get_starttag_text() or "")
        self._add(
            _Element(
                tag=tag, id=dict(attrs).get("id") or "", start=start, open_end=end, close_start=end, end=end
            )
        )

    def handle_endtag(self, tag: str) -> None:
        start = self._offset()
        while self.open:
            element = self.open.pop()
            if element.tag == tag:
                element.close_start = start
                element.end = self.text.index(">", start) + 1
                return


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _split(html: str, limit: int) -> list[str]:
    reader = _Reader(html)
    reader.feed(html)
    reader.close()
    top = reader.top
    if any(e.end < 0 for e in top) or any(html[a.end : b.start].strip() for a, b in itertools.pairwise(top)):
        logger.error("a frame of %d bytes is not a list of regions: sent whole", _nbytes(html))
        return [html]
    stamp = "".join(html[e.start : e.end] for e in top if e.id == STAMP_ID)
    budget = limit - _nbytes(stamp)
    pieces: list[str] = []
    for element in top:
        if element.id != STAMP_ID:
            pieces += _region_pieces(html, element, budget)
    frames: list[str] = []
    current: list[str] = []
    size = 0
    for piece in pieces:
        cost = _nbytes(piece)
        if current and size + cost > budget:
            frames.append(stamp + "".join(current))
            current, size = [], 0
        current.append(piece)
        size += cost
    if current:
        frames.append(stamp + "".join(current))
    for frame in frames:
        if _nbytes(frame) > limit:
            logger.error("a frame part of %d bytes is over the socket's limit of %d", _nbytes(frame), limit)
    return frames


def _find(element: _Element) -> _Element | None:
    if element.id in SPLITTABLE:
        return element
    for child in element.children:
        found = _find(child)
        if found is not None:
            return found
    return None


def _region_pieces(html: str, region: _Element, budget: int) -> list[str]:
    """The region whole, or cut between the children of its list: the first part in the region's
    own markup, the rest appended to the list."""
    whole = html[region.start : region.end]
    box = _find(region) if _nbytes(whole) > budget else None
    if box is None or not box.children:
        return [whole]
    head = html[region.start : box.children[0].start]
    tail = html[box.close_start : region.end]
    more_head = f'<{box.tag} id="{box.id}" hx-swap-oob="beforeend">'
    more_tail = f"</{box.tag}>"
    pieces: list[str] = []
    group: list[str] = []
    size = 0
    ends = [child.start for child in box.children[1:]] + [box.close_start]
    for child, end in zip(box.children, ends, strict=True):
        text = html[child.start : end]  # with the white space after it, as the page had it
        cost = _nbytes(text)
        wrap = _nbytes(head + tail) if not pieces else _nbytes(more_head + more_tail)
        if group and size + cost + wrap > budget:
            pieces.append(
                (head + "".join(group) + tail) if not pieces else (more_head + "".join(group) + more_tail)
            )
            group, size = [], 0
        group.append(text)
        size += cost
    pieces.append((head + "".join(group) + tail) if not pieces else (more_head + "".join(group) + more_tail))
    return pieces
