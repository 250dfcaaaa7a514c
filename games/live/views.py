"""What one viewer may see of a table: built from the engine's view for their seat.

Hidden cards never leave the server: a card is put into the view only when the engine's view for
this viewer holds it (own cards, hands shown at a showdown) or it was shown at the showdown of the
last hand. Templates get only this dict, so nothing can be hidden with CSS by mistake.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson
from django.utils import translation
from django.utils.translation import gettext as _
from markupsafe import Markup, escape

from games.engine.cards import RANKS, SUIT_SYMBOLS, SUITS
from games.engine.hand import BETTING, DARK, JOIN
from games.engine.table_rules import chips_to_be_dealt_in
from games.live.document import Doc, hand_of, position_of
from games.live.entries import entry, shown_name, word_entry
from games.live.transitions import ended_chips
from games.rules_content import card_name
from svara_site.jinja2 import active_words, chips

# (language, card) -> the card's view: a card's words never change, and naming one asks the
# catalogue a dozen times (games/rules_content.py). Shared, so read-only for the templates.
_CARD_VIEWS: dict[tuple[str, int], dict[str, Any]] = {}


def card_view(card: int, *, language: str | None = None) -> dict[str, Any]:
    """The card's view in ``language`` (default the active one; a caller naming many cards
    passes it, as asking Django for the active language costs more than the lookup here)."""
    key = (language or translation.get_language() or "", card)
    view = _CARD_VIEWS.get(key)
    if view is None:
        view = _CARD_VIEWS[key] = _card_view(card)
    return view


def _card_view(card: int) -> dict[str, Any]:
    rank, suit = RANKS[card % 8], SUITS[card // 8]
    return {
        "text": rank + suit,
        "rank": rank,
        "suit": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "red": suit in ("D", "H"),
        # As players name the card, in the viewer's language: "seven of clubs", "седмица спатия".
        "label": card_name(card),
    }


def render_entry(item: Any, *, gettext: Callable[[str], str] | None = None) -> str:
    """An entry in the active language, chip counts grouped as the regions write them (1,000; 1 000).

    ``gettext`` may be the active language's own (a catalogue's bound method), which a caller
    wording a whole log passes to skip Django's lookup of the active language for every line."""
    return word_entry(item, gettext=gettext or _, number=chips)


def build_view(doc: Doc, *, user_id: int | None, version: int) -> dict[str, Any]:
    """The view for one viewer. ``doc`` is only read: the sockets of a table share it."""
    language = translation.get_language() or ""
    hand = hand_of(doc)
    info = doc["hand"]
    my_pos = position_of(doc, user_id) if user_id is not None else None
    my_index = info["positions"].index(my_pos) if hand and my_pos in info["positions"] else None
    engine = hand.view_for(my_index) if hand else None
    by_pos = {info["positions"][p["seat"]]: p for p in engine["players"]} if engine else {}
    # A svara's replay is dealt but not shown yet: everyone sees the tied showdown instead.
    pause = info.get("svara") if hand else None
    last = doc.get("last")
    to_act_pos = info["positions"][hand.to_act] if hand and hand.to_act is not None else None
    # An ended hand's seats take its result only when it is settled (the worker's next tick, or
    # later under load); until then they showed the chips each had before the hand.
    final = ended_chips(doc) if hand is None else {}
    seats = []
    for pos, seat in enumerate(doc["seats"]):
        if seat is None:
            seats.append({"position": pos, "empty": True})
            continue
        player = by_pos.get(pos)
        cards = None
        points = None
        if pause is not None:
            if str(pos) in pause["shown"]:
                points, cards = pause["shown"][str(pos)]
        elif player is not None and player["cards"] is not None:
            cards, points = player["cards"], player["points"]
            if pos == my_pos and points is None:
                points = engine["own_points"]
        elif hand is None and last and str(pos) in last["cards"]:
            cards, points = last["cards"][str(pos)], last["points"][str(pos)]
        seats.append(
            {
                "position": pos,
                "empty": False,
                "name": shown_name(seat["name"]),
                "user_id": seat["user_id"],
                "chips": player["chips"] if player else final.get(pos, seat["chips"]),
                "bet": player["bet"] if player else 0,
                "in_hand": bool(player and player["in_hand"]),
                "has_cards": bool(player and player["has_cards"] and player["in_hand"]) and pause is None,
                "cards": [card_view(c, language=language) for c in cards] if cards else None,
                "points": points,
                "is_me": pos == my_pos,
                "is_dealer": pos == doc["dealer"],
                "to_act": pos == to_act_pos and pause is None,
                "sitting_out": seat["sitting_out"],
                "leaving": seat["leaving"],
                "won": hand is None and last is not None and last["winner"] == pos,
            }
        )
    view: dict[str, Any] = {
        "version": version,
        "epoch": doc.get("epoch", ""),
        "table": doc["table"],
        "seats": seats,
        "my_position": my_pos,
        "seated": my_pos is not None,
        "hand": None,
        "last": _last_view(doc) if last else None,
        "timer": doc.get("timer"),
        # Stored as entries shared by every viewer; worded here in this viewer's active language.
        "log": (log := worded_log(doc)).lines,
        "log_html": log.html,
        "notice": render_entry(doc["notice"]) if doc.get("notice") is not None else None,
        "actions": None,
        "new_game": _new_game_offered(doc),
    }
    if hand is not None:
        view["hand"] = {
            "number": info["number"],
            "seed_hash": info["seed_hash"],
            "phase": hand.phase,
            "pot": hand.pot,
            "target": hand.target,
            "svaras": hand.svaras,
            "to_act": to_act_pos if pause is None else None,
            "join_fee": hand.join_fee or None,
            "svara_pause": _pause_view(doc, pause) if pause is not None else None,
        }
        legal = hand.legal()
        if pause is None and legal is not None and my_index is not None and legal.seat == my_index:
            view["actions"] = _actions(hand, legal)
    return view


