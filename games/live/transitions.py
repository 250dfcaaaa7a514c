"""How a table in play changes: pure functions from its document (document.py) to the next one.

Nothing here does I/O: each function takes the document (and the time, and whatever the
database said), and returns a new document or raises ``Refused`` with a message for the player.
The service (service.py) runs them inside the store's compare-and-set, so they may run more than
once and must not have side effects. Game rules are the engine's (games.engine.hand); this module
only decides who is dealt in, when hands start, what the clock does, and what the log says of it
(entries.py): the engine says what each move did (its events, games.engine.events), and the log
keeps those events, worded when a viewer's frame is rendered.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from typing import Any, cast

from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.engine.events import WON, CalledOff, Move, Outcome, ReplayDealt, SvaraOpened, Won
from games.engine.fairness import seed_hash
from games.engine.hand import FINISHED, JOIN, LEAVE, PLAYER_VERBS, Hand, IllegalAction
from games.engine.table_rules import can_be_dealt_in, chips_to_be_dealt_in
from games.live.document import (
    Doc,
    Refused,
    SeatDoc,
    copy_doc,
    copy_with_own_seat,
    hand_doc,
    hand_of,
    in_current_hand,
    position_of,
    seat_at,
)
from games.live.entries import add_line, set_notice
from games.live.turn_time import clock_out, turn_deadline

START_DELAY = 3.0  # seconds between the last player getting ready and the deal
# Seconds the result stays on screen before the next hand: long enough to read the winning hand
# at a showdown (it stayed 3-4 s, issue 35); a hand won by a fold shows no cards, so less.
SHOWDOWN_PAUSE = 6.0
FOLD_PAUSE = 4.0
SVARA_PAUSE = 4.0  # seconds a svara's tied hands stay on screen before its replay is dealt
JOIN_SECONDS = 15  # RULES.md §4 step 6
TIMEOUTS_TO_SIT_OUT = 2  # RULES.md §5
# A repeat comes from a client retrying a move it sent a moment ago; one older than the last 16
# moves at the table is refused as stale instead (it was made on an old version), so it is still
# applied once. 64 of them were a fifth of the document every change writes and announces.
ACTION_IDS_KEPT = 16
VERBS = PLAYER_VERBS
WHOLE_LIMIT = 10**12
_DIGITS = re.compile(r"[0-9]{1,12}")
# What the page sends: hex digits and a suffix. Kept in the document, so nothing the store's JSON
# could not read back (a lone surrogate) and nothing long.
ACTION_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


# The engine's refusals (games.engine.hand.REFUSALS) by code, worded for translation; the
# engine itself imports nothing from Django and keeps its English text for the hand file.
ENGINE_REFUSALS = {
    "hand_over": gettext_noop("the hand is over"),
    "unknown_move": gettext_noop("unknown move %(verb)s: use one of %(verbs)s"),
    "no_such_seat": gettext_noop("no such seat"),
    "nobody_to_act": gettext_noop("nobody can act now"),
    "not_your_turn": gettext_noop("not your turn: it is %(name)s's"),
    "timeout_no_amount": gettext_noop("a timeout takes no amount"),
    "dark_round": gettext_noop("the cards are not dealt yet: bet dark or decline"),
    "no_amount": gettext_noop("%(verb)s takes no amount"),
    "amount_not_whole": gettext_noop("an amount must be a whole number of chips"),
    "dark_amount": gettext_noop("a dark bet now is %(due)s, not %(amount)s"),
    "join_or_skip": gettext_noop("it is time to join the svara (fee %(fee)s) or skip"),
    "dark_round_over": gettext_noop("the dark round is over"),
    "no_svara": gettext_noop("there is no svara to join"),
    "nothing_to_call": gettext_noop("nothing to call: pass or raise"),
    "raise_amount_missing": gettext_noop("say how much to raise to"),
    "raise_not_whole": gettext_noop("a raise must be a whole number of chips"),
    "no_raise_possible": gettext_noop("no raise is possible: the cap is %(cap)s"),
    "raise_too_small": gettext_noop("the smallest raise is to %(low)s"),
    "raise_above_cap": gettext_noop("the most you can raise to is %(cap)s (the cap)"),
    "not_in_hand": gettext_noop("%(name)s is not in this hand"),
}


def engine_refusal(exc: IllegalAction) -> str:
    """The engine's refusal in the active language (its English message for an unknown code)."""
    text = ENGINE_REFUSALS.get(exc.code)
    if text is None:
        return str(exc)
    params = dict(exc.params)
    if "verb" in params and exc.code == "unknown_move":
        params["verb"] = repr(params["verb"])
    return _(text) % params


