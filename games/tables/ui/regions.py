"""Every region of the table for one viewer: the frame the table's socket sends on each change and
the table page paints first, rendered with Jinja2 (templates/jinja2/games/table/_regions.html; why
Jinja2 there: jinja2.py).

Rendered once, not once per socket: most of a frame is the same for every viewer of a version (the
seats as the table shows them, the pot, the log, the notice). That part (``Shared``) is rendered
from the table's public view only (``games.live.views.PublicView``, which holds no card a spectator
may not see), once per table version, language and clock second, and kept for every socket of the
process (``shared_regions``); each viewer's frame splices into it what their own view changes
(``personal_frame``: their seat with their cards, "Your turn", their moves, what is announced to
them, an error). The template marks those places as slots; the spliced frame is the same text as
the page's render for that viewer (``render_regions``), which the model-based test checks on every
step for every viewer (tests/live/table_model.py).
"""

from __future__ import annotations

import functools
import re
import secrets
from dataclasses import dataclass
from typing import Any, Final

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from markupsafe import Markup

from games.engine.table_rules import buy_in_range, top_up
from games.kinds import Broke, kind_of_settings
from games.live import process
from games.live.document import Doc
from games.live.views import PublicView, public_view
from games.tables.ui.cards import card_html
from games.tables.ui.jinja2 import Words, active_words, fixed_template, render_in_language
from games.tables.ui.log import worded_log, worded_notice

REGIONS_TEMPLATE = "games/table/_regions.html"
# The keyboard key of each move's button (static/js/table.js reads data-key).
MOVE_KEYS = {"fold": "f", "call": "c", "dark": "d", "decline": "n", "join": "j", "skip": "s"}


@functools.cache
def _fair_deck_url() -> str:
    return reverse("fair_deck")


@functools.cache
def _profile_url() -> str:
    return reverse("profile")


# A slot's marks: a token no text of a table can hold (made afresh per process; user text is only
# ever escaped, which leaves it as it is, so it must be unguessable rather than unprintable).
_MARK: Final = "\x00" + secrets.token_hex(8)
_OPEN: Final = _MARK + "{}" + _MARK
_CLOSE: Final = Markup(_MARK + "/" + _MARK)
# A slot as it comes out of a render: (its name, its content).
_SLOT: Final = re.compile(
    re.escape(_MARK) + "([^\x00/]*)" + re.escape(_MARK) + "(.*?)" + re.escape(_CLOSE), re.S
)
_SLOT_NAMES: Final = ("announce", "notice", "me", "turn", "won", "actions")
MOST_SEATS: Final = 10  # more than any table has (2-6)
# The template writes a slot as ``{{ o.NAME }}...{{ c }}`` (a seat's ``o.seat[position]``): plain
# values, as a call through the template's context cost more than a line of markup.
_MARKS: Final = {
    **{name: Markup(_OPEN.format(name)) for name in _SLOT_NAMES},
    "seat": [Markup(_OPEN.format(f"seat{i}")) for i in range(MOST_SEATS)],
}
_NO_MARKS: Final = {**{name: Markup("") for name in _SLOT_NAMES}, "seat": [Markup("")] * MOST_SEATS}


def render_regions(
    *,
    view: dict[str, Any],
    error: str | None = None,
    announce: list[str] | None = None,
    action_id: str | None = None,
) -> SafeString:
    """Every region of the table for one viewer, in the active language; ``announce``: the lines
    for the page's live region (ui/announce.py), which the first paint has none of. The page's
    first paint; the socket sends the same text spliced (``frame``)."""
    html = _render(
        part="page",
        view=view,
        seated=view["seated"],
        error=error,
        announce=announce,
        action_id=action_id,
        marks=False,
    )
    return mark_safe(html)  # autoescaped by the template


@dataclass(frozen=True, slots=True)
class Shared:
    """What every viewer of a table version sees, in one language: the text between the slots,
    and each slot as a spectator sees it (a viewer's own parts replace some)."""

    texts: tuple[str, ...]  # one more than the slots: the text before, between and after them
    slots: tuple[tuple[str, str], ...]  # (name, the spectator's content)

    def spliced(self, personal: dict[str, str]) -> str:
        out = [self.texts[0]]
        for (name, default), text in zip(self.slots, self.texts[1:], strict=True):
            out.append(personal.get(name, default))
            out.append(text)
        return "".join(out)

    def spectators(self) -> str:
        """The shared part with every slot as a spectator sees it."""
        return self.spliced({})


def render_shared(*, public: PublicView, seated: bool, action_id: str | None = None) -> Shared:
    """The shared part of every frame of a version, in the active language, from the public view
    only: ``seated`` says whether its viewers sit at the table (free seats then offer no sit form)."""
    if not isinstance(public, PublicView):  # a viewer's view may hold their cards: never shared
        raise TypeError(f"the shared part is rendered from a PublicView, not {type(public).__name__}")
    html = _render(part="shared", view=public.data, seated=seated, action_id=action_id, marks=True)
    pieces = _SLOT.split(html)
    return Shared(
        texts=tuple(pieces[0::3]),
        slots=tuple(zip(pieces[1::3], pieces[2::3], strict=True)),
    )


