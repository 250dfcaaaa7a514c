"""A table in play as one JSON document: its shape, how one is made and copied, and what it says of
itself (who sits where, the hand in play).

The document::

    table     settings: id, name, stake, seat_count, dark_play, turn_seconds, status, private, kind
              (games.kinds: the table's policy, ``table_kind(doc)``)
    seats     one entry per position: None or {user_id, name, chips, sitting_out, away,
              timeouts, leaving, client_seed, bot, added}. ``chips`` is the seat's ledger balance,
              which changes only between hands (buy-in, cash-out, settlement); chips added during
              the seat's hand wait in ``added`` (in the ledger already) until it is settled.
    dealer    position of the last hand's dealer (None before the first)
    hand      the hand in play: {number, positions, players, state (engine JSON), server_seed,
              seed_hash, client_seeds, started_at, svara (a svara's pause), moves (each seat's
              last move of the round)} or None
    ended     a finished hand whose result is not yet settled in the database, or None
    last      what everyone may see of the last hand: number, seed hash (never the seed: it is
              revealed only when the table's seed series ends, games.live.series),
              winner, pot, shown hands; and each hand dealt, which a view gives its own player only
    timer     {"kind": "turn" | "start" | "settle" | "bot" | "svara", "at": unix seconds} or None
    action_ids  recent action ids, so a repeated command is applied once
    log       recent lines of the table's log (newest last), as entries (entries.py)
    notice    a one-off message for everyone (hand cancelled, table closed): an entry, or None
    epoch     this life of the table in the store (a rebuild starts a new one); touched: last change

The transitions (table.py) change it, the service (service.py) stores it; nothing here does I/O.
``Refused`` messages go to the one player who acted, so they are translated when raised: the
table's socket runs each command in its viewer's language.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

import orjson
from django.utils.translation import gettext as _

from games.engine.hand import Hand
from games.kinds import TableKind, kind_of_settings

# A log line or notice (entries.py): an event, {"e": its kind, **its arguments}, worded by the kind's
# message; {"msg": a message marked with gettext_noop, **its arguments} (a notice, or a line of a
# document written before); or a plain string shown as it is (a staff member's reason).
Entry = dict[str, Any]


class TableSettings(TypedDict):
    id: int
    name: str
    stake: int
    seat_count: int
    dark_play: bool
    turn_seconds: int
    status: str
    private: bool
    kind: str  # the name of the table's kind (games.kinds)
    time_bank: NotRequired[int]  # seconds each player's bank holds per sitting (turn_time.py); missing: none


class SeatDoc(TypedDict):
    user_id: int
    name: str  # a username, or the computer's name as a msgid (entries.COMPUTER_NAMES)
    chips: int  # the seat's ledger balance (its table chips where the kind's chips are not money)
    sitting_out: bool
    away: bool  # sat out by the clock (two timeouts), not by the player
    timeouts: int
    leaving: bool
    client_seed: str
    bot: NotRequired[str]  # the computer's level where it plays the seat ("" or missing: a person)
    bank: NotRequired[int]  # seconds of time bank left this sitting (turn_time.py); missing: all of it
    added: NotRequired[int]  # chips added during the seat's hand, joining ``chips`` at its settlement
    face: NotRequired[str]  # the player's face when they sat down (accounts/faces.py); missing: none


class SvaraPause(TypedDict):
    until: float
    shown: dict[str, list[Any]]  # position -> [points, cards] as shown at the tie
    tied: list[int]
    points: int


class HandDoc(TypedDict):
    number: int
    positions: list[int]  # the seats dealt in, in the engine's seat order
    players: list[int]  # their user ids, in the same order
    state: dict[str, Any]  # the engine's Hand.to_json()
    server_seed: str
    seed_hash: str
    client_seeds: list[str]
    started_at: str
    svara: NotRequired[SvaraPause]
    # Position -> the seat's last move of this round: [verb] or [verb, what it put in]; emptied
    # when a round begins (transitions._note_move; shown on the seat).
    moves: NotRequired[dict[str, list[Any]]]


class LastHand(TypedDict):
    number: int
    seed_hash: str
    server_seed: NotRequired[str]  # only in documents written before seed series: never shown now
    client_seeds: list[str]
    winner: int | None  # None: a svara called off (every tied player left, RULES.md §5)
    winner_name: NotRequired[str | None]  # missing in documents written before it was kept
    pot: int
    points: dict[str, int]  # position -> points shown
    cards: dict[str, list[int]]  # position -> cards shown
    # Position -> every hand dealt, and the positions that folded: a player's view takes only its
    # own (views.py), to show it at the result. Missing in documents written before.
    dealt: NotRequired[dict[str, list[int]]]
    folded: NotRequired[list[int]]
    # Position -> the user who played it in this hand: what a view shows as a seat's result is
    # that player's only. Missing in documents written before (then no hand is shown as one's own).
    players: NotRequired[dict[str, int]]


class Timer(TypedDict):
    kind: Literal["turn", "start", "settle", "bot", "svara"]
    at: float
    bank: NotRequired[bool]  # a turn's clock running on the player's time bank (turn_time.py)


class Doc(TypedDict):
    table: TableSettings
    seats: list[SeatDoc | None]
    dealer: int | None
    hand: HandDoc | None
    ended: HandDoc | None
    last: LastHand | None
    timer: Timer | None
    action_ids: list[str]
    log: list[Entry | str]
    notice: Entry | str | None
    epoch: NotRequired[str]
    touched: NotRequired[float]
    stacked_decks: NotRequired[list[list[int]]]  # the test hook's decks for the next hand


def seat_at(doc: Doc, pos: int) -> SeatDoc:
    """The player at ``pos``, for code that knows someone sits there (dealt in, to act, leaving)."""
    seat = doc["seats"][pos]
    if seat is None:
        raise LookupError(f"nobody sits at seat {pos}")
    return seat


def hand_doc(doc: Doc) -> HandDoc:
    """The hand in play, for code that knows there is one."""
    hand = doc["hand"]
    if hand is None:
        raise LookupError("no hand in play")
    return hand


class Refused(ValueError):
    """A command the table does not accept now; the message is for the player.

    ``code`` names a refusal that a caller acts on (``seat_taken``), since the message itself is
    in the player's language.
    """

    def __init__(self, message: str, *, code: str = "") -> None:
        super().__init__(message)
        self.code = code


def copy_doc(doc: Doc) -> Doc:
    """A copy the caller may change freely, but for the log's entries: shared, as nothing changes
    an entry once written (``entries.add_line`` makes a new list with a new one). The log is two
    thirds of a document, so copying the rest costs under half as much (12 against 32 us); and
    comparing the log with the one last worded for a viewer (games/tables/ui/log.py) is then mostly
    identity checks.

    The document is JSON by contract, and a JSON round trip copies it several times faster than
    copy.deepcopy (which bench/load.py found on every move); orjson's round trip is five times
    faster again. Integer keys become strings, as they do in the store."""
    log = doc.get("log")
    rest = {key: value for key, value in doc.items() if key != "log"}
    copy: Doc = orjson.loads(orjson.dumps(rest, option=orjson.OPT_NON_STR_KEYS))
    if log is not None:
        copy["log"] = list(log)
    return copy


def new_table_doc(*, table: TableSettings, seats: list[SeatDoc | None]) -> Doc:
    return {
        "table": table.copy(),
        "seats": [s.copy() if s else None for s in seats],
        "dealer": None,
        "hand": None,
        "ended": None,
        "last": None,
        "timer": None,
        "action_ids": [],
        "log": [],
        "notice": None,
    }


def seat_entry(
    *,
    user_id: int,
    name: str,
    chips: int,
    client_seed: str = "",
    sitting_out: bool = False,
    bot: str = "",
    face: str = "",
) -> SeatDoc:
    """A seat in the document; ``bot`` names the computer's level when the computer plays it, and
    ``face`` the player's face, carried here so that drawing a seat reads no database."""
    return {
        "bot": bot,
        "face": face,
        "user_id": user_id,
        "name": name,
        "chips": chips,
        "sitting_out": sitting_out,
        "away": False,
        "timeouts": 0,
        "leaving": False,
        "client_seed": client_seed,
    }