# ---------------------------------------------------------------- who plays, when


def ready_positions(doc: Doc) -> list[int]:
    """Seats that will be dealt in: not sitting out, not leaving, at least 2 S chips (RULES.md §3)."""
    need = chips_to_be_dealt_in(doc["table"]["stake"])
    return [
        pos
        for pos, seat in enumerate(doc["seats"])
        if seat and not seat["sitting_out"] and not seat["leaving"] and seat["chips"] >= need
    ]


def start_delay() -> float:
    """START_DELAY, or the settings' LIVE_START_DELAY_MS (a benchmark shortens the pauses so that
    the servers, not the fixed waits of every hand, set how many moves a second the tables make)."""
    ms = getattr(settings, "LIVE_START_DELAY_MS", None)
    return START_DELAY if ms is None else ms / 1000


def showdown_pause() -> float:
    """SHOWDOWN_PAUSE, or the settings' LIVE_SHOWDOWN_PAUSE_MS (see start_delay)."""
    ms = getattr(settings, "LIVE_SHOWDOWN_PAUSE_MS", None)
    return SHOWDOWN_PAUSE if ms is None else ms / 1000


def result_pause(doc: Doc) -> float:
    """How long the last hand's result stays: the showdown pause when cards were shown, else (won by
    a fold) FOLD_PAUSE, or the setting if that is shorter (a benchmark's)."""
    last = doc.get("last")
    if last and last.get("cards"):
        return showdown_pause()
    return min(showdown_pause(), FOLD_PAUSE)


def schedule_start(doc: Doc, *, now: float, delay: float | None = None) -> None:
    """Set (or push back) the start timer when a hand could start; clear it when none can."""
    if doc["hand"] or doc["ended"] or doc["table"]["status"] != "open":
        return
    if len(ready_positions(doc)) >= 2:
        doc["timer"] = {"kind": "start", "at": now + (start_delay() if delay is None else delay)}
    elif doc["timer"] and doc["timer"]["kind"] == "start":
        doc["timer"] = None


def start_hand(doc: Doc, *, number: int, now: float, started_at: str, server_seed: str | None = None) -> Doc:
    """Deal a new hand (the start timer fired). ``number`` comes from the database (the nonce).

    ``stacked_decks`` in the document (put there only by the test hook, games.live.testing)
    replace the fair decks of this one hand.
    """
    doc = copy_doc(doc)
    stacked = doc.pop("stacked_decks", None) or []
    if doc["hand"] or doc["ended"]:
        raise Refused(_("a hand is already in play"))
    positions = ready_positions(doc)
    if len(positions) < 2:
        doc["timer"] = None
        return doc
    # The dealer is drawn for the first hand, then moves one seat clockwise (RULES.md §3).
    previous = doc["dealer"]
    if previous is None:
        dealer = secrets.choice(positions)
    else:
        n = len(doc["seats"])
        dealer = next(p for p in ((previous + k) % n for k in range(1, n + 1)) if p in positions)
    seed = server_seed or _new_seed()
    client_seeds = [seat_at(doc, p)["client_seed"] for p in positions]
    stake = doc["table"]["stake"]
    hand = Hand.start(
        stake=stake,
        names=[seat_at(doc, p)["name"] for p in positions],
        chips=[seat_at(doc, p)["chips"] for p in positions],
        dealer=positions.index(dealer),
        dark_play=doc["table"]["dark_play"],
        decks=stacked,
        seeds={"server_seed": seed, "client_seeds": client_seeds, "nonce": number},
    )
    doc["dealer"] = dealer
    doc["hand"] = {
        "number": number,
        "positions": positions,
        "players": [seat_at(doc, p)["user_id"] for p in positions],
        "state": hand.to_json(),
        "server_seed": seed,
        "seed_hash": seed_hash(seed),
        "client_seeds": client_seeds,
        "started_at": started_at,
    }
    set_notice(doc, None)
    # No seed hash in the line: it crowded every hand's log for the few who check it, and it stays
    # in the fair-deck badge and the hand's record (issue 35).
    add_line(doc, "begins", number=number, dealer=seat_at(doc, dealer)["name"])
    _after_change(doc, hand, now=now, outcomes=hand.opening)
    return doc


