"""Every region of the table for one viewer: the frame the table's socket sends on each change and
the table page paints first, rendered from that viewer's view (games/live/views.py) with Jinja2
(templates/jinja2/games/table/_regions.html; why Jinja2 there: jinja2.py)."""

from __future__ import annotations

import functools
import secrets
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from games.engine.table_rules import buy_in_range, top_up
from games.kinds import Broke, kind_of_settings
from games.live import process
from games.tables.ui.cards import card_html
from games.tables.ui.jinja2 import fixed_template, render_in_language
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


def render_regions(
    *, view: dict[str, Any], error: str | None = None, announce: list[str] | None = None
) -> SafeString:
    """Every region of the table for one viewer, in the active language; ``announce``: the lines
    for the page's live region (ui/announce.py), which the first paint has none of."""
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
    # Worded once per document and language, shared by every viewer of it (log.py).
    log = worded_log(table_id=view["table"].get("id"), entries=view["log"])
    with render_in_language():
        html = fixed_template(REGIONS_TEMPLATE).render(
            {
                "v": view,
                "error": error,
                "announce": announce,
                "notice": worded_notice(view["notice"]),
                "log_html": log.html,
                "card": card_html,
                "my_seat": my_seat,
                "top_up": short,
                "may_add_chips": kind.may_add_chips,
                "user_is_authenticated": True,
                "action_id": secrets.token_hex(8),
                "buy_in": buy_in_range(stake),
                "keys": MOVE_KEYS,
                "server_now": int(process.now()),
                "fair_deck_url": _fair_deck_url(),
                "profile_url": _profile_url(),
            }
        )
    return mark_safe(html)  # autoescaped by the template