# Words -> {entry as JSON: the line worded}. Each change adds a line to a log of up to 40 that
# every viewer words again: remembered, the log costs a fifth. Per catalogue, like Words' own.
_LINES: weakref.WeakKeyDictionary[Any, dict[bytes, str]] = weakref.WeakKeyDictionary()
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
_WORDED: weakref.WeakKeyDictionary[Any, dict[Any, WordedLog]] = weakref.WeakKeyDictionary()
WORDED_KEPT: Final = 1_000  # tables per language; all forgotten at once when full
NEW_LINES_FOLLOWED: Final = 4  # a change adds at most a few lines; more than that is worded anew


def worded_log(doc: Doc) -> WordedLog:
    """The table's log in the active language (a plain-string line is shown as it is). What it
    returns may be shared with other viewers of the same document: read-only."""
    words = active_words()
    log = doc["log"]
    by_table = _WORDED.get(words)
    if by_table is None or len(by_table) >= WORDED_KEPT:
        by_table = _WORDED[words] = {}
    table_id = doc["table"].get("id")
    last = by_table.get(table_id)
    if last is not None and last.entries is log:
        return last
    worded = _follow(last, log, words) if last is not None else None
    if worded is None:
        lines = _word_lines(log, words)
        worded = WordedLog.of(entries=log, lines=lines, items=[_item(line) for line in lines])
    by_table[table_id] = worded
    return worded


def _follow(last: WordedLog, log: list[Any], words: Any) -> WordedLog | None:
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


def _word_lines(log: list[Any], words: Any) -> list[str]:
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


def _actions(hand, legal) -> dict[str, Any]:
    stake = hand.stake
    actions: dict[str, Any] = {"verbs": list(legal.verbs), "phase": hand.phase}
    if hand.phase == DARK:
        actions["dark_amount"] = legal.dark_amount
    if hand.phase == JOIN:
        actions["join_fee"] = legal.join_fee
    if hand.phase == BETTING:
        actions["to_call"] = legal.to_call
        actions["call_to"] = hand.target
        actions["pass"] = hand.target == 0
        if legal.raise_range:
            low, high = legal.raise_range
            quick = []
            for label, factor in (("x2", 2), ("x5", 5), ("x10", 10)):
                amount = min(max(low, hand.target * factor if hand.target else stake * factor), high)
                quick.append({"label": label, "amount": amount})
            quick.append({"label": "MAX", "amount": high})
            actions["raise"] = {"min": low, "max": high, "step": stake, "quick": quick}
    return actions


def _pause_view(doc: Doc, pause: dict[str, Any]) -> dict[str, Any]:
    names = [doc["seats"][p]["name"] for p in pause["tied"] if doc["seats"][p]]
    # Worded as the log words a list of names ("ann and bob", the computer's in the viewer's words).
    worded = render_entry(entry("%(names)s", names=names))
    return {"until": pause["until"], "names": worded, "points": pause["points"]}


def _last_view(doc: Doc) -> dict[str, Any]:
    last = doc["last"]
    # The name as the hand ended: the winner may have left since, and the seat be empty or taken.
    name = last.get("winner_name")
    if name is None:  # a document written before the name was kept
        seat = doc["seats"][last["winner"]] if last["winner"] is not None else None
        name = seat["name"] if seat else "?"
    return {
        "number": last["number"],
        "seed_hash": last["seed_hash"],
        "server_seed": last["server_seed"],
        "client_seeds": last["client_seeds"],
        "pot": last["pot"],
        "winner_name": shown_name(name),
    }


def _new_game_offered(doc: Doc) -> bool:
    """A practice table between hands where one side cannot play another hand."""
    if not doc["table"].get("practice") or doc["hand"] or doc.get("ended"):
        return False
    need = chips_to_be_dealt_in(doc["table"]["stake"])
    return any(s["chips"] < need for s in doc["seats"] if s)