def _new_seed() -> str:
    from games.engine.fairness import new_server_seed

    return new_server_seed()


# ---------------------------------------------------------------- commands


def check_command(doc: Doc, *, version: int, client_version: object, action_id: object) -> bool:
    """True when the command is new and fresh; False when its action id was already applied.

    A stale version is refused: the player acted on a table that has since changed.
    """
    if not isinstance(action_id, str) or not ACTION_ID.fullmatch(action_id):
        raise Refused(_("the command has no valid action id; reload the table"))
    if action_id in doc["action_ids"]:
        return False
    client_version = whole_number(client_version)
    if client_version is None:
        raise Refused(_("the command does not say which table version it was made on"))
    if client_version != version:
        raise Refused(_("the table has changed since you acted; here it is as it is now"))
    return True


def _remember(doc: Doc, action_id: str | None) -> None:
    if action_id:
        doc["action_ids"] = (doc["action_ids"] + [action_id])[-ACTION_IDS_KEPT:]


def whole_number(value: object) -> int | None:
    """A whole number as a form or a message gives one: an int (not a bool) or up to 12 ASCII
    digits, within a trillion either way; None for anything else. ``str.isdigit`` is not the test:
    it is true for "²" and other digits ``int`` cannot read."""
    if isinstance(value, str):
        text = value.strip()
        return int(text) if _DIGITS.fullmatch(text) else None
    if isinstance(value, int) and not isinstance(value, bool) and -WHOLE_LIMIT < value < WHOLE_LIMIT:
        return value
    return None


def parse_amount(value: object) -> int | None:
    """A form field amount: a whole number or nothing. Anything else is refused."""
    if value is None or value == "":
        return None
    amount = whole_number(value)
    if amount is None:
        raise Refused(_("the amount must be a whole number of chips"))
    return amount


def apply_move(
    doc: Doc, *, user_id: int, verb: str, amount: int | None, now: float, action_id: str | None
) -> Doc:
    """A player's decision in the hand in play."""
    if verb not in VERBS:
        raise Refused(_("unknown move %(verb)s") % {"verb": repr(verb)})
    pos = position_of(doc, user_id)
    if pos is None:
        raise Refused(_("you are not seated at this table"))
    if not doc["hand"]:
        raise Refused(_("there is no hand in play"))
    if pos not in hand_doc(doc)["positions"]:
        raise Refused(_("you are not in this hand"))
    if in_svara_pause(doc):
        raise Refused(_("the svara's replay is dealt in a moment"))
    doc = copy_doc(doc)
    hand = hand_of(doc)
    assert hand is not None
    seat_index = hand_doc(doc)["positions"].index(pos)
    try:
        if verb not in ("raise", "dark"):
            _no_amount(verb, amount)
        events = hand.act(seat_index, verb, amount if verb in ("raise", "dark") else None)
    except IllegalAction as exc:
        raise Refused(engine_refusal(exc)) from None
    seat = seat_at(doc, pos)
    seat["timeouts"] = 0
    # The move as the engine made it: a fold with nothing to call is a pass, as the button says;
    # its chips are what it put in (the bet raised to, for a raise).
    kind, _seat, chips = cast("Move", events[0])
    if chips is None:
        add_line(doc, kind, name=seat["name"])
    else:
        add_line(doc, kind, name=seat["name"], amount=chips)
    _note_move(doc, pos, verb=kind, amount=chips)
    _remember(doc, action_id)
    _after_change(doc, hand, now=now, outcomes=cast("tuple[Outcome, ...]", events[1:]))
    return doc


def _note_move(doc: Doc, pos: int, *, verb: str, amount: int | None) -> None:
    """The seat's last move of this round, shown on the seat until the next round begins."""
    moves = hand_doc(doc).setdefault("moves", {})
    moves[str(pos)] = [verb, amount] if amount is not None else [verb]


def _no_amount(verb: str, amount: int | None) -> None:
    """Refuse an amount given with a move that takes none; the move is made with None."""
    if amount is not None:
        raise Refused(_("%(verb)s takes no amount") % {"verb": verb})