def position_of(doc: Doc, user_id: int) -> int | None:
    for pos, seat in enumerate(doc["seats"]):
        if seat and seat["user_id"] == user_id:
            return pos
    return None


def copy_with_own_seat(doc: Doc, *, user_id: int) -> tuple[Doc, int]:
    """A copy of the document and the player's seat position, or Refused if they have none."""
    pos = position_of(doc, user_id)
    if pos is None:
        raise Refused(_("you are not seated at this table"))
    return copy_doc(doc), pos


def hand_of(doc: Doc) -> Hand | None:
    hand = doc["hand"]
    return Hand.from_json(hand["state"]) if hand else None


def in_current_hand(doc: Doc, position: int) -> bool:
    hand = doc["hand"]
    return hand is not None and position in hand["positions"]


def table_kind(doc: Doc) -> TableKind:
    """The policy of the table's kind (games.kinds): every answer that differs between kinds."""
    return kind_of_settings(doc["table"])


def shape_problem(doc: dict[str, Any]) -> str | None:
    """What keeps a decoded document from being a table's (None: nothing). The store holds any
    JSON object; one written by hand or by a bug (valid JSON, wrong shape) would fail every
    command and the sweep on it, so the service checks the parts every path reads before using
    it, and quarantines a document that fails (service.py). A few type checks: it runs on
    every change."""
    table = doc.get("table")
    if not isinstance(table, dict) or not isinstance(table.get("stake"), int):
        return "no table settings with a stake"
    seats = doc.get("seats")
    if not isinstance(seats, list) or not seats:
        return "no list of seats"
    for seat in seats:
        if seat is None:
            continue
        if not isinstance(seat, dict) or not all(isinstance(seat.get(k), int) for k in ("user_id", "chips")):
            return "a seat without a player or chips"
    for key in ("hand", "ended", "timer"):
        if not isinstance(doc.get(key, 0), dict | None):
            return f"{key} is neither an object nor null"
    if not isinstance(doc.get("log"), list) or not isinstance(doc.get("action_ids"), list):
        return "no log or action ids"
    timer = doc.get("timer")
    if timer is not None and not isinstance(timer.get("at"), int | float):
        return "a timer without a time"
    return None