def render_personal(
    *,
    view: dict[str, Any],
    error: str | None = None,
    announce: list[str] | None = None,
    action_id: str | None = None,
) -> dict[str, str]:
    """One viewer's own slots (their seat, "Your turn", their moves, the announcement, an error)."""
    html = _render(
        part="personal",
        view=view,
        seated=view["seated"],
        error=error,
        announce=announce,
        action_id=action_id,
        marks=True,
    )
    return dict(_SLOT.findall(html))


def frame(
    *,
    shared: Shared,
    view: dict[str, Any],
    error: str | None = None,
    announce: list[str] | None = None,
    action_id: str | None = None,
) -> SafeString:
    """One viewer's frame: the shared part with their own slots spliced in (the text of
    ``render_regions`` for the same view)."""
    personal = render_personal(view=view, error=error, announce=announce, action_id=action_id)
    return mark_safe(shared.spliced(personal))


@dataclass(slots=True)
class _Kept:
    """The shared parts of one table's newest version (per language, and whether seated)."""

    stamp: tuple[Any, int, int]  # (epoch, version, the clock's second)
    doc: Doc  # the document they were rendered from
    parts: dict[tuple[Words, bool], Shared]


# table id -> its newest version's shared parts, for every socket of the table in this process.
# A table's (epoch, version) names one document: the epoch is new in each life of the table in
# the store, and every change adds one to the version; a document without an epoch (made by hand
# in a test) is matched by identity only. The clock's second is part of the stamp because the
# countdowns carry the server's time (``server_now``).
_SHARED: dict[Any, _Kept] = {}
SHARED_KEPT: Final = 2_000  # tables; the least recently used is forgotten first


def shared_regions(*, table_id: Any, doc: Doc, version: int, seated: bool) -> Shared:
    """The shared part of ``doc`` at ``version`` in the active language, rendered once for every
    socket of the table in this process (the first to ask renders it)."""
    stamp = (doc.get("epoch"), version, int(process.now()))
    kept = _SHARED.pop(table_id, None)  # put back last: the dict's order is the order of use
    if kept is None or kept.stamp != stamp or (stamp[0] is None and kept.doc is not doc):
        kept = _Kept(stamp=stamp, doc=doc, parts={})
    _SHARED[table_id] = kept
    if len(_SHARED) > SHARED_KEPT:
        del _SHARED[next(iter(_SHARED))]
    key = (active_words(), seated)
    shared = kept.parts.get(key)
    if shared is None:
        shared = kept.parts[key] = render_shared(public=public_view(doc, version=version), seated=seated)
    return shared


def forget_shared() -> None:
    """Tests: start from nothing."""
    _SHARED.clear()


def _render(
    *,
    part: str,
    view: dict[str, Any],
    seated: bool,
    marks: bool,
    error: str | None = None,
    announce: list[str] | None = None,
    action_id: str | None = None,
) -> str:
    stake = view["table"]["stake"]
    my_seat = view["seats"][view["my_position"]] if view["my_position"] is not None else None
    # A seat under what a hand needs, between its hands, at a table where such a seat sits out: the
    # adds that deal it in again (a practice table offers a new game instead; a leaving seat is
    # going anyway).
    short = None
    kind = kind_of_settings(view["table"])
    if (
        my_seat is not None
        and not my_seat["in_hand"]
        and not my_seat["leaving"]
        and kind.broke is Broke.SITS_OUT
    ):
        short = top_up(chips=my_seat["chips"], stake=stake)
    context: dict[str, Any] = {
        "part": part,
        "o": _MARKS if marks else _NO_MARKS,
        "c": _CLOSE if marks else _NO_MARKS["announce"],
        "v": view,
        "seated": seated,
        "error": error,
        "announce": announce,
        "card": card_html,
        "my_seat": my_seat,
        "top_up": short,
        "may_add_chips": kind.may_add_chips,
        "user_is_authenticated": True,
        "action_id": action_id or secrets.token_hex(8),
        "buy_in": buy_in_range(stake),
        "keys": MOVE_KEYS,
        "server_now": int(process.now()),
        "fair_deck_url": _fair_deck_url(),
        "profile_url": _profile_url(),
    }
    if part != "personal":
        # Worded once per document and language, shared by every viewer of it (log.py).
        context["log_html"] = worded_log(table_id=view["table"].get("id"), entries=view["log"]).html
        context["notice"] = worded_notice(view["notice"])
    with render_in_language():
        return fixed_template(REGIONS_TEMPLATE).render(context)