def apply_timeout(doc: Doc, *, now: float) -> Doc:
    """The turn clock ran out for the player to act: their time bank, if they have one left, gives
    the turn more time (turn_time.py); else the clock folds, declines or skips (RULES.md §5)."""
    doc = copy_doc(doc)
    hand = hand_of(doc)
    if hand is None or hand.to_act is None:
        return doc
    pos = hand_doc(doc)["positions"][hand.to_act]
    if _draw_time_bank(doc, pos, now=now):
        return doc
    # The clock's move (no dark bet, pass or fold, no join) is said as a timeout, not as the move.
    events = hand.act(hand.to_act, "timeout")
    _note_move(doc, pos, verb=events[0][0], amount=None)
    seat = doc["seats"][pos]
    if seat is not None:
        seat["timeouts"] += 1
        add_line(doc, "timeout", name=seat["name"])
        if seat["timeouts"] >= TIMEOUTS_TO_SIT_OUT:
            seat["sitting_out"] = seat["away"] = True
            add_line(doc, "timed_out", name=seat["name"], count=TIMEOUTS_TO_SIT_OUT)
    _after_change(doc, hand, now=now, outcomes=cast("tuple[Outcome, ...]", events[1:]))
    return doc


def _after_change(doc: Doc, hand: Hand, *, now: float, outcomes: Iterable[Outcome] = ()) -> None:
    """Store the engine state; log what the change led to (``outcomes``: the engine's events after
    the move's own); act for absent players; set the turn clock or end the hand."""
    happened = list(outcomes)
    positions = hand_doc(doc)["positions"]
    # Players who left or were timed out twice are not waited for: the clock's move at once.
    while hand.to_act is not None:
        pos = positions[hand.to_act]
        seat = doc["seats"][pos]
        if seat is None or not (seat["leaving"] or seat["away"]):
            break
        events = hand.act(hand.to_act, "timeout")
        _note_move(doc, pos, verb=events[0][0], amount=None)
        happened.extend(cast("tuple[Outcome, ...]", events[1:]))
    before = hand_doc(doc)["state"]
    if (hand.phase, hand.svaras) != (before.get("phase"), before.get("svaras", 0)):
        hand_doc(doc)["moves"] = {}  # a new round: the seats' last moves were the last round's
    _log_outcomes(doc, hand, happened)
    if any(isinstance(event, ReplayDealt) for event in happened):
        _pause_for_svara(doc, hand, now=now)
    hand_doc(doc)["state"] = hand.to_json()
    if hand.phase == FINISHED:
        _finish(doc, hand, now=now)
        return
    if hand.to_act is None:  # waiting for a deck: cannot happen with seeds; end the clock
        doc["timer"] = None
        return
    doc["touched"] = now
    pause = hand_doc(doc).get("svara")
    if pause is not None:
        # The tied hands stay up until the pause ends; then the replay's first turn is timed.
        doc["timer"] = {"kind": "svara", "at": pause["until"]}
        return
    _time_the_turn(doc, hand, now=now)


def _draw_time_bank(doc: Doc, pos: int, *, now: float) -> bool:
    """The seat to act ran out of time: its time bank, if any is left, is added to the turn (said in
    the log and shown on the table); False when the clock is to act for the player."""
    seat = doc["seats"][pos]
    if seat is None:
        return False
    has_bank = not seat.get("bot") and not seat["leaving"]
    extra, left = clock_out(bank=seat.get("bank"), size=doc["table"].get("time_bank", 0), has_bank=has_bank)
    if not extra:
        return False
    seat["bank"] = left
    doc["timer"] = {"kind": "turn", "at": now + extra, "bank": True}
    add_line(doc, "time_bank", name=seat["name"], seconds=extra)
    return True


def _time_the_turn(doc: Doc, hand: Hand, *, now: float) -> None:
    seat = seat_at(doc, hand_doc(doc)["positions"][_to_act(hand)])
    if seat.get("bot"):
        # The computer answers through the same clock as a person, after a human-like pause.
        doc["timer"] = {"kind": "bot", "at": now + bot_pause(hand)}
        return
    seconds = JOIN_SECONDS if hand.phase == JOIN else doc["table"]["turn_seconds"]
    at = turn_deadline(now=now, seconds=seconds)  # none: a practice table without a clock
    doc["timer"] = None if at is None else {"kind": "turn", "at": at}


def _pause_for_svara(doc: Doc, hand: Hand, *, now: float) -> None:
    """A svara's replay was just dealt: for SVARA_PAUSE everyone sees the tied showdown (the hands
    shown at it, with their points) instead of the new deal, and nobody acts."""
    positions = hand_doc(doc)["positions"]
    showdown = hand.showdowns[-1]  # the tie: the replay's own showdown has not come
    best = max(points for points, _cards in showdown.values())
    hand_doc(doc)["svara"] = {
        "until": now + SVARA_PAUSE,
        "shown": {str(positions[int(s)]): [p, list(cards)] for s, (p, cards) in showdown.items()},
        "tied": [positions[int(s)] for s, (p, _c) in showdown.items() if p == best],
        "points": best,
    }


def end_svara_pause(doc: Doc, *, now: float) -> Doc:
    """The pause is over (its timer fired): the replay's cards show and its first turn is timed."""
    doc = copy_doc(doc)
    if not doc["hand"] or "svara" not in doc["hand"]:
        return doc
    del hand_doc(doc)["svara"]
    hand = hand_of(doc)
    assert hand is not None
    if hand.to_act is not None:
        _time_the_turn(doc, hand, now=now)
    return doc


def in_svara_pause(doc: Doc) -> bool:
    hand = doc["hand"]
    return hand is not None and "svara" in hand


def _log_outcomes(doc: Doc, hand: Hand, outcomes: list[Outcome]) -> None:
    """Log what the moves led to, in the order it happened: a svara opened (with its join fee, or
    dealt at once when nobody could join), each replay dealt, the pot won or the svara called off."""
    positions = hand_doc(doc)["positions"]
    for event in outcomes:
        if isinstance(event, SvaraOpened):
            # The tied players whose seats are still theirs (the seat of one removed is empty).
            names = [hand.names[s] for s in event.tied if doc["seats"][positions[s]]]
            if event.fee is None:
                add_line(doc, "svara_at_once", names=names, points=event.points, pot=event.pot)
            else:
                add_line(doc, "svara", names=names, points=event.points, pot=event.pot, fee=event.fee)
        elif isinstance(event, ReplayDealt):
            add_line(doc, "replay", number=event.number, pot=event.pot)
        elif isinstance(event, CalledOff):
            add_line(doc, "called_off", pot=event.pot)
        elif event[0] == WON:
            _won, seat, pot = cast("Won", event)
            add_line(doc, "won", name=hand.names[seat], pot=pot)  # the seat may be empty by now
        # A Split follows a CalledOff: the line above says it.


def bot_pause(hand: Hand) -> float:
    """0.8 to 2.3 seconds, longer for bigger decisions; a function of the state so a retried
    compare-and-set computes the same deadline."""
    return 0.8 + (len(hand.actions) * 7 + hand.pot) % 16 / 10


def apply_bot_move(doc: Doc, *, now: float) -> Doc:
    """The computer's decision for the seat to act (its timer fired), from that seat's view only."""
    import random

    from games.engine.bots import bot_view, decide

    hand = hand_of(doc)
    if hand is None or hand.to_act is None:
        return doc
    pos = hand_doc(doc)["positions"][hand.to_act]
    seat = doc["seats"][pos]
    if not seat or not seat.get("bot"):
        return doc
    # Seeded by the hand and the move number: the same decision if the write is retried, and
    # nothing the bot may not see goes into it.
    rng = random.Random(f"{hand_doc(doc)['number']}:{len(hand.actions)}:{seat['user_id']}")
    verb, amount = decide(bot_view(hand, hand.to_act), level=seat["bot"], rng=rng)
    return apply_move(doc, user_id=seat["user_id"], verb=verb, amount=amount, now=now, action_id=None)


def _to_act(hand: Hand) -> int:
    """The seat (in the engine's order) whose turn it is, for code that knows it is someone's."""
    if hand.to_act is None:
        raise LookupError("nobody is to act")
    return hand.to_act


def _finish(doc: Doc, hand: Hand, *, now: float) -> None:
    info = hand_doc(doc)
    won_by = hand.winner  # None: a svara called off, its pot split among the tied (RULES.md §5)
    positions = info["positions"]
    shown = {str(positions[s]): p for s, p in hand.points.items()}
    ended = info.copy()
    ended["state"] = hand.to_json()
    doc["ended"] = ended
    doc["hand"] = None
    doc["last"] = {
        "number": info["number"],
        # The seed hash, never the seed: it stays secret until the table's seed series ends.
        "seed_hash": info["seed_hash"],
        "client_seeds": info["client_seeds"],
        "winner": positions[won_by] if won_by is not None else None,
        "winner_name": hand.names[won_by] if won_by is not None else None,
        "pot": hand.pot,
        "points": shown,
        "cards": {str(positions[s]): list(hand.cards[s]) for s in hand.points},
        # Every hand dealt, and who folded: each player's view takes only their own (views.py).
        "dealt": {str(positions[s]): list(cards) for s, cards in enumerate(hand.cards) if cards},
        "folded": [positions[s] for s, still_in in enumerate(hand.in_hand) if not still_in],
        # Who played each position in this hand: the result belongs to them, not to whoever sits
        # there next (a seat freed during the result pause can be taken before the next deal).
        "players": {str(positions[s]): uid for s, uid in enumerate(info["players"])},
    }
    # The line that says who won (or that the svara was called off) came with the engine's event.
    # Settle in the database right away (the service does); the timer is the safety net.
    doc["timer"] = {"kind": "settle", "at": now + showdown_pause()}


def ended_chips(doc: Doc) -> dict[int, int]:
    """Position -> chips at the end of the ended hand, for the seats its players still hold:
    what the seats take when it is settled, and show until then (views.build_view)."""
    ended = doc.get("ended")
    if not ended:
        return {}
    hand = Hand.from_json(ended["state"])
    return {
        pos: hand.chips[index]
        for index, pos in enumerate(ended["positions"])
        if doc["seats"][pos] and seat_at(doc, pos)["user_id"] == ended["players"][index]
    }


def mark_settled(doc: Doc, *, now: float, left: list[int]) -> Doc:
    """The ended hand is settled in the database: new seat chips, seats of leavers freed."""
    doc = copy_doc(doc)
    if not doc["ended"]:
        return doc
    for pos, count in ended_chips(doc).items():
        seat_at(doc, pos)["chips"] = count
    _take_added_chips(doc)
    for pos, seat in enumerate(doc["seats"]):
        if seat and seat["user_id"] in left:
            doc["seats"][pos] = None
    doc["ended"] = None
    doc["timer"] = None
    _sit_out_broke_players(doc)
    schedule_start(doc, now=now, delay=result_pause(doc))
    return doc


def _sit_out_broke_players(doc: Doc) -> None:
    need = chips_to_be_dealt_in(doc["table"]["stake"])
    for seat in doc["seats"]:
        if seat and seat["chips"] < need and not seat["sitting_out"]:
            seat["sitting_out"] = True
            add_line(doc, "broke", name=seat["name"])


# ---------------------------------------------------------------- seats


def add_seat(doc: Doc, *, position: int, entry: dict, now: float) -> Doc:
    doc = copy_doc(doc)
    if doc["seats"][position] is not None and seat_at(doc, position)["user_id"] != entry["user_id"]:
        raise Refused(_("that seat is taken"), code="seat_taken")
    doc["seats"][position] = cast("SeatDoc", dict(entry))
    add_line(doc, "sits_down", name=entry["name"], chips=entry["chips"])
    schedule_start(doc, now=now)
    return doc


def remove_seat(doc: Doc, *, user_id: int, now: float) -> Doc:
    doc = copy_doc(doc)
    pos = position_of(doc, user_id)
    if pos is None:
        return doc
    add_line(doc, "leaves", name=seat_at(doc, pos)["name"])
    doc["seats"][pos] = None
    schedule_start(doc, now=now)
    return doc


def mark_leaving(doc: Doc, *, user_id: int, now: float) -> Doc:
    """Leaving mid-hand folds that hand at once, whoever's turn it is (RULES.md §5): the others
    never call into the pot of someone who has gone. The seat is freed when the hand is settled."""
    doc, pos = copy_with_own_seat(doc, user_id=user_id)
    seat = seat_at(doc, pos)
    seat["leaving"] = True
    add_line(doc, "leaving", name=seat["name"])
    hand = hand_of(doc)
    if hand is not None and pos in hand_doc(doc)["positions"]:
        index = hand_doc(doc)["positions"].index(pos)
        outcomes: tuple[Outcome, ...] = ()
        if hand.refusal(index, LEAVE) is None:  # still in the hand, or in its svara
            _note_move(doc, pos, verb="fold", amount=None)
            events = hand.act(index, LEAVE)
            add_line(doc, events[0][0], name=seat["name"])  # leaving folds: "folds"
            outcomes = cast("tuple[Outcome, ...]", events[1:])
        _after_change(doc, hand, now=now, outcomes=outcomes)
    return doc


def add_chips(doc: Doc, *, user_id: int, amount: int, now: float) -> Doc:
    """Chips the ledger has just moved onto the player's seat (records.add_chips) reach the table.

    By the amount, not by the balance the ledger read: in the same compare-and-set as the check of
    whether the seat plays a hand, so however the add and a deal or a settlement interleave, the
    seat's chips between hands are its ledger account. Added while the seat is in a hand (the
    service checked "between hands?" on an older copy, and a hand was dealt since), the chips wait
    beside the seat (``added``) and join its stack when the hand is settled or cancelled: the hand
    plays the stacks it was dealt with, and its settlement does not write over the add."""
    doc, pos = copy_with_own_seat(doc, user_id=user_id)
    seat = seat_at(doc, pos)
    if in_current_hand(doc, pos) or _in_ended(doc, pos):
        seat["added"] = seat.get("added", 0) + amount
        add_line(doc, "adds_later", name=seat["name"], chips=amount)
        return doc
    seat["chips"] += amount
    chips = seat["chips"]
    if can_be_dealt_in(chips=chips, stake=doc["table"]["stake"]) and seat["sitting_out"] and not seat["away"]:
        seat["sitting_out"] = False
    add_line(doc, "has", name=seat["name"], chips=chips)
    schedule_start(doc, now=now)
    return doc


def _in_ended(doc: Doc, pos: int) -> bool:
    ended = doc["ended"]
    return ended is not None and pos in ended["positions"]


def _take_added_chips(doc: Doc) -> None:
    """Chips added during a hand join their seats' stacks, now that it is settled or cancelled."""
    for seat in doc["seats"]:
        if seat and seat.get("added"):
            seat["chips"] += seat.pop("added")


def set_chips(doc: Doc, *, user_id: int, chips: int, now: float) -> Doc:
    doc, pos = copy_with_own_seat(doc, user_id=user_id)
    seat = seat_at(doc, pos)
    seat["chips"] = chips
    if can_be_dealt_in(chips=chips, stake=doc["table"]["stake"]) and seat["sitting_out"] and not seat["away"]:
        seat["sitting_out"] = False
    add_line(doc, "has", name=seat["name"], chips=chips)
    schedule_start(doc, now=now)
    return doc


def set_sitting_out(doc: Doc, *, user_id: int, sitting_out: bool, now: float) -> Doc:
    doc, pos = copy_with_own_seat(doc, user_id=user_id)
    seat = seat_at(doc, pos)
    need = chips_to_be_dealt_in(doc["table"]["stake"])
    if not sitting_out and seat["chips"] < need:
        raise Refused(
            _("add chips first: a hand needs at least %(chips)s")
            % {"chips": number_format(need, force_grouping=True)}
        )
    seat["sitting_out"] = sitting_out
    seat["away"] = False
    seat["timeouts"] = 0
    if sitting_out:
        add_line(doc, "sits_out", name=seat["name"])
    else:
        add_line(doc, "back", name=seat["name"])
    schedule_start(doc, now=now)
    return doc


def set_client_seed(doc: Doc, *, user_id: int, client_seed: str) -> Doc:
    doc, pos = copy_with_own_seat(doc, user_id=user_id)
    seat_at(doc, pos)["client_seed"] = client_seed
    return doc


def cancel_hand(doc: Doc, *, notice: dict[str, Any] | str, now: float) -> Doc:
    """Drop the hand in play: seats keep the chips they had when it began (the ledger never moved).

    ``notice`` says why, to everyone: an ``entry``, or a plain string shown as it is."""
    doc = copy_doc(doc)
    if doc["hand"]:
        add_line(doc, "cancelled", number=hand_doc(doc)["number"], notice=notice)
    doc["hand"] = None
    _take_added_chips(doc)
    set_notice(doc, notice)
    doc["timer"] = None
    for seat in doc["seats"]:
        if seat:
            seat["leaving"] = False
    schedule_start(doc, now=now)
    return doc
